// The page's side of solve-worker.js: solve in a Web Worker (with the worker's own copy of the
// page's model when loadWorkerModel found it the same, else answering its batches with the
// page's stepper), and keep a copy of the worksheet for drawing.
//
//   const own = await loadWorkerModel({ modelUrl, provider, threads }, pageModel);
//   const r = await solveInWorker(expr, stepper, { parallel, limits, animate, onBatch, own });
//   r.value, r.forwardPasses, r.viewsPresented, r.batches, r.distinctViews, r.stepperMs, r.sheet
//
// onBatch(sheet, counters, highlight, text) is awaited after the worker's batch messages (every
// batch when animating, at most every 50 ms otherwise); highlight is null or {light, strong}:
// lists of {block, row, col} for SheetView.highlightCells.  Errors are thrown with the runtime's
// name (InputError, StepperFault) and carry .sheet and .counters, as solve.js's do.

import { N_BASE_STEPS, NSYM, stepCode, STEPS, SYMBOLS as OWN_SYMBOLS, viewOf as viewOfCode } from './codes.js';

const INPUT = 'input';

/** The worksheet as the page holds it: what SheetView draws (titles, rows of symbols). */
export class SheetCopy {
  constructor() { this.sheets = []; this.sym = new Uint8Array(1024); this.kind = new Uint8Array(1024); this.n = 0; this.symbols = [...OWN_SYMBOLS.slice(0, NSYM)]; }

  apply(d) {
    if (!d) return;
    this.version = (this.version || 0) + 1;
    const need = d.from + d.sym.length;
    if (need > this.sym.length) {
      const cap = Math.max(need, 2 * this.sym.length);
      const sym = new Uint8Array(cap), kind = new Uint8Array(cap);
      sym.set(this.sym.subarray(0, this.n));
      kind.set(this.kind.subarray(0, this.n));
      this.sym = sym;
      this.kind = kind;
    }
    this.sym.set(d.sym, d.from);
    this.kind.set(d.kind, d.from);
    this.n = need;
    this.symbols.push(...d.symbols);
    d.titles.forEach((title, b) => { if (!this.sheets[b]) this.sheets[b] = { title, rows: [] }; });
    for (const r of d.rows) this.sheets[r.block].rows[r.index] = new RowCopy(this, r);
  }
}

class RowCopy {
  constructor(ws, { name, offset, ids, sign }) { Object.assign(this, { ws, name, offset, ids, signId: sign }); this.drawnAs = null; }
  width() { return this.ids.length; }
  sym(i) { const c = i >= 0 && i < this.ids.length ? this.ids[i] : -1; return c < 0 ? '_' : this.ws.symbols[this.ws.sym[c]]; }
  cell(i) {
    const c = i >= 0 && i < this.ids.length ? this.ids[i] : -1;
    return c < 0 ? null : { sym: this.ws.symbols[this.ws.sym[c]], origin: this.ws.kind[c] === 0 ? INPUT : 'step' };
  }
  get sign() {
    const c = this.signId;
    return c < 0 ? null : { sym: this.ws.symbols[this.ws.sym[c]], origin: this.ws.kind[c] === 0 ? INPUT : 'step' };
  }
  get cells() { return Array.from(this.ids, (_, i) => this.cell(i)); }
}

const SLICE = 128;      // views per model call: the model runs on the page's thread, in short turns

/** Steps for the worker's view codes from the page's stepper (views in, steps out), asked in
 *  slices with a turn of the event loop between them (each row's step depends on its view
 *  alone: the certificate's premise, checked by the certifier). */
async function answer(stepper, m) {
  const other = new Map(m.other);
  const views = Array.from(m.codes, (c) => other.get(c) || viewOfCode(c));
  const steps = [];
  for (let at = 0; at < views.length; at += SLICE) {
    if (at) await new Promise((resolve) => setTimeout(resolve, 0));
    const part = views.slice(at, at + SLICE);
    const got = await stepper(part);
    if (!Array.isArray(got) || got.length !== part.length) {
      throw Object.assign(new Error(`stepper returned ${Array.isArray(got) ? got.length : 'no'} steps for ${part.length} views`), { name: 'StepperFault' });
    }
    steps.push(...got);
  }
  const codes = new Int32Array(steps.length);
  const extra = [];
  steps.forEach((s, k) => {
    const code = stepCode(s);
    if (code >= N_BASE_STEPS) extra.push([k, STEPS[code]]);      // a step outside the alphabet: by name
    else codes[k] = code;
  });
  return { codes, other: extra };
}


let shared = null;      // one worker for the page's solves, one solve at a time

/** Start the worker (and load its modules) now, so that solving needs no network later. */
export function startWorker() {
  if (!shared) {
    shared = new Worker(new URL('./solve-worker.js', import.meta.url), { type: 'module' });
    shared.ready = new Promise((resolve, reject) => {
      shared.onmessage = (e) => { if (e.data.type === 'ready') resolve(); };
      shared.onerror = (e) => { shared = null; reject(new Error(`the solving worker could not start: ${e.message}`)); };
    });
  }
  return shared.ready;
}

/** Load the page's model in the worker too; true when the worker's copy is the same model (every
 *  file the loaders read has the same hash, the same provider and threads), else false (the
 *  page's stepper is then asked, on the page). */
export async function loadWorkerModel(options, pageModel) {
  await startWorker();
  const worker = shared;
  const got = await new Promise((resolve) => {
    worker.onmessage = (e) => { if (e.data.type === 'model-ready' || e.data.type === 'model-error') resolve(e.data); };
    worker.postMessage({ type: 'model', options });
  });
  if (got.type !== 'model-ready' || got.provider !== pageModel.provider) return false;
  if ((got.info.numThreads ?? null) !== (pageModel.info.numThreads ?? null)) return false;
  if (got.info.crossOriginIsolated !== pageModel.info.crossOriginIsolated) return false;
  const want = pageModel.manifest;
  return Object.keys(want).length === Object.keys(got.manifest).length && Object.entries(want).every(([k, v]) => got.manifest[k] === v);
}

export async function solveInWorker(expr, stepper, { parallel = true, limits = {}, animate = false, onBatch = null, own = false } = {}) {
  await startWorker();
  const worker = shared;
  const sheet = new SheetCopy();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const fail = (e) => { reject(e); };
    worker.onerror = (e) => { shared = null; worker.terminate(); fail(new Error(`the solving worker failed: ${e.message}`)); };
    worker.onmessage = async (e) => {
      const m = e.data;
      try {
        if (m.type === 'views') {
          try {
            const { codes, other } = await answer(stepper, m);
            worker.postMessage({ type: 'steps', codes, other }, [codes.buffer]);
          } catch (err) {
            worker.postMessage({ type: 'stepper-error', name: err.name || 'Error', message: err.message });
          }
        } else if (m.type === 'sheet') {
          sheet.apply(m.delta);
        } else if (m.type === 'batch') {
          sheet.apply(m.delta);
          if (onBatch) await onBatch(sheet, m.counters, m.highlight, m.text);
          if (animate) worker.postMessage({ type: 'continue' });
        } else if (m.type === 'done') {
          sheet.apply(m.delta);
          const c = m.counters;
          resolve({ value: m.value, forwardPasses: c.forwardPasses, viewsPresented: c.viewsPresented, batches: c.batches,
            distinctViews: c.views, stepperMs: c.stepperMs, fallbacks: m.fallbacks, ms: performance.now() - t0, sheet });
        } else if (m.type === 'error') {
          sheet.apply(m.delta);
          const err = Object.assign(new Error(m.message), { name: m.name });
          if (m.delta) Object.defineProperty(err, 'sheet', { value: sheet, enumerable: false });
          if (m.counters) Object.defineProperty(err, 'counters', { value: m.counters, enumerable: false });
          fail(err);
        }
      } catch (err) {
        fail(err);
      }
    };
    worker.postMessage({ type: 'solve', expr, parallel, limits, animate, own });
  });
}
