// The procedures (a port of sketchpad/procedures.py): signed addition and subtraction, long
// multiplication, long division, square root, gcd and negation, each laid out on a sheet
// block and run as a generator.  A number on the sheet is a Num: a sign cell and its digit
// cells (units first).  Numbers pass between procedures by sharing cells; nothing is
// re-written.  Decisions come from flags that steps emitted; placement uses positions only.

import { STEP_SYM, SYMBOLS, viewCode } from './codes.js';
import { InputError, StepperFault } from './errors.js';
import { ask, expect, FAMILIES, parallelMode, scan, selectProbes, signView, speculate, together } from './runtime.js';
import { Ask, Presented } from './parts.js';
import { Row, Sheet, numberCells } from './sheet.js';
import { ADD2_DIGITS, digitsAnd, trialProbes } from './trials.js';
import {
  ABS, ADD, ADD2, ADJ, BLANK, CMP, CMP_EQ, DQ, HALT, INC, MINUS, MUL, NEG, NONZERO_FLAG,
  ODD, SGN_ADD, SGN_DIV, SGN_MUL, SGN_SUB, SUB, SWAP, ZERO_FLAG, ZT,
} from './symbols.js';

export { ADD2_DIGITS, trialProbes };
export { DQ_STATES } from './trials.js';

const EMPTY = new Int32Array(0);

/** A number on the sheet: its store, its sign cell and its digit cells (units first). */
export class Num {
  constructor(store, signId, ids) { this.store = store; this.signId = signId; this.ids = ids; }

  get digits() {
    let s = '';
    for (let i = this.ids.length - 1; i >= 0; i--) s += this.ids[i] < 0 ? BLANK : SYMBOLS[this.store.sym[this.ids[i]]];
    return s;
  }

  get sign() { return this.signId < 0 ? null : { sym: SYMBOLS[this.store.sym[this.signId]] }; }

  /** The value as a decimal string ("-123", "0"): reading writes nothing. */
  value() {
    const d = this.digits;
    let ok = d.length > 0;
    for (const id of this.ids) if (id < 0 || this.store.sym[id] > 9) ok = false;
    if (!ok) throw new StepperFault(`a result row holds non-digit symbols: '${d}'`);
    const sign = this.signId < 0 ? null : SYMBOLS[this.store.sym[this.signId]];
    if (sign !== '+' && sign !== '-') throw new StepperFault(`a result sign cell holds '${sign ?? 'nothing'}'`);
    const v = d.replace(/^0+(?=.)/, '');
    return sign === MINUS && v !== '0' ? `-${v}` : v;
  }
}

/** A problem's own number as input cells in `store` (the runtime writes none of it). */
export function operand(digits, negative, store) {
  const ids = numberCells(store, digits, negative);
  return new Num(store, ids[0], ids.subarray(1));
}

/** Drop leading zero cells (keeping one): a position choice, no symbol is written. */
export function canonical(store, ids) {
  let n = ids.length;
  while (n > 1 && (ids[n - 1] < 0 || store.sym[ids[n - 1]] === 0)) n -= 1;
  for (let i = 0; i < n; i++) if (ids[i] < 0) throw new StepperFault('a result row has a gap');
  return ids.subarray(0, n);
}

function row(sheet, name, { num = null, ids = null, offset = 0 } = {}) {
  if (num) return sheet.sharedRow(name, num.ids, num.signId, offset);
  return sheet.sharedRow(name, ids || EMPTY, -1, offset);
}

// ---------------------------------------------------------------- magnitudes

export function* addRows(sheet, x, y, name = 'sum', start = 0, offset = 0) {
  const carry = sheet.row('carry', offset);
  const out = sheet.row(name, offset);
  out.share(0, x.ids.subarray(0, Math.min(start, x.width())));
  const [step] = yield* scan(ADD, x, y, carry, out, start);
  expect(step, [HALT], 'addition');
  return out;
}

/** x - y column by column; returns [row, final borrow symbol]. */
export function* subRows(sheet, x, y, name = 'diff', offset = 0) {
  const borrow = sheet.row('borrow', offset);
  const out = sheet.row(name, offset);
  const [step] = yield* scan(SUB, x, y, borrow, out);
  expect(step, [HALT], 'subtraction');
  return [out, step[1]];
}

export function* compareRows(sheet, x, y) {
  const flag = sheet.row('cmp');
  const [step] = yield* scan(CMP_EQ, x, y);
  expect(step, [HALT], 'comparison');
  Sheet.write(flag, 0, step);
  return flag;
}

export function* zeroTest(sheet, x, name = 'zero?') {
  const flag = sheet.row(name);
  const [step] = yield* scan(ZT, x);
  expect(step, [HALT], 'zero test');
  Sheet.write(flag, 0, step);
  if (step[0] !== ZERO_FLAG && step[0] !== NONZERO_FLAG) throw new StepperFault(`zero test wrote '${step[0]}'`);
  return flag;
}

/** |x| * |y|: one partial-product row per digit of y, all advancing together (one batch per
 *  column), then the rows added in: pairwise in a tree (parallel) or one by one (sequential). */
export function* productRows(sheet, x, y) {
  const partial = [];
  const gens = [];
  for (let j = 0; j < y.width(); j++) {
    const carry = sheet.row('carry', j);
    const r = sheet.row(`x${y.sym(j)}`, j);
    partial.push(r);
    gens.push(partialRow(x, y.cell(j), carry, r));
  }
  yield* together(gens);
  if (parallelMode()) return yield* sumTree(sheet, partial.map((r, j) => [r, j]));
  let total = partial[0];
  for (let j = 1; j < partial.length; j++) {
    total = yield* addRows(sheet, total, Row.shifted(partial[j], j), 'sum', j);
  }
  return total;
}

/** Add shifted rows pairwise, all pairs of a level together: log2(rows) levels. */
function* sumTree(sheet, items) {
  while (items.length > 1) {
    const gens = [];
    for (let k = 0; k + 1 < items.length; k += 2) {
      const [[r1, s1], [r2, s2]] = [items[k], items[k + 1]];
      gens.push(addRows(sheet, r1, Row.shifted(r2, s2 - s1), 'sum', s2 - s1, s1));
    }
    const sums = yield* together(gens);
    const next = sums.map((r, k) => [r, items[2 * k][1]]);
    if (items.length % 2) next.push(items[items.length - 1]);
    items = next;
  }
  return items[0][0];
}

function* partialRow(x, digitCell, carry, out) {
  const [step] = yield* scan(MUL, x, null, carry, out, 0, digitCell);
  expect(step, [HALT], 'partial product');
  return out;
}

/** x + 1 (or x + 2 with op ADD2): only the columns the carry reaches are written. */
export function* increment(sheet, x, name = 'x+1', op = INC) {
  const out = sheet.row(name, x.offset);
  const [step, i] = yield* scan(op, x, null, null, out);
  expect(step, [HALT], 'increment');
  out.share(i + 1, x.ids.subarray(i + 1));
  return out;
}

/** Long division of magnitudes |a| = q|b| + r: bring down a digit of a, subtract |b| until a
 *  subtraction borrows; a DQ step reads that borrow and the digit so far and writes the next
 *  count, or declares the digit final.  The remainder keeps |b|'s width plus one column.  In
 *  the parallel mode all trials of one quotient digit are one batch (trialProbes, speculate). */
export function* divideRows(sheet, a, b) {
  const la = a.width(), lb = b.width();
  const quotient = sheet.row('q');
  const short = la < lb;
  let rem = short ? null : a.ids.slice(la - lb + 1);
  const positions = [];
  if (short) positions.push(0);
  else for (let k = la - lb; k >= 0; k--) positions.push(k);
  for (const k of positions) {
    const cur = short ? a.ids : Int32Array.from([a.ids[k], ...rem.subarray(0, lb)]);
    let r = row(sheet, 'r', { ids: cur, offset: k });
    const trials = quotientDigit(sheet, r, b, quotient, k);
    if (parallelMode()) r = yield* speculate([trialProbes(r, b, [quotient, k])], trials);
    else r = yield* trials;
    rem = r.ids;
  }
  return [quotient, rem.subarray(0, Math.max(lb, 1))];
}

/** The trials of one quotient digit (sequential code); returns the last row that fitted. */
function* quotientDigit(sheet, r, b, quotient, k) {
  for (let trial = 0; trial < 10; trial++) {
    const [t, borrow] = yield* subRows(sheet, r, b, '-b', k);
    const step = yield* ask(viewCode([DQ, borrow, quotient.sym(k), BLANK]), [[t, null], [quotient, k], null]);
    Sheet.write(quotient, k, step);
    if (expect(step, [SUB, HALT], 'quotient digit') === HALT) return r;
    r = t;
  }
  throw new StepperFault('a quotient digit counted past 9');
}

/** Digit-by-digit square root: for each pair of digits subtract 20p+1, 20p+3, ... until a
 *  subtraction borrows; the count is the next root digit (a DQ step, as in division).  In the
 *  parallel mode each root digit is two batches: 2p with the odd number's units digit, then
 *  all trials (speculate). */
export function* sqrtRows(sheet, a) {
  const la = a.width();
  let root = EMPTY;
  let rem = EMPTY;
  const parallel = parallelMode();
  for (let p = Math.floor((la + 1) / 2) - 1; p >= 0; p--) {
    let r = row(sheet, 'r', { ids: Int32Array.from([...a.ids.subarray(2 * p, 2 * p + 2), ...rem]), offset: 2 * p });
    const proot = row(sheet, 'p', { ids: root });
    const first = oddNumber(sheet, proot, p);
    let odd;
    if (parallel) {
      const parts = [selectProbes(ADD, proot, proot, BLANK, 0, proot.width() + 2, FAMILIES[ADD]), new Ask(viewCode([ODD, BLANK, BLANK, BLANK]))];
      odd = yield* speculate(parts, first);
    } else {
      odd = yield* first;
    }
    const digit = sheet.row('digit');
    const trials = rootDigit(sheet, r, odd, digit, p);
    if (parallel) {
      const units = odd.sym(0), tens = odd.sym(1);
      const parts = [
        trialProbes(r, odd, [digit, 0], 2),
        new Presented(ADD2_DIGITS.map((d) => viewCode([ADD2, d, BLANK, BLANK])), null, null,
          () => ADD2_DIGITS.map((d) => (d === units ? [[odd, 0], null, null] : null))),
        new Presented(digitsAnd(tens).map((d) => viewCode([INC, d, BLANK, BLANK])), null, null,
          () => digitsAnd(tens).map((d) => (d === tens ? [[odd, 1], null, null] : null))),
      ];
      r = yield* speculate(parts, trials);
    } else {
      r = yield* trials;
    }
    root = Int32Array.from([digit.ids[0], ...root]);
    rem = r.ids.slice(0, root.length + 1);
  }
  return root;
}

/** 20p+1: the row 2p (an addition p + p) with a units digit 1 from an ODD step. */
function* oddNumber(sheet, proot, p) {
  const twice = yield* addRows(sheet, proot, proot, '2p');
  const odd = sheet.row('20p+1', 2 * p);
  const step = yield* ask(viewCode([ODD, BLANK, BLANK, BLANK]), null);
  expect(step, [HALT], 'odd number');
  Sheet.write(odd, 0, step);
  odd.share(1, twice.ids);
  return odd;
}

/** The trials of one root digit (sequential code); returns the last row that fitted. */
function* rootDigit(sheet, r, odd, digit, p) {
  for (let trial = 0; trial < 10; trial++) {
    const [t, borrow] = yield* subRows(sheet, r, odd, '-odd', 2 * p);
    const step = yield* ask(viewCode([DQ, borrow, digit.sym(0), BLANK]), [[t, null], [digit, 0], null]);
    Sheet.write(digit, 0, step);
    if (expect(step, [SUB, HALT], 'root digit') === HALT) return r;
    r = t;
    odd = yield* increment(sheet, odd, '+2', ADD2);
  }
  throw new StepperFault('a root digit counted past 9');
}

// ---------------------------------------------------------------- signed procedures

function num(r, ids) { return new Num(r.store, r.signId, ids); }

export function* signedAdd(sheet, x, y, subtract = false) {
  const op = subtract ? SGN_SUB : SGN_ADD;
  const a = row(sheet, 'a', { num: x }), b = row(sheet, 'b', { num: y });
  const resultSign = sheet.row('sign');
  let [view, where] = signView(op, a, b);
  let step = yield* ask(view, where);
  if (step[0] !== BLANK) Sheet.write(resultSign, 'sign', step);
  let out;
  if (expect(step, [ADD, CMP], 'sign') === ADD) {
    out = yield* addRows(sheet, a, b, '|a|+|b|');
  } else {
    const flag = yield* compareRows(sheet, a, b);
    [view, where] = signView(op, a, b, flag, 0);
    step = yield* ask(view, where);
    Sheet.write(resultSign, 'sign', step);
    const swap = expect(step, [SUB, SWAP], 'sign') === SWAP;
    const [top, bottom] = swap ? [b, a] : [a, b];
    let borrow;
    [out, borrow] = yield* subRows(sheet, top, bottom, swap ? '|b|-|a|' : '|a|-|b|');
    if (borrow !== BLANK) throw new StepperFault('a subtraction after a comparison borrowed at the top');
  }
  return num(resultSign, canonical(sheet.store, out.ids));
}

export function* signedMul(sheet, x, y) {
  const a = row(sheet, 'a', { num: x }), b = row(sheet, 'b', { num: y });
  const [view, where] = signView(SGN_MUL, a, b);
  const step = yield* ask(view, where);
  expect(step, [MUL], 'sign');
  const total = yield* productRows(sheet, a, b);
  Sheet.write(total, 'sign', step);
  return num(total, canonical(sheet.store, total.ids));
}

/** Floor division, as Python's // and %: q = floor(x / y), r = x - q*y, r has y's sign. */
export function* signedDivmod(sheet, x, y) {
  const a = row(sheet, 'a', { num: x }), b = row(sheet, 'b', { num: y });
  const zf = yield* zeroTest(sheet, b, 'b=0?');
  if (zf.sym(0) === ZERO_FLAG) throw new InputError('division by zero');
  let [q, rem] = yield* divideRows(sheet, a, b);
  let r = row(sheet, 'r', { ids: canonical(sheet.store, rem) });
  const rz = yield* zeroTest(sheet, r, 'r=0?');
  const [view, where] = signView(SGN_DIV, a, b, rz, 0);
  const step = yield* ask(view, where);
  if (expect(step, [HALT, ADJ], 'sign') === ADJ) {
    q = yield* increment(sheet, q, 'q+1');
    let borrow;
    [r, borrow] = yield* subRows(sheet, b, r, '|b|-r');
    if (borrow !== BLANK) throw new StepperFault('the remainder adjustment borrowed at the top');
  }
  Sheet.write(q, 'sign', step);
  Sheet.write(r, 'sign', step, 'flag');
  return [num(q, canonical(sheet.store, q.ids)), num(r, canonical(sheet.store, r.ids))];
}

export function* signedIsqrt(sheet, x) {
  const a = row(sheet, 'a', { num: x });
  if (a.signSym() === MINUS && !(a.ids.length === 1 && a.sym(0) === '0')) {
    throw new InputError('square root of a negative number');
  }
  const [view, where] = signView(ABS, a);
  const step = yield* ask(view, where);
  expect(step, [HALT], 'sign');
  const root = yield* sqrtRows(sheet, a);
  const out = row(sheet, 'root', { ids: root });
  Sheet.write(out, 'sign', step);
  return num(out, canonical(sheet.store, out.ids));
}

export function* signedGcd(sheet, x, y) {
  let a = row(sheet, 'a', { num: x }), b = row(sheet, 'b', { num: y });
  const [view, where] = signView(ABS, a);
  const step = yield* ask(view, where);
  expect(step, [HALT], 'sign');
  const limit = 5 * (a.width() + b.width()) + 10;
  let done = false;
  for (let n = 0; n < limit; n++) {
    const zf = yield* zeroTest(sheet, b, 'b=0?');
    if (zf.sym(0) === ZERO_FLAG) { done = true; break; }
    const [, rem] = yield* divideRows(sheet, a, b);
    [a, b] = [b, row(sheet, 'r', { ids: canonical(sheet.store, rem) })];
  }
  if (!done) throw new StepperFault('gcd did not finish');
  const out = row(sheet, 'gcd', { ids: a.ids });
  Sheet.write(out, 'sign', step);
  return num(out, canonical(sheet.store, out.ids));
}

export function* negate(sheet, x) {
  const a = row(sheet, 'a', { num: x });
  const [view, where] = signView(NEG, a);
  const step = yield* ask(view, where);
  expect(step, [HALT], 'sign');
  const out = row(sheet, '-a', { ids: a.ids });
  Sheet.write(out, 'sign', step);
  return num(out, out.ids);
}
