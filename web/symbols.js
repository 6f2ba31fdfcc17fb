// The finite alphabets of the machine, as in sketchpad/symbols.py.  A view is [op, a, b, c]
// and a step is [sym, flag, next]: plain arrays of short strings, the form the stepper
// interface and the golden traces use.

export const BLANK = '_';
export const DIGITS = '0123456789';
export const PLUS = '+', MINUS = '-';
export const LT = '<', EQ = '=', GT = '>';
export const ZERO_FLAG = 'Z', NONZERO_FLAG = 'N';

export const ADD = 'ADD', SUB = 'SUB';
export const CMP_EQ = 'CMP=', CMP_LT = 'CMP<', CMP_GT = 'CMP>';
export const MUL = 'MUL', ZT = 'ZT', INC = 'INC', ADD2 = 'ADD2', DQ = 'DQ', ODD = 'ODD';
export const NEG = 'NEG', ABS = 'ABS';
export const SGN_ADD = 'SGN+', SGN_SUB = 'SGN-', SGN_MUL = 'SGN*', SGN_DIV = 'SGN/';

export const OPS = [ADD, SUB, CMP_EQ, CMP_LT, CMP_GT, MUL, ZT, INC, ADD2, DQ, ODD, NEG, ABS,
  SGN_ADD, SGN_SUB, SGN_MUL, SGN_DIV];
export const SCAN_OPS = new Set([ADD, SUB, CMP_EQ, CMP_LT, CMP_GT, MUL, ZT, INC, ADD2]);

export const HALT = 'HALT', CMP = 'CMP', SWAP = 'SWAP', ADJ = 'ADJ';

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
