// The runtime in a Web Worker, so that a long solve never blocks the page (worker-client.js is
// the page's side).  The worker runs solve.js, and the model too: its own copy of the page's
// model, loaded by the same code from the same files for the same provider (the page checks
// the files' hashes against its own, certified, ones), so that model calls leave the page's
// thread free as well.  Any other stepper (the debugging reference table) stays on the page:
// each batch's distinct view codes go to the page, which sends the step codes back.
// After a batch the worker sends the counters (at full speed at most every 50 ms); when the page
// animates it sends every batch, with what changed on the worksheet (new cells, new or changed
// rows) and the cells the batch read, and waits for the page before the next one.  The whole
// sheet comes with the answer, in slices small enough for the page to take in short tasks.
//
//   page -> worker  {type: 'model', options}   worker -> page {type: 'model-ready', manifest, provider} | {type: 'model-error'}
//   page -> worker  {type: 'solve', expr, parallel, limits, animate, own}
//   worker -> page  {type: 'views', codes, other}        page -> worker {type: 'steps', codes, other}
//   worker -> page  {type: 'batch', counters, delta, highlight, text}   (animate: page -> worker {type: 'continue'})
//   worker -> page  {type: 'sheet', delta}   (a slice of the worksheet's changes, before a batch or the answer)
//   worker -> page  {type: 'done', value, counters, delta} | {type: 'error', name, message, counters, delta}

import { N_BASE_VIEWS, SYMBOLS, stepCode, viewOf } from './codes.js';
import { positions, rowIndex, solve } from './solve.js';

let reply = null;       // resolves with the page's answer to a request
let cont = null;        // resolves when the page lets an animated solve go on
let model = null;       // the worker's own copy of the page's model (loadModel), when the page asked for one

self.postMessage({ type: 'ready' });     // the modules above are loaded: no network needed from here

self.onmessage = (e) => {
  const m = e.data;
  if (m.type === 'solve') run(m);
  else if (m.type === 'model') loadOwnModel(m.options);
  else if (m.type === 'steps' || m.type === 'stepper-error') { const r = reply; reply = null; r(m); }
  else if (m.type === 'continue' && cont) { const c = cont; cont = null; c(); }
};

/** The stepper the runtime sees: view codes out to the page, step codes back. */
const stepper = {
  async stepCodes(codes) {
    const other = [];
    for (const c of codes) if (c >= N_BASE_VIEWS) other.push([c, viewOf(c)]);
    const answer = new Promise((resolve) => { reply = resolve; });
    self.postMessage({ type: 'views', codes, other });
    const m = await answer;
    if (m.type === 'stepper-error') throw Object.assign(new Error(m.message), { name: m.name });
    const out = Int32Array.from(m.codes);
    for (const [k, step] of m.other) out[k] = stepCode(step);
    return out;
  },
};

/** Load the page's model here too (the same files, code and provider: the page compares them
 *  with its own), so that model calls run off the page's thread. */
async function loadOwnModel(options) {
  try {
    const { loadModel } = await import('./onnx_stepper.js');
    model = await loadModel(options);
    self.postMessage({ type: 'model-ready', manifest: model.manifest, provider: model.provider, info: { numThreads: model.info.numThreads, crossOriginIsolated: model.info.crossOriginIsolated } });
  } catch (e) {
    model = null;
    self.postMessage({ type: 'model-error', message: e?.message || String(e) });
  }
}

/** The worker's own model as the runtime's stepper: view codes in, step codes out. */
const ownStepper = {
  async stepCodes(codes) {
    const steps = await model.stepper(Array.from(codes, viewOf));
    return Int32Array.from(steps, stepCode);
  },
};

/** What changed on the worksheet since the last message: new cells, new or changed rows. */
class Changes {
  constructor() { this.cells = 0; this.symbols = SYMBOLS.length; this.rows = new Set(); }

  /** The changes as messages of at most about `most` cells and row columns each, so that the
   *  page takes each in a short task of its own. */
  deltas(ws, most = 1 << 16) {
    if (!ws) return [null];
    const store = ws.store, out = [];
    const fresh = () => ({ from: this.cells, sym: new Uint8Array(0), kind: new Uint8Array(0), symbols: [], titles: ws.sheets.map((s) => s.title), rows: [] });
    let d = fresh();
    d.symbols = SYMBOLS.slice(this.symbols);
    this.symbols = SYMBOLS.length;
    for (let at = this.cells; at < store.n; at += most) {       // the cells first, in slices
      const hi = Math.min(store.n, at + most);
      d.from = at;
      d.sym = store.sym.slice(at, hi);
      d.kind = store.kind.slice(at, hi);
      out.push(d);
      d = fresh();
      d.from = hi;
    }
    this.cells = store.n;
    d.from = store.n;
    let size = 0;
    ws.sheets.forEach((s, block) => s.rows.forEach((r, index) => {
      if (!r.dirty && this.rows.has(r)) return;
      this.rows.add(r);
      r.dirty = false;
      d.rows.push({ block, index, name: r.name, offset: r.offset, ids: r.ids.slice(), sign: r.signId });
      size += r.ids.length + 1;
      if (size > most) { out.push(d); d = fresh(); d.from = store.n; size = 0; }
    }));
    out.push(d);
    return out;
  }
}

function counters(c) {
  return { forwardPasses: c.forwardPasses, viewsPresented: c.viewsPresented, batches: c.batches, views: c.views.size, stepperMs: c.stepperMs };
}

async function run({ expr, parallel, limits, animate, own }) {
  const changes = new Changes();
  let last = 0;
  const onProgress = async (r) => {
    const now = performance.now();
    if (!animate && now - last < 50) return;
    last = now;
    let highlight = null, text = null;
    if (animate && r.lastPart) {      // the cells the batch's last part read, and its last view
      const ws = r.worksheet, index = rowIndex(ws);
      const probes = r.lastPart.size <= 4000 ? r.lastPart.probes() : [];
      const light = probes.flatMap((p) => positions(ws, p.where, index).filter(Boolean));
      const strong = positions(ws, r.lastWhere, index).filter(Boolean);
      highlight = { light, strong };
      const v = probes.length ? probes[probes.length - 1].view : null;
      text = v ? `last view [${v[0]} | ${v.slice(1).join(' ')}]` : null;
    }
    // At full speed only the counters: the sheet comes with the answer (in slices).
    const deltas = animate ? changes.deltas(r.worksheet) : [null];
    for (const d of deltas.slice(0, -1)) self.postMessage({ type: 'sheet', delta: d });
    self.postMessage({ type: 'batch', counters: counters(r.counters), delta: deltas[deltas.length - 1], highlight, text });
    if (animate) await new Promise((resolve) => { cont = resolve; });
  };
  const finish = (ws, message) => {
    const deltas = changes.deltas(ws);
    for (const d of deltas.slice(0, -1)) self.postMessage({ type: 'sheet', delta: d });
    self.postMessage({ ...message, delta: deltas[deltas.length - 1] });
  };
  try {
    const r = await solve(expr, own && model ? ownStepper : stepper, { parallel, limits, onProgress });
    finish(r.sheet, { type: 'done', value: r.value, counters: { ...counters(r), views: r.distinctViews }, fallbacks: r.fallbacks });
  } catch (e) {
    finish(e?.sheet ?? null, { type: 'error', name: e?.name || 'Error', message: e?.message || String(e),
      counters: e?.counters ? counters(e.counters) : null });
  }
}
