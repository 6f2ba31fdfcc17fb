// The expression language: the JS parser accepts what Python accepts with the same tree, and
// rejects what Python rejects with the same message (syntax errors: the same kind of message,
// with columns counted on the text as typed).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { InputError } from '../errors.js';
import { parse } from '../expr.js';
import { GOLDEN_DIR } from './replay.mjs';

const errors = JSON.parse(readFileSync(`${GOLDEN_DIR}errors.json`, 'utf8'));
const parses = JSON.parse(readFileSync(`${GOLDEN_DIR}parses.json`, 'utf8'));

test('every expression Python accepts parses to the same tree', () => {
  assert.ok(parses.length >= 20);
  for (const { expr, tree } of parses) assert.deepEqual(parse(expr), tree, JSON.stringify(expr));
});

test('every expression Python rejects is rejected with the same message', () => {
  assert.ok(errors.length >= 40);
  for (const { expr, max_digits: maxDigits, error } of errors) {
    let got = null;
    try {
      parse(expr, { maxDigits });
    } catch (e) {
      assert.ok(e instanceof InputError, `${JSON.stringify(expr)} threw ${e}`);
      got = e.message;
    }
    assert.notEqual(got, null, `${JSON.stringify(expr)} was accepted`);
    if (error.startsWith('syntax error')) assert.match(got, /^syntax error/, JSON.stringify(expr));
    else if (error.includes('_sketchpad_literal_')) {
      // Python's message names its internal placeholder for a number; ours shows the text typed.
      assert.ok(got.startsWith(error.slice(0, error.indexOf("'"))), `${JSON.stringify(expr)}: ${got}`);
    } else assert.equal(got, error, JSON.stringify(expr));
  }
});

test('syntax errors point at the column where the text goes wrong', () => {
  const at = (expr) => { try { parse(expr); } catch (e) { return e.message; } return null; };
  assert.equal(at('1 2'), 'syntax error at column 3: invalid syntax');
  assert.equal(at('  (1 + 2'), "syntax error at column 3: '(' was never closed");
  assert.equal(at('1 + 2)'), "syntax error at column 6: unmatched ')'");
  assert.equal(at('(1 + 2]'), "syntax error at column 7: closing parenthesis ']' does not match opening parenthesis '('");
  assert.equal(at('1 +'), 'syntax error: invalid syntax');
  assert.equal(at('1 $ 2'), "syntax error at column 3: invalid character '$' (U+0024)");
  assert.equal(at('(1)(2)'), "unknown function '1' (allowed: sqrt, gcd)");
});

test('limits: parts, characters and digits', () => {
  assert.throws(() => parse(`${'1+'.repeat(300)}1`), { message: 'the expression has more than 500 parts' });
  assert.throws(() => parse(`${'-'.repeat(100000)}1`), { message: 'the expression has more than 500 parts' });
  assert.throws(() => parse('1 + 1', { maxChars: 3 }), { message: 'the expression has 5 characters; the limit is 3' });
  assert.throws(() => parse('1'.repeat(20001)), { message: 'a number has 20,001 digits; the limit is 20,000' });
  assert.deepEqual(parse(`${'-'.repeat(400)}1`), ['num', '1', false]);
  assert.throws(() => parse(42), { message: 'the expression must be a string' });
});
