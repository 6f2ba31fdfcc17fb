// The fixed runtime (a port of sketchpad/runtime.py): it moves the view, hands batches of
// views to a stepper and writes what the steps say where the procedure says.  It never
// computes a symbol.
//
// Procedures are generator functions, as in Python: a procedure yields a list of probes (a
// view and the three sheet positions it was read from) and receives the list of steps for
// them.  `yield*` is Python's `yield from`, `gen.next(steps)` is `gen.send(steps)`, and a
// generator's return value is Python's StopIteration.value, so the port is line for line.

import C from './generated/constants.json' with { type: 'json' };
import { StepperFault } from './errors.js';
import { Sheet } from './sheet.js';
import { ADD, ADD2, BLANK, CMP_EQ, CMP_GT, CMP_LT, HALT, INC, SCAN_OPS, SUB, ZT, viewKey } from './symbols.js';

// Parallel (carry-select) mode, Python's PARALLEL context variable.  Procedure code runs only
// inside gen.next(), which Run.drive calls synchronously right after setting this, so
// interleaved solves (each awaiting its stepper) cannot see each other's mode.
let PARALLEL = true;
export function parallelMode() { return PARALLEL; }

// The states each scan family can pass between columns: [operation, carry] (sketchpad/runtime.py's
// FAMILIES, from the generated constants).
export const FAMILIES = C.families;

/** A view plus where its cells were read: `where` is null or three entries, each null or
 *  [row, column] (column: an int, "sign" or null), exactly as Python's Probe.where. */
export class Probe {
  constructor(view, where) { this.view = view; this.where = where; }
}

/** Python's repr of a string or a tuple of strings, for messages that match the Python ones. */
export function pyRepr(x) {
  if (Array.isArray(x)) return `(${x.map(pyRepr).join(', ')}${x.length === 1 ? ',' : ''})`;
  return `'${x}'`;
}

function toStep(s) {
  if (Array.isArray(s) && s.length === 3) return s;
  if (s && typeof s === 'object' && 'sym' in s) return [s.sym, s.flag, s.next];
  throw new StepperFault(`stepper returned ${JSON.stringify(s)}, not a step [sym, flag, next]`);
}

export class Run {
  /** stepper(views) -> steps or a Promise of them; onBatch(probes, steps, run) may be async. */
  constructor(stepper, { parallel = true, onBatch = null, worksheet = null } = {}) {
    this.stepper = stepper;
    this.parallel = parallel;
    this.onBatch = onBatch;
    this.worksheet = worksheet;
    this.counters = { forwardPasses: 0, batches: 0, stepperMs: 0, views: new Set() };
    this.lastWhere = null;
  }

  /** Run a procedure generator to completion and return its value. */
  async drive(gen) {
    const c = this.counters;
    let r = this._next(gen, undefined);
    while (!r.done) {
      const probes = r.value;
      const views = probes.map((p) => p.view);
      const t = performance.now();
      const raw = await this.stepper(views);
      c.stepperMs += performance.now() - t;
      if (!Array.isArray(raw) || raw.length !== views.length) {
        throw new StepperFault(`stepper returned ${Array.isArray(raw) ? raw.length : 'no'} steps for ${views.length} views`);
      }
      const steps = raw.map(toStep);
      c.forwardPasses += views.length;
      c.batches += 1;
      for (const v of views) c.views.add(viewKey(v));
      if (this.onBatch) await this.onBatch(probes, steps, this);
      this.lastWhere = probes.length ? probes[probes.length - 1].where : null;
      r = this._next(gen, steps);
    }
    return r.value;
  }

  _next(gen, steps) {
    const saved = PARALLEL;
    PARALLEL = this.parallel;
    try {
      return gen.next(steps);
    } finally {
      PARALLEL = saved;
    }
  }
}

/** Run procedure generators in lock step; each round's requests form one batch. */
export function* together(gens) {
  const results = new Array(gens.length).fill(null);
  let pending = new Map();
  gens.forEach((g, k) => {
    const r = g.next();
    if (r.done) results[k] = r.value;
    else pending.set(k, r.value);
  });
  while (pending.size) {
    const keys = [...pending.keys()];
    const batch = keys.flatMap((k) => pending.get(k));
    const steps = yield batch;
    let at = 0;
    const next = new Map();
    for (const k of keys) {
      const n = pending.get(k).length;
      const r = gens[k].next(steps.slice(at, at + n));
      if (r.done) results[k] = r.value;
      else next.set(k, r.value);
      at += n;
    }
    pending = next;
  }
  return results;
}

/** Yield one view; return its step. */
export function* ask(view, where = null) {
  const steps = yield [new Probe(view, where)];
  return steps[0];
}

/** Walk columns upwards from `start`, presenting (op, x_i, y_i, carry_i); see runtime.py.
 *  `fixed` replaces y with one cell for every column (a product row's multiplier digit).
 *  Returns [last step, its column] when a step names a control word. */
export function* scan(op, x, y = null, carry = null, out = null, start = 0, fixed = null) {
  const limit = Math.max(x.width(), y ? y.width() : 0) + 2;
  if (Object.hasOwn(FAMILIES, op) && PARALLEL) return yield* scanSelect(op, x, y, carry, out, start, limit);
  let i = start;
  const fixedSym = fixed ? fixed.sym : BLANK;
  for (;;) {
    const b = y ? y.sym(i) : fixedSym;
    const c = carry ? carry.sym(i) : BLANK;
    const where = [[x, i], y ? [y, i] : [fixed, null], carry ? [carry, i] : null];
    const steps = yield [new Probe([op, x.sym(i), b, c], where)];
    const step = steps[0];
    if (out && step[0] !== BLANK) Sheet.write(out, i, step);
    if (carry && step[1] !== BLANK) Sheet.write(carry, i + 1, step, 'flag');
    if (!SCAN_OPS.has(step[2])) return [step, i];
    op = step[2];
    i += 1;
    if (i > limit) throw new StepperFault(`a ${op} scan did not halt after ${limit} columns`);
  }
}

/** Carry-select scan: one batch with every column under every state of the family (the first
 *  column only under its real state), then follow the emitted states column by column.  Only
 *  the followed steps are written, so the sheet equals the sequential scan's sheet. */
function* scanSelect(op, x, y, carry, out, start, limit) {
  const first = [op, carry ? carry.sym(start) : BLANK];
  const probes = [];
  const index = new Map();
  for (let i = start; i < limit; i++) {
    const where = [[x, i], y ? [y, i] : null, carry ? [carry, i] : null];
    for (const state of i === start ? [first] : FAMILIES[op]) {
      index.set(`${i} ${state[0]} ${state[1]}`, probes.length);
      probes.push(new Probe([state[0], x.sym(i), y ? y.sym(i) : BLANK, state[1]], where));
    }
  }
  const steps = yield probes;
  let state = first;
  for (let i = start; i < limit; i++) {
    const k = index.get(`${i} ${state[0]} ${state[1]}`);
    if (k === undefined) throw new StepperFault(`stepper moved a ${op} scan to state ${pyRepr(state)}, outside its family`);
    const step = steps[k];
    if (out && step[0] !== BLANK) Sheet.write(out, i, step);
    if (carry && step[1] !== BLANK) Sheet.write(carry, i + 1, step, 'flag');
    if (!SCAN_OPS.has(step[2])) return [step, i];
    state = [step[2], carry ? step[1] : BLANK];
  }
  throw new StepperFault(`a ${op} scan did not halt after ${limit} columns`);
}

export function expect(step, allowed, where) {
  if (!allowed.includes(step[2])) {
    throw new StepperFault(`${where}: stepper chose ${pyRepr(step[2])}, expected one of ${pyRepr(allowed)}`);
  }
  return step[2];
}

export { HALT };
