// The sheet: rows of cells, as on paper (a port of sketchpad/sheet.py).
//
// Column 0 is the units column.  A cell remembers where its symbol came from: the problem's
// input, or the step (and which field of it) a stepper emitted.  Sheet.write is the only way
// to put a computed symbol on a sheet and it takes a step, so the runtime cannot write a
// symbol of its own making.  Rows may share cells (a brought-down digit): sharing writes nothing.

import { BLANK, DIGITS, MINUS, PLUS } from './symbols.js';

export const INPUT = 'input';

export class Cell {
  constructor(sym, origin, field = null) {
    this.sym = sym;
    this.origin = origin;   // INPUT, or the step array this symbol came from
    this.field = field;     // 'sym' or 'flag' for step-written cells
  }
}

export class Row {
  constructor(name, cells = [], sign = null, offset = 0) {
    this.name = name;
    this.cells = cells;     // index 0 = units; null = never written
    this.sign = sign;
    this.offset = offset;   // drawn shifted left by this many columns
    this.drawnAs = null;    // for an undrawn shifted copy: {row, shift} of the row it shows
  }

  sym(i) {
    const c = i >= 0 && i < this.cells.length ? this.cells[i] : null;
    return c ? c.sym : BLANK;
  }

  cell(i) { return i >= 0 && i < this.cells.length ? this.cells[i] : null; }

  put(i, cell) {
    while (this.cells.length <= i) this.cells.push(null);
    this.cells[i] = cell;
  }

  width() { return this.cells.length; }

  text() {
    let s = '';
    for (let i = this.cells.length - 1; i >= 0; i--) s += this.sym(i);
    return s;
  }
}

export class Sheet {
  constructor(title) {
    this.title = title;
    this.rows = [];
  }

  row(name, offset = 0) {
    const r = new Row(name, [], null, offset);
    this.rows.push(r);
    return r;
  }

  /** A problem operand (most significant digit first) as input cells. */
  inputRow(name, digits, sign = PLUS) {
    if (!digits || [...digits].some((ch) => !DIGITS.includes(ch))) throw new Error(`not a digit string: ${digits}`);
    const r = this.row(name);
    r.cells = [...digits].reverse().map((ch) => new Cell(ch, INPUT));
    r.sign = new Cell(sign, INPUT);
    return r;
  }

  /** A row laid over existing cells: no symbol is written. */
  sharedRow(name, cells, sign = null, offset = 0) {
    const r = this.row(name, offset);
    r.cells = [...cells];
    r.sign = sign;
    return r;
  }

  /** The only write path for computed symbols.  `i` is a column or "sign". */
  static write(row, i, step, field = 'sym') {
    const cell = new Cell(field === 'sym' ? step[0] : step[1], step, field);
    if (i === 'sign') row.sign = cell;
    else row.put(i, cell);
    return cell;
  }

  /** The same text as Python's Sheet.text(). */
  text() {
    const width = Math.max(1, ...this.rows.map((r) => r.width() + r.offset)) + 1;
    const lines = [`[${this.title}]`];
    for (const r of this.rows) {
      const sign = r.sign && r.sign.sym === MINUS ? MINUS : ' ';
      let body = (sign + r.text()).padStart(width + 1);
      if (r.offset) body = body.slice(r.offset) + ' '.repeat(r.offset);
      lines.push(`${r.name.padStart(8)} ${body}`);
    }
    return lines.join('\n');
  }
}

export class Worksheet {
  constructor() { this.sheets = []; }

  new(title) {
    const s = new Sheet(title);
    this.sheets.push(s);
    return s;
  }

  text() { return this.sheets.map((s) => s.text()).join('\n\n'); }
}
