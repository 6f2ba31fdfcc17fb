// The finite alphabets of the machine, as in sketchpad/symbols.py, read from the JSON that
// Python generates (generated/constants.json: python -m derive js).  A view is
// [op, a, b, c] and a step is [sym, flag, next]: plain arrays of short strings, the form the
// stepper interface and the golden traces use.

import C from './generated/constants.json' with { type: 'json' };

export const { BLANK, DIGITS, PLUS, MINUS, LT, EQ, GT, ZERO_FLAG, NONZERO_FLAG } = C.symbols;
export const CELL_SYMBOLS = C.cell_symbols;
export const { ADD, SUB, CMP_EQ, CMP_LT, CMP_GT, MUL, ZT, INC, ADD2, DQ, ODD, NEG, ABS,
  SGN_ADD, SGN_SUB, SGN_MUL, SGN_DIV } = C.ops;
export const OPS = C.op_order;
export const SCAN_OPS = new Set(C.scan_ops);
export const { HALT, CMP, SWAP, ADJ } = C.control;

/** "ADD 12_": the same key as Python's View.key(). */
export function viewKey(v) { return `${v[0]} ${v[1]}${v[2]}${v[3]}`; }

/** "3_ ADD": the same key as Python's Step.key(). */
export function stepKey(s) { return `${s[0]}${s[1]} ${s[2]}`; }

export function viewFromKey(key) {
  const [op, cells] = key.split(' ');
  return [op, cells[0], cells[1], cells[2]];
}

export function stepFromKey(key) {
  const [cells, next] = key.split(' ');
  return [cells[0], cells[1], next];
}
