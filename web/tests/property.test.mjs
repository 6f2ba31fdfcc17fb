// Property tests: random problems solved by the JS runtime (reference table stepper) equal
// BigInt arithmetic with Python's floor-division semantics, in both modes, at lengths well
// past the view set's witnesses (1-4 digits) -- which also checks that long inputs present
// only views of V, since the table stepper throws on any other view.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from '../expr.js';
import { evaluateBigInt, floorDiv, gcd, isqrt } from './bigint.mjs';
import { solve } from '../solve.js';
import { referenceStepper } from './replay.mjs';

const stepper = referenceStepper();
const SEED = Number(process.env.SKETCHPAD_SEED || 20261129);

function rng(seed) {            // mulberry32: small, seeded, reproducible
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function number(r, maxLen) {
  const len = 1 + Math.floor(r() * maxLen);
  let s = String(Math.floor(r() * 10));
  for (let i = 1; i < len; i++) s += Math.floor(r() * 10);
  return (r() < 0.4 ? '-' : '') + s;
}

async function check(expr, parallel) {
  let want;
  try {
    want = evaluateBigInt(parse(expr)).toString();
  } catch (e) {
    want = `error: ${e.message}`;
  }
  let got;
  try {
    got = (await solve(expr, stepper, { parallel })).value;
  } catch (e) {
    if (e.name !== 'InputError') throw new Error(`${expr} (${parallel ? 'parallel' : 'sequential'}): ${e.message}`);
    got = `error: ${e.message}`;
  }
  assert.equal(got, want, `${expr} (${parallel ? 'parallel' : 'sequential'}, seed ${SEED})`);
}

test('the BigInt oracle has Python\'s floor semantics', () => {
  const cases = [[17n, 5n, 3n, 2n], [-17n, 5n, -4n, 3n], [17n, -5n, -4n, -3n], [-17n, -5n, 3n, -2n], [0n, -3n, 0n, 0n]];
  for (const [a, b, q, r] of cases) {
    assert.equal(floorDiv(a, b), q);
    assert.equal(a - floorDiv(a, b) * b, r);
  }
  assert.equal(isqrt(99n), 9n);
  assert.equal(isqrt(100n), 10n);
  assert.equal(isqrt(10n ** 40n), 10n ** 20n);
  assert.equal(gcd(-84n, 36n), 12n);
});

for (const parallel of [true, false]) {
  const mode = parallel ? 'parallel' : 'sequential';

  test(`random single operations equal BigInt (${mode})`, async () => {
    const r = rng(SEED + (parallel ? 1 : 2));
    for (let n = 0; n < 150; n++) {
      const a = number(r, 12), b = number(r, 8);
      const op = ['+', '-', '*', '//', '%', 'sqrt', 'gcd'][n % 7];
      const expr = op === 'sqrt' ? `sqrt(${a.replace('-', '')})` : op === 'gcd' ? `gcd(${a}, ${b})` : `${a} ${op} ${b}`;
      await check(expr, parallel);
    }
  });

  test(`random nested expressions equal BigInt (${mode})`, async () => {
    const r = rng(SEED + (parallel ? 3 : 4));
    const gen = (depth) => {
      if (depth === 0 || r() < 0.3) return number(r, 6);
      const k = Math.floor(r() * 8);
      if (k === 6) return `sqrt(${gen(depth - 1)} * ${gen(depth - 1)})`;
      if (k === 7) return `-(${gen(depth - 1)})`;
      if (k === 5) return `gcd(${gen(depth - 1)}, ${gen(depth - 1)})`;
      return `(${gen(depth - 1)} ${['+', '-', '*', '//', '%'][k]} ${gen(depth - 1)})`;
    };
    for (let n = 0; n < 40; n++) await check(gen(3), parallel);
  });

  test(`long operands equal BigInt (${mode})`, async () => {
    const r = rng(SEED + (parallel ? 5 : 6));
    await check(`${number(r, 400)} + ${number(r, 400)}`, parallel);
    await check(`${number(r, 400)} - ${number(r, 400)}`, parallel);
    await check(`${'9'.repeat(300)} + 1`, parallel);
    await check(`${number(r, 25)} * ${number(r, 25)}`, parallel);
    await check(`${number(r, 40)} // ${number(r, 12)}`, parallel);
    await check(`${number(r, 40)} % ${number(r, 12)}`, parallel);
    await check(`sqrt(${number(r, 40).replace('-', '')})`, parallel);
    await check(`gcd(${number(r, 15)}, ${number(r, 15)})`, parallel);
  });
}

test('errors raised mid-solve match: division by zero, square root of a negative', async () => {
  for (const parallel of [true, false]) {
    await check('12 // (3 - 3)', parallel);
    await check('-7 % 0', parallel);
    await check('sqrt(5 - 9)', parallel);
  }
});
