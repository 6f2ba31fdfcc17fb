// The fixed runtime (a port of sketchpad/runtime.py): it moves the view, hands batches of
// views to a stepper and writes what the steps say where the procedure says.  It never
// computes a symbol.
//
// Procedures are generator functions, as in Python: a procedure yields a list of parts
// (parts.js, scans.js) and receives one result per part.  `yield*` is Python's `yield from`,
// `gen.next(x)` is `gen.send(x)`, and a generator's return value is StopIteration.value, so
// the port is line for line.  Each distinct view of a batch goes through the stepper once (its
// code once in an Int32Array), and its step reaches every place it was presented through one
// table, view code -> stepper output row; presented views are counted, not listed.  Nothing is
// kept between batches.

import { N_VIEWS, STEPS, stepCode, viewCode, viewOf } from './codes.js';
import { StepperFault } from './errors.js';
import { Ask, FAMILIES, MODE, MUL_CARRIES, Presented, Probe, pyRepr } from './parts.js';
import { scan, selectProbes, signView } from './scans.js';
import { BatchSteps, StepRow } from './sheet.js';
import { HALT } from './symbols.js';

export { Ask, FAMILIES, MUL_CARRIES, Presented, Probe, pyRepr, scan, selectProbes, signView };
export function parallelMode() { return MODE.parallel; }

export class Run {
  /** stepper(views) -> steps or a Promise of them (or stepper.stepCodes(Int32Array of view
   *  codes) -> step codes); onBatch(probes, steps, run) may be async.  dedup = false sends
   *  every presented view through the stepper (tests, measurement). */
  constructor(stepper, { parallel = true, onBatch = null, worksheet = null, dedup = true, onProgress = null } = {}) {
    this.stepper = stepper;
    this.parallel = parallel;
    this.dedup = dedup;
    this.onBatch = onBatch;
    this.onProgress = onProgress;    // onProgress(run) after every batch, cheap (no views listed)
    this.worksheet = worksheet;
    // forwardPasses: forward rows the stepper computed; viewsPresented: views presented
    // (repeats in a batch included); views: codes of the distinct views; fallbacks:
    // speculative blocks that fell back (runtime.py).
    this.counters = { forwardPasses: 0, viewsPresented: 0, batches: 0, stepperMs: 0, views: new Set(), fallbacks: 0 };
    this.lastPart = null;
    this.lookup = null;
  }

  get lastWhere() { return this.lastPart ? this.lastPart.lastWhere() : null; }

  /** Run a procedure generator to completion and return its value. */
  async drive(gen) {
    let r = this.next(gen, undefined);
    while (!r.done) r = this.next(gen, await this.batch(r.value));
    return r.value;
  }

  next(gen, results) {
    const saved = { ...MODE };
    MODE.parallel = this.parallel;
    MODE.speculation = null;
    MODE.run = this;
    try {
      return gen.next(results);
    } finally {
      Object.assign(MODE, saved);
    }
  }

  async steps(codes) {
    const c = this.counters;
    const n = codes.length;
    if (typeof this.stepper.stepCodes === 'function') {
      const t = performance.now();
      const out = await this.stepper.stepCodes(codes);
      c.stepperMs += performance.now() - t;
      if (!out || out.length !== n) throw new StepperFault(`stepper returned ${out ? out.length : 'no'} steps for ${n} views`);
      for (const s of out) if (!(s >= 0 && s < STEPS.length)) throw new StepperFault('stepper returned a step code outside the alphabet');
      return Int32Array.from(out);
    }
    const views = Array.from(codes, viewOf);
    const t = performance.now();
    const raw = await this.stepper(views);
    c.stepperMs += performance.now() - t;
    if (!Array.isArray(raw) || raw.length !== n) {
      throw new StepperFault(`stepper returned ${Array.isArray(raw) ? raw.length : 'no'} steps for ${n} views`);
    }
    return Int32Array.from(raw, stepCode);
  }

  async batch(parts) {
    const c = this.counters;
    const kinds = new Map();
    parts.forEach((p, k) => { if (!kinds.has(p.constructor)) kinds.set(p.constructor, []); kinds.get(p.constructor).push(k); });
    let asked;
    if (this.dedup) {      // the distinct views of the batch, from each kind of part's distinct views
      const seen = new Set();
      for (const [kind, ks] of kinds) for (const code of kind.distinctAll(ks.map((k) => parts[k]))) seen.add(code);
      asked = Int32Array.from(seen).sort();
    } else {               // every presented view its own forward row
      asked = concat(parts.map((p) => p.codes()));
    }
    const batch = new BatchSteps(c.batches, await this.steps(asked));
    c.forwardPasses += asked.length;
    c.viewsPresented += parts.reduce((n, p) => n + p.size, 0);
    c.batches += 1;
    for (const code of asked) c.views.add(code);
    if (!this.lookup) this.lookup = new Int32Array(N_VIEWS).fill(-1);      // view code -> stepper output row
    const lookup = this.lookup;
    asked.forEach((code, k) => { lookup[code] = k; });
    const results = new Array(parts.length);
    let record = null;
    try {
      for (const [kind, ks] of kinds) {      // parts of one kind answered together
        kind.resolve(ks.map((k) => parts[k]), batch, lookup).forEach((r, i) => { results[ks[i]] = r; });
      }
      if (this.onBatch) {
        const probes = parts.flatMap((p) => p.probes());
        const steps = parts.flatMap((p) => Array.from(p.codes(), (code) => STEPS[batch.steps[lookup[code]]]));
        record = [probes, steps];
      }
    } finally {
      for (const code of asked) lookup[code] = -1;                         // nothing is kept for the next batch
    }
    this.lastPart = parts[parts.length - 1];
    if (record) await this.onBatch(record[0], record[1], this);
    if (this.onProgress) await this.onProgress(this);
    return results;
  }
}

function concat(arrays) {
  const out = new Int32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) { out.set(a, at); at += a.length; }
  return out;
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
    const answers = yield batch;
    let at = 0;
    const next = new Map();
    for (const k of keys) {
      const n = pending.get(k).length;
      const r = gens[k].next(answers.slice(at, at + n));
      if (r.done) results[k] = r.value;
      else next.set(k, r.value);
      at += n;
    }
    pending = next;
  }
  return results;
}

/** Yield one view ([op, a, b, c] or its code); return the StepRow it received. */
export function* ask(view, where = null) {
  const answers = yield [new Ask(typeof view === 'number' ? view : viewCode(view), where)];
  return answers[0];
}

const TABLES = [];     // view code -> row tables no speculative block is using (all -1)

/** A speculative batch's answers: the stepper output row of every view it presented. */
class Answers {
  constructor(parts, results) {
    this.lookup = TABLES.pop() || new Int32Array(N_VIEWS).fill(-1);
    this.batch = results[0].batch;
    this.codes = [];
    parts.forEach((p, i) => {
      const r = results[i];
      if (r instanceof StepRow) { this.lookup[p.code] = r.row; this.codes.push(p.code); }
      else r.codes.forEach((code, k) => { this.lookup[code] = r.rows[k]; this.codes.push(code); });
    });
  }

  /** Give the table back, all -1 again (nothing is kept for another block). */
  release() {
    for (const code of this.codes) this.lookup[code] = -1;
    TABLES.push(this.lookup);
    this.lookup = null;
  }

  /** StepRows for a request of single views, or null if the batch lacks one of them. */
  answer(request) {
    const out = [];
    for (const part of request) {
      if (!(part instanceof Ask)) return null;
      const row = this.lookup[part.code];
      if (row < 0) return null;
      out.push(new StepRow(this.batch, row));
    }
    return out;
  }
}

/** Present `parts` as one batch, then run the generator `follow` - the sequential code of the
 *  same work - answering each view it asks with the step that view received in that batch
 *  (runtime.py's speculate; scans read a whole row's answers at once).  A view the batch did
 *  not present makes the rest of `follow` run as plain sequential batches.  `follow` runs in
 *  the sequential mode, and only while it runs. */
export function* speculate(parts, follow) {
  const results = yield parts;
  const answers = new Answers(parts, results);
  const resume = (value, spec) => {
    const saved = { ...MODE };
    MODE.parallel = false;
    MODE.speculation = spec;
    try { return follow.next(value); } finally { Object.assign(MODE, saved); }
  };
  let r;
  try {
    r = resume(undefined, answers);
    while (!r.done) {
      const got = answers.answer(r.value);
      if (!got) break;
      r = resume(got, answers);
    }
  } finally {
    answers.release();
  }
  if (r.done) return r.value;
  if (MODE.run) MODE.run.counters.fallbacks += 1;     // a view outside the batch: sequential from here on
  while (!r.done) r = resume(yield r.value, null);
  return r.value;
}

export function expect(step, allowed, where) {
  if (!allowed.includes(step[2])) {
    throw new StepperFault(`${where}: stepper chose ${pyRepr(step[2])}, expected one of ${pyRepr(allowed)}`);
  }
  return step[2];
}

export { HALT };
