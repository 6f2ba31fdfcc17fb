// solve(expr, stepper): the JavaScript runtime's entry point, a port of sketchpad/solve.py.
//
//   import { solve } from './solve.js';
//   const r = await solve('12345 * -678', stepper, { onBatch, parallel: true, limits });
//   r.value          // "-8369910" (a decimal string; the runtime never does arithmetic)
//   r.forwardPasses  // forward rows the stepper computed (each distinct view of a batch once)
//   r.viewsPresented // views the runtime presented (a view presented twice in a batch counts twice)
//   r.batches        // stepper calls (sequential depth)
//   r.distinctViews      // distinct views of the whole solve
//   r.sheet          // the Worksheet (blocks of rows of cells, see sheet.js)
//
// The stepper is `async (views) => steps`: views are [op, a, b, c] arrays of symbols and steps
// are [sym, flag, next] arrays (objects {sym, flag, next} are accepted too), in order, one
// per view.  web/onnx_stepper.js's `model.stepper` is one; reference.js builds the reference one.
// onBatch(probes, steps, run) is awaited after every batch: probes[i].view is the view and
// probes[i].where its three sheet positions ([row, column] or null, as Python's Probe.where);
// positions() in this file resolves them to drawable (block, row, column) triples.  Listing
// every presented view costs what the runtime otherwise avoids: for long problems use
// onProgress(run) (after every batch, the counters only) instead.
// Each operation gets its own sheet block, in the order Python makes them, so the batches,
// views, steps, cells and counters equal Python's exactly (web/tests/ checks golden traces).

import C from './generated/constants.json' with { type: 'json' };
import { InputError } from './errors.js';
import { commas, DEFAULT_LIMITS, parse } from './expr.js';
import { Run } from './runtime.js';
import * as P from './procedures.js';
import { Cell, Row, Worksheet } from './sheet.js';

const QUADRATIC = new Set(C.quadratic_ops);     // Python's QUADRATIC_OPS (generated/constants.json)

function check(limits, op, ...nums) {
  for (const n of nums) {
    if (n.ids.length > limits.maxDigits) {
      throw new InputError(`an intermediate number has ${commas(n.ids.length)} digits; the limit is ${commas(limits.maxDigits)}`);
    }
    const most = Math.min(limits.maxQuadraticDigits, new Map(limits.quadraticDigits || []).get(op) ?? Infinity);
    if (QUADRATIC.has(op) && n.ids.length > most) {
      throw new InputError(`an operand of ${op} has ${commas(n.ids.length)} digits; the limit for ${op} is ${commas(most)}`);
    }
  }
}

export async function solve(expr, stepper, { onBatch = null, onProgress = null, parallel = true, limits = {}, dedup = true } = {}) {
  const L = { ...DEFAULT_LIMITS, ...limits };
  const tree = parse(expr, L);
  const sheet = new Worksheet();
  const run = new Run(stepper, { parallel, onBatch, onProgress, worksheet: sheet, dedup });
  const t0 = performance.now();

  async function ev(node) {
    const kind = node[0];
    if (kind === 'num') return P.operand(node[1], node[2], sheet.store);
    if (kind === 'neg') {
      const x = await ev(node[1]);
      return run.drive(P.negate(sheet.new('-a'), x));
    }
    if (kind === 'bin') {
      const op = node[1];
      const x = await ev(node[2]);
      const y = await ev(node[3]);
      check(L, op, x, y);
      const block = sheet.new(`a ${op} b`);
      if (op === '+' || op === '-') return run.drive(P.signedAdd(block, x, y, op === '-'));
      if (op === '*') return run.drive(P.signedMul(block, x, y));
      const [q, r] = await run.drive(P.signedDivmod(block, x, y));
      return op === '//' ? q : r;
    }
    const name = node[1];
    const args = [];
    for (const a of node[2]) args.push(await ev(a));
    check(L, name, ...args);
    if (name === 'sqrt') return run.drive(P.signedIsqrt(sheet.new('sqrt(a)'), args[0]));
    return run.drive(P.signedGcd(sheet.new('gcd(a, b)'), ...args));
  }

  let value;
  try {
    const result = await ev(tree);
    if (result.ids.length > L.maxDigits) {
      throw new InputError(`the result has ${commas(result.ids.length)} digits; the limit is ${commas(L.maxDigits)}`);
    }
    value = result.value();
  } catch (e) {
    // The work done before an error stays visible (the page draws it; tests compare it).
    if (e && typeof e === 'object') {
      Object.defineProperty(e, 'sheet', { value: sheet, enumerable: false });
      Object.defineProperty(e, 'counters', { value: run.counters, enumerable: false });
    }
    throw e;
  }
  const c = run.counters;
  return {
    value, forwardPasses: c.forwardPasses, viewsPresented: c.viewsPresented, batches: c.batches, distinctViews: c.views.size,
    fallbacks: c.fallbacks,
    ms: performance.now() - t0, stepperMs: c.stepperMs, sheet, views: c.views, lastWhere: run.lastWhere,
  };
}

/** Where a probe's cells are drawn: for each of its three positions null or
 *  {block, row, col} (indices into worksheet.sheets[block].rows[row]; col is a column number
 *  or "sign").  Rows that are not drawn (a shifted addend) resolve to the row they show, a
 *  lone cell (a sequential product's multiplier digit) to the row holding it. */
export function positions(worksheet, where, index = rowIndex(worksheet)) {
  if (!where) return [null, null, null];
  return where.map((pos) => {
    if (!pos) return null;
    let [obj, col] = pos;
    if (obj instanceof Cell) {
      const hit = index.cells.get(obj.id);
      return hit ? { ...hit } : null;
    }
    if (!(obj instanceof Row)) return null;
    if (obj.drawnAs && typeof col === 'number') { col -= obj.drawnAs.shift; obj = obj.drawnAs.row; }
    const at = index.rows.get(obj);
    return at ? { block: at[0], row: at[1], col } : null;
  });
}

/** Row -> [block, row] and a lone cell (its index) -> its first drawn position, for positions(). */
export function rowIndex(worksheet) {
  const rows = new Map();
  const cells = new Map();
  worksheet.sheets.forEach((s, b) => s.rows.forEach((r, j) => {
    if (!rows.has(r)) rows.set(r, [b, j]);
    r.ids.forEach((c, i) => { if (c >= 0 && !cells.has(c)) cells.set(c, { block: b, row: j, col: i }); });
  }));
  return { rows, cells };
}
