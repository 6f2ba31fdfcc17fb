// The sheet: rows of cells, as on paper, held as typed arrays (a port of sketchpad/sheet.py).
//
// Column 0 is the units column.  The cells of one worksheet live in one Store: a cell is an
// index into its arrays (the symbol, as a code of codes.js, and where it came from), and a row
// is an Int32Array of cell indices (-1: never written).  Rows share cells by holding the same
// index: sharing moves no symbol and writes nothing.  A cell comes to exist in two ways only,
// both here: Store.inputs (a problem's own number) and the write path (Sheet.write,
// Sheet.writeMasked), which takes the steps of one batch as the stepper returned them
// (BatchSteps) and the rows of that output it wants, and gathers the symbols itself.

import { BLANK_CODE, NSYM, STEP_FLAG, STEP_SYM, STEPS, SYMBOLS, symCode } from './codes.js';
import { DIGITS, MINUS, PLUS } from './symbols.js';

export const INPUT = 'input';
const FIELDS = { sym: 1, flag: 2 };
const EMPTY = new Int32Array(0);

/** The steps one stepper call returned, as step codes (row r of its output is steps[r]).
 *  Made by the runtime's driver only, once per batch. */
export class BatchSteps {
  constructor(index, steps) { this.index = index; this.steps = steps; }
}

/** One row of one batch's stepper output: the step a view received, and where it is. */
export class StepRow {
  constructor(batch, row) { this.batch = batch; this.row = row; this.code = batch.steps[row]; }
  get step() { return STEPS[this.code]; }
  get 0() { return STEPS[this.code][0]; }
  get 1() { return STEPS[this.code][1]; }
  get 2() { return STEPS[this.code][2]; }
}

/** The cells of one worksheet (append-only typed arrays); sym[capacity - 1] stays blank. */
export class Store {
  constructor(capacity = 256) {
    this.sym = new Uint8Array(capacity).fill(BLANK_CODE);
    this.src = new Int32Array(capacity);   // stepper output row, or the input digit's position
    this.kind = new Uint8Array(capacity);  // 0 input, 1 step symbol, 2 step flag (what the page draws)
    this.n = 0;
    this.runs = [];                         // [first, batch (-1 input), field (0 input, 1 sym, 2 flag), literal]
    this.literals = [];
  }

  alloc(k) {
    const first = this.n;
    const need = first + k + 1;
    if (need > this.sym.length) {
      const cap = Math.max(need, 2 * this.sym.length);
      const sym = new Uint8Array(cap).fill(BLANK_CODE);
      sym.set(this.sym.subarray(0, first));
      const src = new Int32Array(cap);
      src.set(this.src.subarray(0, first));
      const kind = new Uint8Array(cap);
      kind.set(this.kind.subarray(0, first));
      this.sym = sym;
      this.src = src;
      this.kind = kind;
    }
    this.n = first + k;
    return first;
  }

  /** Cells for one problem number's symbols (sign, then digits units first). */
  inputs(symbols) {
    const first = this.alloc(symbols.length);
    symbols.forEach((s, k) => { this.sym[first + k] = symCode(s); this.src[first + k] = k; });
    this.runs.push([first, -1, 0, this.literals.length]);
    this.literals.push(symbols.join(''));
    const ids = new Int32Array(symbols.length);
    for (let k = 0; k < ids.length; k++) ids[k] = first + k;
    return ids;
  }

  written1(sym, row, batch, field) {
    const first = this.alloc(1);
    this.sym[first] = sym;
    this.src[first] = row;
    this.kind[first] = field;
    this.runs.push([first, batch, field, -1]);
    return first;
  }

  written(syms, rows, batch, field) {
    const first = this.alloc(syms.length);
    this.sym.set(syms, first);
    this.src.set(rows, first);
    this.kind.fill(field, first, first + syms.length);
    this.runs.push([first, batch, field, -1]);
    return first;
  }

  /** 0 input, 1 step symbol, 2 step flag (and batch, row) of a cell. */
  origin(id) {
    let lo = 0, hi = this.runs.length - 1;
    while (lo < hi) {                          // the last run starting at or before id
      const mid = (lo + hi + 1) >> 1;
      if (this.runs[mid][0] <= id) lo = mid; else hi = mid - 1;
    }
    const [, batch, kind, literal] = this.runs[lo];
    return { kind, batch, row: this.src[id], literal };
  }
}

/** A cell seen from outside: its symbol and origin ('input', or {batch, row}) and field. */
export class Cell {
  constructor(store, id) { this.store = store; this.id = id; }
  get sym() { return SYMBOLS[this.store.sym[this.id]]; }
  get code() { return this.store.sym[this.id]; }
  get origin() {
    const o = this.store.origin(this.id);
    return o.kind === 0 ? INPUT : { batch: o.batch, row: o.row };
  }
  get field() { return [null, 'sym', 'flag'][this.store.origin(this.id).kind]; }
}

let ROWS = 0;

export class Row {
  constructor(name, store, ids = EMPTY, signId = -1, offset = 0) {
    this.uid = ++ROWS;       // names the row in keys (scans that read the same rows share a pattern)
    this.name = name;
    this.store = store;
    this.ids = ids;          // cell indices, index 0 = units; -1 = never written
    this.signId = signId;
    this.offset = offset;    // drawn shifted left by this many columns
    this.drawnAs = null;     // for an undrawn shifted copy: {row, shift} of the row it shows
    this.buf = null;         // the buffer `ids` views, when it has room to grow (see widen)
    this.dirty = true;       // changed since the page's copy was last brought up to date (solve-worker.js)
  }

  /** `source` moved up by `shift` columns (an addend of a product's sum); not drawn. */
  static shifted(source, shift) {
    const ids = new Int32Array(shift + source.ids.length).fill(-1);
    ids.set(source.ids, shift);
    const r = new Row(source.name, source.store, ids);
    r.drawnAs = { row: source, shift };
    return r;
  }

  width() { return this.ids.length; }

  /** Symbol codes of columns lo..hi-1 (blank where nothing is written). */
  syms(lo, hi) {
    const out = new Uint8Array(Math.max(0, hi - lo)).fill(BLANK_CODE);
    const a = Math.max(lo, 0), b = Math.min(hi, this.ids.length), sym = this.store.sym, ids = this.ids;
    for (let i = a; i < b; i++) { const c = ids[i]; if (c >= 0) out[i - lo] = sym[c]; }
    return out;
  }

  code(i) {
    if (i < 0 || i >= this.ids.length) return BLANK_CODE;
    const c = this.ids[i];
    return c < 0 ? BLANK_CODE : this.store.sym[c];
  }

  sym(i) { return SYMBOLS[this.code(i)]; }

  cell(i) {
    const c = i >= 0 && i < this.ids.length ? this.ids[i] : -1;
    return c < 0 ? null : new Cell(this.store, c);
  }

  get cells() { return Array.from(this.ids, (c) => (c < 0 ? null : new Cell(this.store, c))); }

  get sign() { return this.signId < 0 ? null : new Cell(this.store, this.signId); }

  signSym(dflt = '_') { return this.signId < 0 ? dflt : SYMBOLS[this.store.sym[this.signId]]; }

  /** Show an existing cell in column i (sharing: nothing is written). */
  put(i, cid) {
    if (i >= this.ids.length) this.widen(i + 1);
    this.ids[i] = cid;
    this.dirty = true;
  }

  /** Show existing cells in columns lo, lo+1, ... (sharing: nothing is written). */
  share(lo, ids) {
    if (!ids.length) return;
    if (lo + ids.length > this.ids.length) this.widen(lo + ids.length);
    this.ids.set(ids, lo);
    this.dirty = true;
  }

  /** Make the row w columns wide (new columns never written); the buffer grows by doubling,
   *  so a row written column by column costs no more than one written at once. */
  widen(w) {
    const buf = this.buf;
    if (!buf || buf.buffer !== this.ids.buffer || buf.length < w) {
      this.buf = new Int32Array(Math.max(w, 2 * this.ids.length, 8)).fill(-1);
      this.buf.set(this.ids);
    }
    this.ids = this.buf.subarray(0, w);
  }

  text() {
    let s = '';
    for (let i = this.ids.length - 1; i >= 0; i--) s += this.sym(i);
    return s;
  }

  /** i(nput), s(tep symbol), f(step flag), . (never written) per column, highest first. */
  origins() {
    let s = '';
    for (let i = this.ids.length - 1; i >= 0; i--) s += this.ids[i] < 0 ? '.' : 'isf'[this.store.origin(this.ids[i]).kind];
    return s;
  }
}

/** [sign cell, digit cells units first] of a problem number, in `store`. */
export function numberCells(store, digits, negative = false) {
  digits = digits.replace(/^0+/, '') || '0';
  return store.inputs([negative ? MINUS : PLUS, ...[...digits].reverse()]);
}

export class Sheet {
  constructor(title, store = null) {
    this.title = title;
    this.store = store || new Store();
    this.rows = [];
  }

  row(name, offset = 0) {
    const r = new Row(name, this.store, EMPTY, -1, offset);
    this.rows.push(r);
    return r;
  }

  /** A problem operand (most significant digit first) as input cells. */
  inputRow(name, digits, sign = PLUS) {
    if (!digits || [...digits].some((ch) => !DIGITS.includes(ch))) throw new Error(`not a digit string: ${digits}`);
    const ids = this.store.inputs([sign, ...[...digits].reverse()]);
    const r = this.row(name);
    r.ids = ids.slice(1);
    r.signId = ids[0];
    return r;
  }

  /** A row laid over existing cells (indices of this sheet's store): no symbol is written. */
  sharedRow(name, ids, signId = -1, offset = 0) {
    const r = this.row(name, offset);
    r.ids = Int32Array.from(ids);
    r.signId = signId;
    return r;
  }

  /** The write path for one computed symbol: field `field` of the step in row `step.row` of
   *  its batch's stepper output.  `i` is a column or "sign". */
  static write(row, i, step, field = 'sym') {
    const code = step.batch.steps[step.row];
    const sym = (field === 'sym' ? STEP_SYM : STEP_FLAG)[code];
    const cid = row.store.written1(sym, step.row, step.batch.index, FIELDS[field]);
    if (i === 'sign') row.signId = cid;
    else row.put(i, cid);
    row.dirty = true;
    return cid;
  }

  /** The write path for many: column cols[k] of `row` gets field `field` of row rows[k] of
   *  the batch's stepper output. */
  static writeSteps(row, cols, batch, rows, field = 'sym') {
    if (!cols.length) return;
    const table = field === 'sym' ? STEP_SYM : STEP_FLAG;
    const syms = new Uint8Array(rows.length);
    for (let k = 0; k < rows.length; k++) syms[k] = table[batch.steps[rows[k]]];
    const first = row.store.written(syms, rows, batch.index, FIELDS[field]);
    const top = cols[cols.length - 1] + 1;
    if (top > row.ids.length) row.widen(top);
    for (let k = 0; k < cols.length; k++) row.ids[cols[k]] = first + k;
    row.dirty = true;
  }

  /** The same text as Python's Sheet.text(). */
  text() {
    const width = Math.max(1, ...this.rows.map((r) => r.width() + r.offset)) + 1;
    const lines = [`[${this.title}]`];
    for (const r of this.rows) {
      const sign = r.signSym() === MINUS ? MINUS : ' ';
      let body = (sign + r.text()).padStart(width + 1);
      if (r.offset) body = body.slice(r.offset) + ' '.repeat(r.offset);
      lines.push(`${r.name.padStart(8)} ${body}`);
    }
    return lines.join('\n');
  }
}

export class Worksheet {
  constructor() { this.store = new Store(); this.sheets = []; }

  new(title) {
    const s = new Sheet(title, this.store);
    this.sheets.push(s);
    return s;
  }

  text() { return this.sheets.map((s) => s.text()).join('\n\n'); }
}

export { NSYM };
