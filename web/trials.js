// What one quotient or root digit's speculative batch presents (a port of sketchpad/trials.py):
// every view any trial subtraction's columns could see (the digits of a trial's difference are
// not known before the batch), and the DQ views that count them, as a block whose distinct
// views are found per kind of column.

import C from './generated/constants.json' with { type: 'json' };
import { code4, OP, symCode, viewCode } from './codes.js';
import { Presented } from './parts.js';
import { BLANK, DIGITS, DQ, SUB } from './symbols.js';

const BORROWS = [BLANK, '1'];
export const DQ_STATES = C.dq_states;
export const ADD2_DIGITS = C.add2_digits;
const TOP = BORROWS.map((c) => viewCode([SUB, BLANK, BLANK, c]));
const DQS = DQ_STATES.map(([bo, cnt]) => viewCode([DQ, bo, cnt, BLANK]));

export function digitsAnd(sym) { return DIGITS.includes(sym) && sym.length === 1 ? [...DIGITS] : [...DIGITS, sym]; }

/** The views of column i of a trial block: every y (in order), every borrow (none in column
 *  0), every digit x and then r's own symbol when it is not a digit. */
function column(out, xi, ys, i) {
  const sub = OP.get(SUB);
  for (const yy of ys) {
    for (const c of i === 0 ? [BLANK] : BORROWS) {
      const cc = symCode(c);
      for (let x = 0; x < 10; x++) out.push(code4(sub, x, yy, cc));
      if (xi > 9) out.push(code4(sub, xi, yy, cc));
    }
  }
}

/** Every view the trial subtractions of one digit could present, and the DQ views
 *  (trials.py's trial_probes; the same order: column, then y, then borrow, then x).  A
 *  probe's position names only the cells that hold its symbols now. */
export function trialProbes(r, y, [countRow, countCol], freeY = 0) {
  const W = Math.max(r.width(), y.width());
  const xs = r.syms(0, W), ys = y.syms(0, W);
  const everyY = (i) => [...digitsAnd(y.sym(i))].map(symCode);
  const distinct = [];
  let size = TOP.length + DQS.length;
  const kinds = new Set();
  for (let i = 0; i < W; i++) {
    const free = i < freeY;
    const key = `${ys[i]} ${xs[i] > 9 ? xs[i] : -1} ${i === 0 ? 0 : 1}`;
    size += (free ? everyY(i).length : 1) * (i === 0 ? 1 : 2) * (xs[i] > 9 ? 11 : 10);
    if (free) column(distinct, xs[i], everyY(i), i);
    else if (!kinds.has(key)) { kinds.add(key); column(distinct, xs[i], [ys[i]], i); }
  }
  distinct.push(...TOP, ...DQS);
  const codes = () => {
    const out = [];
    for (let i = 0; i < W; i++) column(out, xs[i], i < freeY ? everyY(i) : [ys[i]], i);
    return Int32Array.from([...out, ...TOP, ...DQS]);
  };
  const where = () => {
    const out = [];
    for (let i = 0; i < W; i++) {
      const yi = y.sym(i), xi = r.sym(i);
      for (const yy of (i < freeY ? digitsAnd(yi) : [yi])) {
        const [wX, w] = yy === yi ? [[[r, i], [y, i], null], [null, [y, i], null]] : [[[r, i], null, null], null];
        for (let c = i === 0 ? 1 : 2; c > 0; c--) {
          for (const x of DIGITS) out.push(x === xi ? wX : w);
          if (xs[i] > 9) out.push(wX);
        }
      }
    }
    for (let c = 0; c < 2; c++) out.push([[r, W], [y, W], null]);
    for (const [, cnt] of DQ_STATES) out.push(cnt === countRow.sym(countCol) ? [null, [countRow, countCol], null] : null);
    return out;
  };
  return new Presented(distinct, size, codes, where);
}
