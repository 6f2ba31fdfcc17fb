// The expression language (a port of sketchpad/expr.py, which holds the grammar in EBNF and
// docs/expressions.md with examples): integers, + - * // %, unary minus and plus, parentheses,
// sqrt(n) / isqrt(n), gcd(a, b).
//
// The same small recursive-descent parser, function for function: the same tree
// ['num', digits, negative] | ['neg', e] | ['bin', op, e1, e2] | ['call', name, [args]], and every
// refusal an InputError with Python's message and `column` (1-based, in code points of the text
// as typed).  web/golden/expr-vectors.json, generated from Python, holds the two equal.

import C from './generated/constants.json' with { type: 'json' };
import { InputError } from './errors.js';

// The functions, size limits and refusal messages are Python's (generated/constants.json).
export const FUNCTIONS = C.functions;
export const DEFAULT_LIMITS = Object.freeze({ ...C.limits });
const FORBIDDEN = C.forbidden_operators;
const MAX_NESTING = C.expression.max_nesting;
const EDGE_SPACE = new Set(C.expression.edge_space);

const BINARY = { '+': 1, '-': 1, '*': 2, '//': 2, '%': 2 };     // operator -> precedence
const TWO_CHAR = ['**', '//', '<<', '>>', '<=', '>=', '==', '!='];
const ONE_CHAR = '+-*/%(),<>=@&|^~;:[]{}!.';
const COMPARE = ['<', '>', '<=', '>=', '==', '!='];
const DIGITS = '0123456789';
const NAME_START = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_';
const NAME_REST = NAME_START + DIGITS;
const NUMBER_REST = `${NAME_REST}.`;
const WORDS = {
  not: 'not is not supported',
  lambda: 'lambda expressions are not supported',
  None: 'not an integer: None',
  True: 'not an integer: True',
  False: 'not an integer: False',
};
const OPERATOR_WORDS = {
  and: "'and'/'or' are not supported",
  or: "'and'/'or' are not supported",
  is: 'comparisons are not supported',
  in: 'comparisons are not supported',
  not: 'comparisons are not supported',
  if: 'conditional expressions are not supported',
  for: 'generator expressions are not supported',
};
const has = (chars, ch) => ch !== undefined && ch.length === 1 && chars.includes(ch);

/** 12345 -> "12,345", as Python's f"{n:,}". */
export function commas(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }

/** An InputError that says where: column is 1-based, or null. */
function exprError(message, column = null) { return Object.assign(new InputError(message), { column }); }

/** Python's repr of a typed number (digits, letters, '_' and '.': no quotes or escapes inside). */
const repr = (s) => `'${s}'`;

function charName(ch) {
  const cp = ch.codePointAt(0);
  const code = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return cp >= 0x21 && cp <= 0x7e ? `'${ch}' (${code})` : code;
}

class Lexer {
  constructor(s, start, end, limits) {
    Object.assign(this, { s, i: start, end, limits });
    this.opened = [];
    this.seen = false;
  }

  fail(message, at) { throw exprError(`syntax error at column ${at + 1}: ${message}`, at + 1); }

  skip() {
    const { s, end } = this;
    while (this.i < end) {
      const ch = s[this.i];
      if (ch === ' ' || ch === '\t' || ch === '\f') this.i++;
      else if (ch === '#') { while (this.i < end && !has('\r\n', s[this.i])) this.i++; }
      else if (ch === '\\' && this.i + 1 < end && has('\r\n', s[this.i + 1])) this.i += s[this.i + 1] === '\r' && s[this.i + 2] === '\n' ? 3 : 2;
      else if (has('\r\n', ch) && (this.opened.length || !this.seen)) this.i++;
      else return;
    }
  }

  next() {
    this.skip();
    const { s, i, end } = this;
    if (i >= end) return ['end', '', end];
    this.seen = true;
    const ch = s[i];
    if (has('\r\n', ch)) {      // outside parentheses: the expression ends here, or it is an error
      this.seen = false;        // look ahead over blank lines and comments
      this.skip();
      const blank = this.i >= end;
      this.seen = true; this.i = i;
      return blank ? ['end', '', end] : ['newline', '', i];
    }
    if (has(DIGITS, ch) || (ch === '.' && i + 1 < end && has(DIGITS, s[i + 1]))) {
      let j = i + 1;
      while (j < end && has(NUMBER_REST, s[j])) j++;
      this.i = j;
      return ['num', this.number(s.slice(i, j).join(''), i), i];
    }
    if (has(NAME_START, ch)) {
      let j = i + 1;
      while (j < end && (has(NAME_REST, s[j]) || (s[j] === '.' && j + 1 < end && has(NAME_START, s[j + 1])))) j++;
      this.i = j;
      return ['name', s.slice(i, j).join(''), i];
    }
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < end && s[j] !== ch && !has('\r\n', s[j])) j += s[j] === '\\' ? 2 : 1;
      if (j >= end || s[j] !== ch) this.fail('unterminated string', i);
      throw exprError(`not an integer: ${s.slice(i, j + 1).slice(0, 40).join('')}`, i + 1);
    }
    const two = i + 1 < end ? ch + s[i + 1] : ch;
    const op = TWO_CHAR.includes(two) ? two : ch;
    if (!TWO_CHAR.includes(op) && !has(ONE_CHAR, op)) this.fail(`invalid character ${charName(ch)}`, i);
    if (op === '(') {
      this.opened.push(i);
      if (this.opened.length > MAX_NESTING) this.fail('too many nested parentheses', i);
    } else if (op === ')' && this.opened.length) this.opened.pop();
    this.i = i + op.length;
    return ['op', op, i];
  }

  number(tok, at) {
    if (![...tok].every((c) => has(DIGITS, c))) {
      if (tok.includes('.') || tok.toLowerCase().includes('e')) {
        throw exprError(`not an integer: ${repr(tok.slice(0, 40))} (only whole numbers are allowed)`, at + 1);
      }
      const kind = ['0x', '0b', '0o'].includes(tok.slice(0, 2)) ? 'a decimal integer (no 0x/0b/0o)' : 'a decimal integer';
      throw exprError(`not ${kind}: ${repr(tok.slice(0, 40))}`, at + 1);
    }
    if (tok.length > this.limits.maxDigits) {
      throw exprError(`a number has ${commas(tok.length)} digits; the limit is ${commas(this.limits.maxDigits)}`, at + 1);
    }
    return tok.replace(/^0+/, '') || '0';
  }
}

class Parser {
  constructor(lexer, limits) {
    Object.assign(this, { lex: lexer, limits });
    this.tok = lexer.next();
    this.parts = 0;
    this.calls = [];
  }

  advance() { const tok = this.tok; this.tok = this.lex.next(); return tok; }

  isOp(...ops) { return this.tok[0] === 'op' && ops.includes(this.tok[1]); }

  part(at) {
    this.parts += 1;
    if (this.parts > this.limits.maxOperations) throw exprError(`the expression has more than ${this.limits.maxOperations} parts`, at + 1);
  }

  expected(what) {
    const [kind, value, at] = this.tok;
    if (kind === 'end' && this.lex.opened.length) this.lex.fail("'(' was never closed", this.lex.opened.at(-1));
    const found = { end: 'the end', newline: 'a line break', num: 'a number' }[kind] ?? `'${value}'`;
    this.lex.fail(`expected ${what}, found ${found}`, at);
  }

  sum() {
    const out = [this.unary()], ops = [];
    for (;;) {
      const [kind, value, at] = this.tok;
      if (kind === 'op' && Object.hasOwn(BINARY, value)) { /* an operator of the language */ }
      else if (kind === 'op' && Object.hasOwn(FORBIDDEN, value)) throw exprError(FORBIDDEN[value], at + 1);
      else if (kind === 'op' && COMPARE.includes(value)) throw exprError('comparisons are not supported', at + 1);
      else if (kind === 'name' && Object.hasOwn(OPERATOR_WORDS, value)) throw exprError(OPERATOR_WORDS[value], at + 1);
      else break;
      this.advance();
      this.part(at);
      while (ops.length && BINARY[ops.at(-1)] >= BINARY[value]) {
        const right = out.pop(), left = out.pop();
        out.push(['bin', ops.pop(), left, right]);
      }
      ops.push(value);
      out.push(this.unary());
    }
    while (ops.length) {
      const right = out.pop(), left = out.pop();
      out.push(['bin', ops.pop(), left, right]);
    }
    return out[0];
  }

  unary() {
    const signs = [];
    while (this.isOp('+', '-')) {
      signs.push(this.tok[1]);
      this.part(this.advance()[2]);
    }
    let node = this.tok[0] === 'name' ? this.name() : this.primary();    // a frame less for calls
    for (let k = signs.length - 1; k >= 0; k--) {
      if (signs[k] === '-') node = node[0] === 'num' ? ['num', node[1], !node[2]] : ['neg', node];   // a negative literal is input, not work
    }
    return node;
  }

  primary() {
    const [kind, value, at] = this.tok;
    if (kind === 'num') {
      this.advance();
      this.part(at);
      return ['num', value, false];
    }
    if (kind === 'op' && value === '(') {
      this.advance();
      const node = this.sum();
      if (!this.isOp(')')) this.expected("an operator or ')'");
      this.advance();
      return node;
    }
    if (kind === 'op' && value === '~') throw exprError('~ is not supported', at + 1);
    if (kind === 'op' && has('[]{}', value)) throw exprError(`'${value}' is not supported: group with ( and )`, at + 1);
    return this.expected('a number');
  }

  name() {
    const [, value, at] = this.advance();
    if (Object.hasOwn(WORDS, value)) throw exprError(WORDS[value], at + 1);
    if (this.isOp('=') && this.calls.length) throw exprError(`${this.calls.at(-1)}() takes no keyword arguments`, at + 1);
    if (!this.isOp('(')) throw exprError(`unknown name '${value}'`, at + 1);
    if (!Object.hasOwn(FUNCTIONS, value)) throw exprError(`unknown function '${value}' (allowed: sqrt, gcd)`, at + 1);
    this.part(at);
    this.advance();
    this.calls.push(value);
    const args = [];
    while (!this.isOp(')')) {
      args.push(this.sum());
      if (this.isOp(',')) this.advance();
      else if (!this.isOp(')')) this.expected("an operator, ',' or ')'");
    }
    this.advance();
    this.calls.pop();
    const want = FUNCTIONS[value];
    if (args.length !== want) throw exprError(`${value}() takes ${want} argument${want > 1 ? 's' : ''}, got ${args.length}`, at + 1);
    return ['call', value === 'isqrt' ? 'sqrt' : value, args];
  }
}

/** Two lines: the text around `column` (1-based, code points) and a caret under it. */
export function caretLines(text, column, width = 72) {
  const line = Array.from(text, (c) => (EDGE_SPACE.has(c) || c < ' ' ? ' ' : c));
  const start = Math.max(0, Math.min(column - 1 - Math.floor(width / 2), line.length - width));
  const head = start ? '...' : '', tail = start + width < line.length ? '...' : '';
  return `  ${head}${line.slice(start, start + width).join('')}${tail}\n  ${' '.repeat(head.length + column - 1 - start)}^`;
}

/** The tree of `text`, or an InputError saying what is wrong and at which column. */
export function parse(text, limits = DEFAULT_LIMITS) {
  if (typeof text !== 'string') throw new InputError('the expression must be a string');
  const L = { ...DEFAULT_LIMITS, ...limits };
  if (text.length > L.maxChars) {
    const chars = [...text].length;     // Python counts code points
    if (chars > L.maxChars) throw exprError(`the expression has ${commas(chars)} characters; the limit is ${commas(L.maxChars)}`);
  }
  const s = Array.from(text);           // one item a code point, as Python's str
  let start = 0, end = s.length;
  while (start < end && EDGE_SPACE.has(s[start])) start++;
  while (end > start && EDGE_SPACE.has(s[end - 1])) end--;
  if (start === end) throw exprError('empty expression');
  const nul = s.indexOf('\x00');
  if (nul >= 0) throw exprError('the expression contains a NUL character', nul + 1);
  const p = new Parser(new Lexer(s, start, end, L), L);
  const tree = p.sum();
  if (p.isOp(')')) p.lex.fail("unmatched ')'", p.tok[2]);
  if (p.tok[0] !== 'end') p.expected('an operator');
  return tree;
}
