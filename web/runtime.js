// The fixed runtime (a port of sketchpad/runtime.py): it moves the view, hands batches of
// views to a stepper and writes what the steps say where the procedure says.  It never
// computes a symbol.  Each distinct view of a batch goes through the stepper once and its step
// is handed back wherever the view was presented; nothing is kept between batches.
//
// Procedures are generator functions, as in Python: a procedure yields a list of probes (a
// view and the three sheet positions it was read from) and receives the list of steps for
// them.  `yield*` is Python's `yield from`, `gen.next(steps)` is `gen.send(steps)`, and a
// generator's return value is Python's StopIteration.value, so the port is line for line.

import C from './generated/constants.json' with { type: 'json' };
import { StepperFault } from './errors.js';
import { Sheet } from './sheet.js';
import { BLANK, HALT, MUL, SCAN_OPS, viewKey } from './symbols.js';

// Parallel (carry-select) mode, Python's PARALLEL context variable.  Procedure code runs only
// inside gen.next(), which Run.drive calls synchronously right after setting this, so
// interleaved solves (each awaiting its stepper) cannot see each other's mode.
let PARALLEL = true;
export function parallelMode() { return PARALLEL; }

// The states each scan family can pass between columns: [operation, carry] (sketchpad/runtime.py's
// FAMILIES, from the generated constants).
export const FAMILIES = C.families;
// A partial-product row a x d: the carries that can enter a column (runtime.py's MUL_CARRIES).
export const MUL_CARRIES = C.mul_carries;

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
  /** stepper(views) -> steps or a Promise of them; onBatch(probes, steps, run) may be async.
   *  dedup = false sends every presented view through the stepper (tests, measurement). */
  constructor(stepper, { parallel = true, onBatch = null, worksheet = null, dedup = true } = {}) {
    this.stepper = stepper;
    this.parallel = parallel;
    this.dedup = dedup;
    this.onBatch = onBatch;
    this.worksheet = worksheet;
    // forwardPasses: forward rows the stepper computed; viewsPresented: views presented
    // (repeats in a batch included); fallbacks: speculative blocks that fell back (runtime.py).
    this.counters = { forwardPasses: 0, viewsPresented: 0, batches: 0, stepperMs: 0, views: new Set(), fallbacks: 0 };
    this.lastWhere = null;
  }

  /** Run a procedure generator to completion and return its value. */
  async drive(gen) {
    const c = this.counters;
    let r = this._next(gen, undefined);
    while (!r.done) {
      const probes = r.value;
      const views = probes.map((p) => p.view);
      let asked = views;
      let keys = null;
      let index = null;
      if (this.dedup) {
        keys = views.map(viewKey);
        index = new Map();
        asked = [];
        keys.forEach((k, i) => { if (!index.has(k)) { index.set(k, asked.length); asked.push(views[i]); } });
      }
      const t = performance.now();
      const raw = await this.stepper(asked);
      c.stepperMs += performance.now() - t;
      if (!Array.isArray(raw) || raw.length !== asked.length) {
        throw new StepperFault(`stepper returned ${Array.isArray(raw) ? raw.length : 'no'} steps for ${asked.length} views`);
      }
      const got = raw.map(toStep);
      const steps = asked.length === views.length ? got : keys.map((k) => got[index.get(k)]);
      c.forwardPasses += asked.length;
      c.viewsPresented += views.length;
      c.batches += 1;
      if (keys) for (const k of index.keys()) c.views.add(k);
      else for (const v of views) c.views.add(viewKey(v));
      if (this.onBatch) await this.onBatch(probes, steps, this);
      this.lastWhere = probes.length ? probes[probes.length - 1].where : null;
      r = this._next(gen, steps);
    }
    return r.value;
  }

  _next(gen, steps) {
    const saved = PARALLEL;
    const savedRun = CURRENT;
    PARALLEL = this.parallel;
    CURRENT = this;
    try {
      return gen.next(steps);
    } finally {
      PARALLEL = saved;
      CURRENT = savedRun;
    }
  }
}

// The run whose procedure code is executing (speculate records its fallbacks there).
let CURRENT = null;

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
  if (PARALLEL) {
    const states = family(op, fixed);
    if (states) return yield* scanSelect(op, x, y, carry, out, start, limit, fixed, states);
  }
  let i = start;
  const fixedSym = fixed ? fixed.sym : BLANK;
  for (;;) {
    const b = y ? y.sym(i) : fixedSym;
    const c = carry ? carry.sym(i) : BLANK;
    const where = [[x, i], y ? [y, i] : [fixed, null], carry ? [carry, i] : null];
    const steps = yield [new Probe([op, x.sym(i), b, c], where)];
    const step = steps[0];
    write(out, carry, i, step);
    if (!SCAN_OPS.has(step[2])) return [step, i];
    op = step[2];
    i += 1;
    if (i > limit) throw new StepperFault(`a ${op} scan did not halt after ${limit} columns`);
  }
}

/** The states a carry-select scan of `op` presents each column under, or null (runtime.py's _family). */
function family(op, fixed) {
  if (op === MUL) {
    const d = fixed ? fixed.sym : null;
    return d !== null && Object.hasOwn(MUL_CARRIES, d) ? MUL_CARRIES[d].map((c) => [MUL, c]) : null;
  }
  return Object.hasOwn(FAMILIES, op) ? FAMILIES[op] : null;
}

function write(out, carry, i, step) {
  if (out && step[0] !== BLANK) Sheet.write(out, i, step);
  if (carry && step[1] !== BLANK) Sheet.write(carry, i + 1, step, 'flag');
}

/** The probes of a carry-select scan (runtime.py's select_probes): columns start..limit-1, the
 *  first under its real state [op, firstCarry], every other under every state, in order. */
export function selectProbes(op, x, y, firstCarry, start, limit, states, fixed = null, carry = null) {
  const fixedSym = fixed ? fixed.sym : BLANK;
  const yw = fixed ? [fixed, null] : null;
  const probes = [];
  for (let i = start; i < limit; i++) {
    const where = [[x, i], y ? [y, i] : yw, carry ? [carry, i] : null];
    const a = x.sym(i), b = y ? y.sym(i) : fixedSym;
    if (i === start) { probes.push(new Probe([op, a, b, firstCarry], where)); continue; }
    for (const [stateOp, c] of states) probes.push(new Probe([stateOp, a, b, c], where));
  }
  return probes;
}

/** Carry-select scan: one batch with every column under every state of the family (the first
 *  column only under its real state), then follow the emitted states column by column.  Only
 *  the followed steps are written, so the sheet equals the sequential scan's sheet. */
function* scanSelect(op, x, y, carry, out, start, limit, fixed, states) {
  const firstCarry = carry ? carry.sym(start) : BLANK;
  const probes = selectProbes(op, x, y, firstCarry, start, limit, states, fixed, carry);
  const steps = yield probes;
  const position = new Map(states.map((s, k) => [`${s[0]} ${s[1]}`, k]));
  const n = states.length;
  let step = steps[0];
  for (let i = start; i < limit; i++) {
    if (i > start) {
      const state = [step[2], carry ? step[1] : BLANK];
      const k = position.get(`${state[0]} ${state[1]}`);
      if (k === undefined) throw new StepperFault(`stepper moved a ${op} scan to state ${pyRepr(state)}, outside its family`);
      step = steps[1 + (i - start - 1) * n + k];
    }
    write(out, carry, i, step);
    if (!SCAN_OPS.has(step[2])) return [step, i];
  }
  throw new StepperFault(`a ${op} scan did not halt after ${limit} columns`);
}

/** Present `probes` as one batch, then run the generator `follow` - the sequential code of the
 *  same work - answering each view it asks with the step that view received in that batch
 *  (runtime.py's speculate).  A view the batch did not present makes the rest of `follow` run
 *  as plain sequential batches.  `follow` runs in the sequential mode, and only while it runs. */
export function* speculate(probes, follow) {
  const steps = yield probes;
  const answers = new Map();
  probes.forEach((p, i) => { const k = viewKey(p.view); if (!answers.has(k)) answers.set(k, steps[i]); });
  const resume = (value) => {
    const saved = PARALLEL;
    PARALLEL = false;
    try { return follow.next(value); } finally { PARALLEL = saved; }
  };
  let r = resume(undefined);
  while (!r.done) {
    const got = r.value.map((p) => answers.get(viewKey(p.view)));
    if (got.includes(undefined)) break;
    r = resume(got);
  }
  if (r.done) return r.value;
  if (CURRENT) CURRENT.counters.fallbacks += 1;     // a view outside the batch: sequential from here on
  while (!r.done) r = resume(yield r.value);
  return r.value;
}

export function expect(step, allowed, where) {
  if (!allowed.includes(step[2])) {
    throw new StepperFault(`${where}: stepper chose ${pyRepr(step[2])}, expected one of ${pyRepr(allowed)}`);
  }
  return step[2];
}

export { HALT };
