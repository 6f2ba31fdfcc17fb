// Column scans (a port of sketchpad/scans.py): the runtime's walk along a row, from the units
// column upwards.  scan() presents (op, x_i, y_i, carry_i) column by column and writes each
// step's symbol to out[i] and its carry to carry[i + 1].  Three ways, one sheet: sequential
// (one view per batch); carry-select (one SelectScan part presents every column under every
// state of its family as a pattern, whose distinct views are its kinds of column under every
// state; after the batch each pattern's chain of emitted states is followed once and every
// scan writes its followed steps); and inside a speculative block, answered from the block's
// batch column by column without a batch of its own, until a view is missing there.

import { BLANK_CODE, code4, NEXTS, OP, SCAN_NEXT, STEP_FLAG, STEP_NEXT, STEP_SYM, stateTable, symCode, viewCode, viewOf as viewOfCode } from './codes.js';
import { StepperFault } from './errors.js';
import { Ask, FAMILIES, MODE, MUL_CARRIES, Presented, Probe, pyRepr } from './parts.js';
import { Sheet, StepRow } from './sheet.js';
import { BLANK, MUL, SCAN_OPS } from './symbols.js';

/** The states a carry-select scan of `op` presents each column under, or null. */
function family(op, fixed) {
  if (op === MUL) {
    const d = fixed ? fixed.sym : null;
    return d !== null && Object.hasOwn(MUL_CARRIES, d) ? MUL_CARRIES[d].map((c) => [MUL, c]) : null;
  }
  return Object.hasOwn(FAMILIES, op) ? FAMILIES[op] : null;
}

/** Walk columns upwards from `start`, presenting (op, x_i, y_i, carry_i); see scans.py.
 *  `fixed` replaces y with one cell for every column (a product row's multiplier digit).
 *  Returns [last step, its column] when a step names a control word. */
export function* scan(op, x, y = null, carry = null, out = null, start = 0, fixed = null) {
  const limit = Math.max(x.width(), y ? y.width() : 0) + 2;
  if (MODE.parallel) {
    const states = family(op, fixed);
    if (states) return yield* scanSelect(op, x, y, carry, out, start, limit, fixed, states);
  }
  let i = start;
  const fixedCode = fixed ? fixed.code : BLANK_CODE;
  for (;;) {
    if (MODE.speculation) {      // answered by the speculative batch, as far as it holds the views
      const got = answered(MODE.speculation, op, x, y, carry, out, i, limit, fixedCode);
      if (got.done) return got.done;
      [i, op] = [got.i, got.op];
    }
    const b = y ? y.code(i) : fixedCode;
    const c = carry ? carry.code(i) : BLANK_CODE;
    const where = [[x, i], y ? [y, i] : [fixed, null], carry ? [carry, i] : null];
    const [step] = yield [new Ask(code4(OP.get(op), x.code(i), b, c), where)];
    write(out, carry, i, step);
    if (!SCAN_OPS.has(step[2])) return [step, i];
    op = step[2];
    i += 1;
    if (i > limit) throw new StepperFault(`a ${op} scan did not halt after ${limit} columns`);
  }
}

/** The sequential walk from column i, answered from a speculative batch without a batch of its
 *  own: each column's view from the step before (its carry), looked up; the followed steps are
 *  written at once.  Returns {done: [last step, its column]} or where the walk must go on
 *  column by column ({i, op}: a view the batch does not hold, which makes the block fall back). */
function answered(spec, op, x, y, carry, out, i, limit, fixedCode) {
  const start = i, steps = spec.batch.steps, rows = [];
  let c = carry ? carry.code(i) : BLANK_CODE;
  let done = null, fault = null;
  for (;;) {
    const row = spec.lookup[code4(OP.get(op), x.code(i), y ? y.code(i) : fixedCode, c)];
    if (row < 0) break;
    rows.push(row);
    const code = steps[row];
    if (!SCAN_NEXT[STEP_NEXT[code]]) { done = [new StepRow(spec.batch, row), i]; break; }
    op = NEXTS[STEP_NEXT[code]];
    c = carry ? STEP_FLAG[code] : BLANK_CODE;
    i += 1;
    if (i > limit) { fault = `a ${op} scan did not halt after ${limit} columns`; break; }
  }
  writeFollowed(out, carry, start, spec.batch, rows, rows.length - 1);
  if (fault) throw new StepperFault(fault);
  return done ? { done } : { i, op };
}

function write(out, carry, i, step) {
  if (out && step[0] !== BLANK) Sheet.write(out, i, step);
  if (carry && step[1] !== BLANK) Sheet.write(carry, i + 1, step, 'flag');
}

const KIND_OF = new Int32Array(1 << 16).fill(-1);   // scratch: symbol pair -> kind, reset after use

/** The views of columns start..limit-1 of a row: the first column under (op, first carry),
 *  every other under every state; kind[j-1] is column j's kind (its pair of symbols) and
 *  grid[kind * n + k] its view code under states[k] (scans.py's Pattern). */
class Pattern {
  constructor(op, x, y, fixed, firstCarry, start, limit, states) {
    const w = limit - start, n = states.length;
    this.w = w;
    this.n = n;
    const a = x.syms(start, limit);
    const b = y ? y.syms(start, limit) : new Uint8Array(w).fill(fixed ? fixed.code : BLANK_CODE);
    this.first = code4(OP.get(op), a[0], b[0], firstCarry);
    const kind = new Int32Array(Math.max(w - 1, 0));
    const pairs = [];
    for (let j = 1; j < w; j++) {
      const key = a[j] * 256 + b[j];
      let k = KIND_OF[key];
      if (k < 0) { k = KIND_OF[key] = pairs.length; pairs.push(key); }
      kind[j - 1] = k;
    }
    for (const key of pairs) KIND_OF[key] = -1;
    const so = states.map((s) => OP.get(s[0])), sc = states.map((s) => symCode(s[1]));
    this.grid = new Int32Array(pairs.length * n);
    pairs.forEach((key, k) => { for (let s = 0; s < n; s++) this.grid[k * n + s] = code4(so[s], key >> 8, key & 255, sc[s]); });
    this.kind = kind;
  }

  distinct() {
    const out = new Int32Array(1 + this.grid.length);
    out[0] = this.first;
    out.set(this.grid, 1);
    return out;
  }

  codes() {
    const { n, kind, grid } = this;
    const out = new Int32Array(1 + kind.length * n);
    out[0] = this.first;
    for (let j = 0; j < kind.length; j++) out.set(grid.subarray(kind[j] * n, kind[j] * n + n), 1 + j * n);
    return out;
  }

  get size() { return 1 + (this.w - 1) * this.n; }
}

function gridWhere(x, y, carry, fixed, start, limit, n) {
  const yw = fixed ? [fixed, null] : null;
  const out = [];
  for (let i = start; i < limit; i++) {
    const where = [[x, i], y ? [y, i] : yw, carry ? [carry, i] : null];
    for (let k = i === start ? 1 : n; k > 0; k--) out.push(where);
  }
  return out;
}

/** The views of a carry-select scan as a block (scans.py's select_probes). */
export function selectProbes(op, x, y, firstCarry, start, limit, states, fixed = null, carry = null) {
  const pat = new Pattern(op, x, y, fixed, symCode(firstCarry), start, limit, states);
  return new Presented(pat.distinct(), pat.size, () => pat.codes(), () => gridWhere(x, y, carry, fixed, start, limit, states.length));
}

/** A carry-select scan as a part of a batch; its result is its followed run, written. */
class SelectScan {
  constructor(op, x, y, carry, out, start, limit, fixed, states) {
    Object.assign(this, { op, x, y, carry, out, start, limit, fixed, states });
    this.firstCarry = carry ? carry.code(start) : BLANK_CODE;
    this.size = 1 + (limit - start - 1) * states.length;
    this.shared = null;
  }

  get pattern() {
    if (!this.shared) this.shared = new Pattern(this.op, this.x, this.y, this.fixed, this.firstCarry, this.start, this.limit, this.states);
    return this.shared;
  }

  distinct() { return this.pattern.distinct(); }
  codes() { return this.pattern.codes(); }

  probes() {
    const where = gridWhere(this.x, this.y, this.carry, this.fixed, this.start, this.limit, this.states.length);
    return Array.from(this.codes(), (c, i) => new Probe(viewOfCode(c), where[i]));
  }

  lastWhere() {
    const i = this.limit - 1;
    return [[this.x, i], this.y ? [this.y, i] : this.fixed ? [this.fixed, null] : null, this.carry ? [this.carry, i] : null];
  }

  /** Scans that present the same pattern (the partial products of one digit) share it. */
  static distinctAll(parts) {
    const shared = new Map();
    for (const p of parts) {
      const key = [p.op, p.x.uid, p.y ? p.y.uid : -1, p.fixed ? p.fixed.code : -1, p.firstCarry, p.start, p.limit,
        p.states.map((s) => s.join(' ')).join('|'), p.carry ? 1 : 0].join('/');
      if (!shared.has(key)) shared.set(key, p.pattern);
      p.shared = shared.get(key);
    }
    const all = [...shared.values()].map((pat) => pat.distinct());
    const out = new Int32Array(all.reduce((n, a) => n + a.length, 0));
    let at = 0;
    for (const a of all) { out.set(a, at); at += a.length; }
    return out;
  }

  /** Follow each pattern's chain once, then write every scan's followed steps. */
  static resolve(parts, batch, lookup) {
    const chains = new Map();
    return parts.map((p) => {
      const pat = p.pattern;
      let ch = chains.get(pat);
      if (!ch) {
        ch = follow(pat, stateTable(p.states, p.carry !== null), batch, lookup);
        chains.set(pat, ch);
      }
      writeFollowed(p.out, p.carry, p.start, batch, ch.followed, ch.last);
      return { batch, lastRow: ch.followed[ch.last], w: ch.last + 1, term: ch.term, atEnd: ch.last + 1 === pat.w };
    });
  }
}

/** The chain of one pattern: the class of the followed step (the state it moves the scan to,
 *  or an end) gives the next column's state (chains.py, as one loop). */
function follow(pat, table, batch, lookup) {
  const { n, kind, grid, w } = pat;
  const steps = batch.steps;
  const followed = new Int32Array(w);
  followed[0] = lookup[pat.first];
  let cur = table[steps[followed[0]]];
  let j = 0;
  while (cur >= 0 && j + 1 < w) {
    j += 1;
    const row = lookup[grid[kind[j - 1] * n + cur]];
    followed[j] = row;
    cur = table[steps[row]];
  }
  return { followed, last: j, term: cur };
}

function writeFollowed(out, carry, start, batch, followed, last) {
  for (const [target, table, field, shift] of [[out, STEP_SYM, 'sym', 0], [carry, STEP_FLAG, 'flag', 1]]) {
    if (!target) continue;
    const cols = [], rows = [];
    for (let j = 0; j <= last; j++) {
      if (table[batch.steps[followed[j]]] !== BLANK_CODE) { cols.push(start + j + shift); rows.push(followed[j]); }
    }
    Sheet.writeSteps(target, cols, batch, rows, field);
  }
}

/** Carry-select scan: one batch with every column under every state of the family (the first
 *  column only under its real state), then follow the emitted states.  Only the followed steps
 *  are written, so the sheet equals the sequential scan's sheet. */
function* scanSelect(op, x, y, carry, out, start, limit, fixed, states) {
  const [run] = yield [new SelectScan(op, x, y, carry, out, start, limit, fixed, states)];
  const step = new StepRow(run.batch, run.lastRow);
  if (run.term === -1) return [step, start + run.w - 1];
  if (run.term === -2 && !run.atEnd) {
    const state = [step[2], carry ? step[1] : BLANK];
    throw new StepperFault(`stepper moved a ${op} scan to state ${pyRepr(state)}, outside its family`);
  }
  throw new StepperFault(`a ${op} scan did not halt after ${limit} columns`);
}

/** The view of a sign decision: (op, sign of a, sign of b, flag cell), and where it was read. */
export function signView(op, a, b = null, c = null, ci = 0) {
  const view = [op, a.signSym(), b ? b.signSym() : BLANK, c ? c.sym(ci) : BLANK];
  return [viewCode(view), [[a, 'sign'], b ? [b, 'sign'] : null, c ? [c, ci] : null]];
}

