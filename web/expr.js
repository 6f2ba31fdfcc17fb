// The expression language (a port of sketchpad/expr.py): integers, + - * // %, unary minus
// and plus, parentheses, sqrt(n) / isqrt(n), gcd(a, b).
//
// Python parses with its own `ast` under an allow-list; here a small tokenizer and a
// recursive-descent parser build the same kind of tree for the whole Python expression
// grammar that matters (so `2 ** 3`, `a < b`, `[1]` parse and are then refused with the same
// words), and `walk` mirrors Python's walk check for check, in the same order.  Output is the
// same tree: ['num', digits, negative] | ['neg', e] | ['bin', op, e1, e2] | ['call', name, [args]].
// Known difference: a syntax error's column counts characters of the text as typed (Python's
// counts its internal placeholder names), and the wording of syntax errors is this parser's.

import C from './generated/constants.json' with { type: 'json' };
import { InputError } from './errors.js';

// The functions, size limits and refusal messages are Python's (generated/constants.json).
export const FUNCTIONS = C.functions;
export const DEFAULT_LIMITS = Object.freeze({ ...C.limits });
const FORBIDDEN_OPS = C.forbidden_operators;
const NUMBER_TOKEN = '[0-9][0-9A-Za-z_.]*|\\.[0-9][0-9A-Za-z_.]*';     // Python's _TOKEN
const MAX_NESTING = 200;     // Python's tokenizer refuses deeper brackets

/** 12345 -> "12,345", as Python's f"{n:,}". */
export function commas(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }

/** Python's repr of a string (the cases that reach messages). */
function repr(s) {
  if (s.includes("'") && !s.includes('"')) return `"${s}"`;
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\t/g, '\\t')}'`;
}

function syntaxErrorAt(msg, pos) {
  return new InputError(pos === null ? `syntax error: ${msg}` : `syntax error at column ${pos + 1}: ${msg}`);
}

// ---------------------------------------------------------------- tokens

const OPERATORS = ['**', '//', '<<', '>>', '<=', '>=', '==', '!=', '->', ':=',
  '+', '-', '*', '/', '%', '@', '&', '|', '^', '~', '<', '>', '(', ')', '[', ']', '{', '}',
  ',', ':', '.', ';', '=', '!'];
const OPENERS = { '(': ')', '[': ']', '{': '}' };
const CLOSERS = { ')': '(', ']': '[', '}': '{' };

function tokenize(text, base) {
  const toks = [];
  const syntaxError = (msg, pos) => syntaxErrorAt(msg, pos === null ? null : pos + base);
  const stack = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === ' ' || ch === '\t' || ch === '\f') { i++; continue; }
    if (ch === '\\' && (text[i + 1] === '\n' || text[i + 1] === '\r')) { i += 2; continue; }   // line continuation
    if (ch === '#') { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (ch === '\n' || ch === '\r') {
      if (!stack.length) toks.push({ t: 'newline', v: '\n', pos: i });   // a second logical line
      i++;
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(text[i + 1] || ''))) {
      const sticky = new RegExp(NUMBER_TOKEN, 'y');
      sticky.lastIndex = i;
      const m = sticky.exec(text);
      toks.push({ t: 'num', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    const name = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/u.exec(text.slice(i, i + 200));
    if (name) {
      let end = i + name[0].length;
      while (end < text.length && /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u.test(text[end])) end++;
      toks.push({ t: 'name', v: text.slice(i, end), pos: i });
      i = end;
      continue;
    }
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== ch && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      if (text[j] !== ch) throw syntaxError('unterminated string literal', i);
      toks.push({ t: 'str', v: text.slice(i + 1, j), pos: i });
      i = j + 1;
      continue;
    }
    if (text.startsWith('...', i)) { toks.push({ t: 'op', v: '...', pos: i }); i += 3; continue; }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) {
      const cp = text.codePointAt(i);
      throw syntaxError(`invalid character ${repr(String.fromCodePoint(cp))} (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`, i);
    }
    if (op in OPENERS) {
      stack.push({ v: op, pos: i });
      if (stack.length > MAX_NESTING) throw syntaxError('too many nested parentheses', i);
    } else if (op in CLOSERS) {
      if (!stack.length) throw syntaxError(`unmatched ${repr(op)}`, i);
      const open = stack.pop();
      if (open.v !== CLOSERS[op]) {
        throw syntaxError(`closing parenthesis ${repr(op)} does not match opening parenthesis ${repr(open.v)}`, i);
      }
    }
    toks.push({ t: 'op', v: op, pos: i });
    i += op.length;
  }
  if (stack.length) throw syntaxError(`${repr(stack[stack.length - 1].v)} was never closed`, stack[stack.length - 1].pos);
  toks.push({ t: 'end', v: '', pos: null });
  return toks;
}

// ---------------------------------------------------------------- parser (Python's grammar)

const KEYWORDS = new Set(['not', 'and', 'or', 'if', 'else', 'lambda', 'in', 'is', 'for', 'await',
  'yield', 'None', 'True', 'False', 'import', 'from', 'def', 'class', 'return', 'del', 'pass']);
const CONSTANTS = { None: 'None', True: 'True', False: 'False' };
const COMPARE = new Set(['<', '>', '==', '>=', '<=', '!=']);

class Parser {
  constructor(toks, base) { this.toks = toks; this.base = base; this.k = 0; }

  peek(o = 0) { return this.toks[this.k + o]; }
  next() { return this.toks[this.k++]; }
  is(v, o = 0) { const t = this.peek(o); return (t.t === 'op' || t.t === 'name') && t.v === v; }
  fail(t = this.peek()) { throw syntaxErrorAt('invalid syntax', t.pos === null ? null : t.pos + this.base); }
  take(v) { if (!this.is(v)) this.fail(); return this.next(); }
  node(type, start, props) { return { type, start, end: this.lastEnd(), ...props }; }
  lastEnd() { const t = this.toks[this.k - 1]; return t.pos + (t.t === 'str' ? t.v.length + 2 : t.v.length); }

  /** Skip to the bracket closing the one just consumed (its contents are refused anyway). */
  skipGroup(close) {
    let depth = 1;
    for (;;) {
      const t = this.next();
      if (t.t === 'op' && t.v in OPENERS) depth++;
      else if (t.t === 'op' && t.v in CLOSERS && --depth === 0) { if (t.v !== close) this.fail(t); return; }
    }
  }

  expression() {
    const e = this.test();
    if (this.peek().t !== 'end') this.fail();
    return e;
  }

  test() {
    const start = this.peek().pos;
    if (this.is('lambda')) {
      this.next();
      while (!this.is(':')) { if (this.peek().t === 'end') this.fail(); this.next(); }
      this.next();
      this.test();
      return this.node('Lambda', start);
    }
    const body = this.or();
    if (this.is('if')) {
      this.next();
      this.or();
      this.take('else');
      this.test();
      return this.node('IfExp', start);
    }
    return body;
  }

  or() {
    const start = this.peek().pos;
    let e = this.and();
    while (this.is('or')) { this.next(); this.and(); e = this.node('BoolOp', start); }
    return e;
  }

  and() {
    const start = this.peek().pos;
    let e = this.not();
    while (this.is('and')) { this.next(); this.not(); e = this.node('BoolOp', start); }
    return e;
  }

  not() {
    const start = this.peek().pos;
    let n = 0;
    while (this.is('not')) { this.next(); n++; }       // iterative: long chains cannot overflow
    let e = this.comparison();
    for (let j = 0; j < n; j++) e = this.node('UnaryOp', start, { op: 'not', operand: e });
    return e;
  }

  comparison() {
    const start = this.peek().pos;
    let e = this.binary(0);
    for (;;) {
      const t = this.peek();
      if (t.t === 'op' && COMPARE.has(t.v)) this.next();
      else if (this.is('in') || this.is('is')) { this.next(); if (this.is('not')) this.next(); }
      else if (this.is('not') && this.is('in', 1)) { this.next(); this.next(); }
      else return e;
      this.binary(0);
      e = this.node('Compare', start);
    }
  }

  /** Binary operators by Python's precedence levels, left-associative. */
  binary(level) {
    const LEVELS = [['|'], ['^'], ['&'], ['<<', '>>'], ['+', '-'], ['*', '/', '//', '%', '@']];
    if (level === LEVELS.length) return this.factor();
    const start = this.peek().pos;
    let e = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op' || !LEVELS[level].includes(t.v)) return e;
      this.next();
      const right = this.binary(level + 1);
      e = this.node('BinOp', start, { op: t.v, left: e, right });
    }
  }

  factor() {
    const prefix = [];
    while (this.peek().t === 'op' && ['+', '-', '~'].includes(this.peek().v)) prefix.push(this.next());
    let e = this.power();
    for (let j = prefix.length - 1; j >= 0; j--) {
      e = { type: 'UnaryOp', start: prefix[j].pos, end: e.end, op: prefix[j].v, operand: e };
    }
    return e;
  }

  power() {
    const start = this.peek().pos;
    if (this.is('await')) { this.next(); this.primary(); return this.node('Await', start); }
    const base = this.primary();
    if (this.is('**')) {
      this.next();
      const exp = this.factor();
      return this.node('BinOp', start, { op: '**', left: base, right: exp });
    }
    return base;
  }

  primary() {
    const start = this.peek().pos;
    let e = this.atom();
    for (;;) {
      if (this.is('(')) {
        this.next();
        const args = [];
        let keywords = 0;
        while (!this.is(')')) {
          if (this.is('*') || this.is('**')) {
            const star = this.next();
            const value = this.test();
            if (star.v === '*') args.push({ type: 'Starred', value });
            else keywords++;
          } else if (this.peek().t === 'name' && this.is('=', 1)) {
            this.next(); this.next(); this.test(); keywords++;
          } else {
            args.push(this.test());
            if (this.is('for')) this.fail();
          }
          if (!this.is(')')) this.take(',');
        }
        this.next();
        e = this.node('Call', start, { func: e, args, keywords });
      } else if (this.is('[')) {
        this.next();
        this.skipGroup(']');
        e = this.node('Subscript', start);
      } else if (this.is('.')) {
        this.next();
        if (this.peek().t !== 'name') this.fail();
        this.next();
        e = this.node('Attribute', start);
      } else {
        return e;
      }
    }
  }

  atom() {
    const t = this.peek();
    const start = t.pos;
    if (t.t === 'num') { this.next(); return this.node('Num', start, { digits: t.v }); }
    if (t.t === 'str') {
      this.next();
      let v = t.v;
      while (this.peek().t === 'str') v += this.next().v;    // adjacent literals concatenate
      return this.node('Constant', start, { repr: repr(v) });
    }
    if (t.t === 'name') {
      if (t.v in CONSTANTS) { this.next(); return this.node('Constant', start, { repr: CONSTANTS[t.v] }); }
      if (KEYWORDS.has(t.v)) this.fail();
      this.next();
      return this.node('Name', start, { id: t.v });
    }
    if (t.t === 'op' && t.v === '...') { this.next(); return this.node('Constant', start, { repr: 'Ellipsis' }); }
    if (t.t === 'op' && t.v === '(') {
      this.next();
      if (this.is(')')) { this.next(); return this.node('Tuple', start); }
      const e = this.test();
      if (this.is(')')) { this.next(); return e; }
      if (this.is(',')) { this.skipGroup(')'); return this.node('Tuple', start); }
      if (this.is('for')) { this.skipGroup(')'); return this.node('GeneratorExp', start); }
      this.fail();
    }
    if (t.t === 'op' && t.v === '[') { this.next(); this.skipGroup(']'); return this.node('List', start); }
    if (t.t === 'op' && t.v === '{') {
      this.next();
      const empty = this.is('}');
      const from = this.k;
      this.skipGroup('}');
      const isDict = empty || this.toks.slice(from, this.k).some((x) => x.t === 'op' && x.v === ':');
      return this.node(isDict ? 'Dict' : 'Set', start);
    }
    this.fail(t);
  }
}

// ---------------------------------------------------------------- parse, as Python's parse()

export function parse(text, limits = DEFAULT_LIMITS) {
  if (typeof text !== 'string') throw new InputError('the expression must be a string');
  const L = { ...DEFAULT_LIMITS, ...limits };
  // Number tokens first, in order, exactly as Python cuts them out before parsing.
  for (const m of text.matchAll(new RegExp(NUMBER_TOKEN, 'g'))) {
    const tok = m[0];
    if (!/^[0-9]+$/.test(tok)) {
      const kind = ['0x', '0b', '0o'].includes(tok.slice(0, 2)) ? 'a decimal integer (no 0x/0b/0o)' : 'a decimal integer';
      if (tok.includes('.') || tok.toLowerCase().includes('e')) {
        throw new InputError(`not an integer: ${repr(tok.slice(0, 40))} (only whole numbers are allowed)`);
      }
      throw new InputError(`not ${kind}: ${repr(tok.slice(0, 40))}`);
    }
    if (tok.length > L.maxDigits) throw new InputError(`a number has ${commas(tok.length)} digits; the limit is ${commas(L.maxDigits)}`);
  }
  if (text.length > L.maxChars) {
    const chars = [...text].length;     // Python counts code points
    if (chars > L.maxChars) throw new InputError(`the expression has ${commas(chars)} characters; the limit is ${commas(L.maxChars)}`);
  }
  if (!text.trim()) throw new InputError('empty expression');
  if (text.includes('\x00')) throw new InputError('the expression contains a NUL character');
  // Python parses the stripped text; columns in messages count from the text as typed.
  const body = text.trim();
  const base = text.length - text.trimStart().length;
  let tree;
  try {
    tree = new Parser(tokenize(body, base), base).expression();
  } catch (e) {
    if (e instanceof RangeError) throw new InputError('the expression is nested too deeply');
    throw e;
  }
  return walkTree(tree, body, L);
}

function walkTree(root, text, L) {
  let count = 0;
  const walk = (node) => {
    count += 1;
    if (count > L.maxOperations) throw new InputError(`the expression has more than ${L.maxOperations} parts`);
    switch (node.type) {
      case 'Num': return ['num', node.digits.replace(/^0+/, '') || '0', false];
      case 'Name': throw new InputError(`unknown name ${repr(node.id)}`);
      case 'UnaryOp': {
        if (node.op === '+') return walk(node.operand);
        if (node.op === '-') {
          const inner = walk(node.operand);
          if (inner[0] === 'num') return ['num', inner[1], !inner[2]];    // a negative literal is input, not work
          return ['neg', inner];
        }
        throw new InputError(`${node.op === 'not' ? 'not' : '~'} is not supported`);
      }
      case 'BinOp':
        if (node.op in FORBIDDEN_OPS) throw new InputError(FORBIDDEN_OPS[node.op]);
        return ['bin', node.op, walk(node.left), walk(node.right)];
      case 'Call': {
        const name = node.func.type === 'Name' ? node.func.id : text.slice(node.func.start, node.func.end);
        if (node.func.type !== 'Name' || !Object.hasOwn(FUNCTIONS, name)) {
          throw new InputError(`unknown function ${repr(name)} (allowed: sqrt, gcd)`);
        }
        if (node.keywords) throw new InputError(`${name}() takes no keyword arguments`);
        const want = FUNCTIONS[name];
        if (node.args.length !== want) {
          throw new InputError(`${name}() takes ${want} argument${want > 1 ? 's' : ''}, got ${node.args.length}`);
        }
        if (node.args.some((a) => a.type === 'Starred')) throw new InputError('argument unpacking is not supported');
        return ['call', name === 'isqrt' ? 'sqrt' : name, node.args.map(walk)];
      }
      case 'Constant': throw new InputError(`not an integer: ${node.repr}`);
      case 'Compare': throw new InputError('comparisons are not supported');
      case 'BoolOp': throw new InputError("'and'/'or' are not supported");
      default: throw new InputError(`${node.type.toLowerCase()} expressions are not supported`);
    }
  };
  return walk(root);
}
