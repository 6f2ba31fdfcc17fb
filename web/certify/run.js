// web/certify/run.js — the certification suite, run in this page on this device.
//
//   import { certifyInPage } from './certify/run.js';
//   const cert = await certifyInPage({ model, views, onProgress: (done, total) => ... });
//   cert.predicate.result   // { passed, views, passed_views, failed_views, failures, min_margin, ... }
//
// `model` is what web/onnx_stepper.js's loadModel returns; `views` is GET /api/views's answer (or
// its .views array): every view of V with the reference step it must produce, which must be
// the shipped V (policy.js's viewSetOf).  The check is sketchpad/certify/run.py's in
// JavaScript: V runs in the batch compositions a solve can meet — all of V at once, one view
// per forward pass, and V shuffled into batches of 1-512 views (the shuffle and the sizes from
// this browser's seed, cache.js's suiteSeed, with the same generator as Python: `shuffled`) —
// and a view passes when every run gives the reference step and its top-1 logit is strictly
// above the top-2.  The drift is the largest difference of any logit of any view between any
// two runs.  A graph that is not row-independent (model.rows) is not run at all.  Whether the
// certificate lets the model run is policy.js's decision alone.
//
// A large model (model.maxBatch: onnx_stepper.js) never runs more views at once: "all of V"
// becomes V in order in batches of maxBatch and the shuffled batches are drawn up to it, as in
// Python.  The suite runs in chunks (consecutive batches of at least RULE.suite.chunk_views
// views) whose logits are kept in IndexedDB (resume.js), so a suite interrupted by a reload
// resumes; onProgress(done, total, {batchViews, batchMs, label, resumed}) reports every batch.

import { RULE, manifestDigest, viewSetOf } from './policy.js';
import { stepKey, viewKey } from '../symbols.js';
import { buildCertificate, isoNow } from './statement.js';
import { suiteSeed as cacheSuiteSeed } from './cache.js';
import { openJournal } from './resume.js';

const yieldToPage = () => new Promise((r) => setTimeout(r, 0));

/** A small 32-bit generator (sketchpad/certify/run.py's mulberry32, number for number). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1) >>> 0;
    t = ((t + (Math.imul(t ^ (t >>> 7), t | 61) >>> 0)) >>> 0 ^ t) >>> 0;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** [order, sizes]: a permutation of 0..n-1 and batch sizes of 1..maxBatch, drawn log-uniformly,
 *  both from `seed` (run.py's shuffled: the same for the same seed). */
export function shuffled(n, seed, maxBatch = 512) {
  const draw = mulberry32(seed);
  const order = [...Array(n).keys()];
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(draw() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const sizes = [];
  const top = Math.log2(maxBatch);
  for (let left = n; left > 0;) {
    const size = Math.min(left, Math.floor(2 ** (draw() * top)));
    sizes.push(size);
    left -= size;
  }
  return [order, sizes];
}

/** [[first batch, end batch]] covering `sizes` in order, each with >= minViews views (run.py's chunk_groups). */
export function chunkGroups(sizes, minViews = RULE.suite.chunk_views) {
  const groups = [];
  let start = 0;
  let held = 0;
  sizes.forEach((size, i) => {
    held += size;
    if (held >= minViews) { groups.push([start, i + 1]); start = i + 1; held = 0; }
  });
  if (start < sizes.length) groups.push([start, sizes.length]);
  return groups;
}

/** Logits of views[order[k..]] in batches `sizes` (row r of the result: order[k + r]). */
async function runBatches(model, views, order, k, sizes, report) {
  const n = model.steps.length;
  const total = sizes.reduce((a, b) => a + b, 0);
  const out = new Float32Array(total * n);
  let at = 0;
  let lastYield = performance.now();
  for (const size of sizes) {
    const idx = order.slice(k + at, k + at + size);
    const t = performance.now();
    const { data } = await model.logits(idx.map((i) => views[i]));
    out.set(data.subarray(0, idx.length * n), at * n);
    at += idx.length;
    report(idx.length, performance.now() - t);
    if (performance.now() - lastYield > 50) { await yieldToPage(); lastYield = performance.now(); }
  }
  return out;
}

/** Top-1 index and margin (top-1 minus top-2, in float32 like numpy) per row. */
function argmaxMargins(data, rows, n) {
  const best = new Int32Array(rows);
  const margin = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    const at = i * n;
    let b = 0;
    for (let k = 1; k < n; k++) if (data[at + k] > data[at + b]) b = k;
    let second = -Infinity;
    for (let k = 0; k < n; k++) if (k !== b && data[at + k] > second) second = data[at + k];
    best[i] = b;
    margin[i] = n > 1 ? Math.fround(data[at + b] - second) : Infinity;
  }
  return { best, margin };
}

/** The runs of the suite: [{label, order, sizes}]; batchSizes: V in order at exactly these sizes;
 *  maxBatch: a large model's cap (run.py's compositions: the same runs). */
export function compositions(n, seed, batchSizes, maxBatch = null) {
  const inOrder = [...Array(n).keys()];
  if (batchSizes) {
    return batchSizes.map((bs) => ({ label: `batch ${bs}`, order: inOrder, sizes: Array(Math.ceil(n / bs)).fill(bs), shuffled: false }));
  }
  const top = maxBatch ? Math.min(RULE.suite.max_shuffled_batch, maxBatch) : RULE.suite.max_shuffled_batch;
  const [order, sizes] = shuffled(n, seed, top);
  const everything = !maxBatch || maxBatch >= n
    ? { label: 'all of V at once', sizes: [n] }
    : { label: `all of V in order, batches of ${maxBatch}`, sizes: Array(Math.ceil(n / maxBatch)).fill(maxBatch) };
  return [
    { ...everything, order: inOrder, shuffled: false },
    { label: 'one view per pass', order: inOrder, sizes: Array(n).fill(1), shuffled: false },
    { label: `shuffled, ${sizes.length} batches of 1-${top}`, order, sizes, shuffled: true },
  ];
}

export async function certifyInPage({ model, views, onProgress, batchSizes, seed, resume = true, onResume, stopAfterChunks } = {}) {
  if (!model || typeof model.logits !== 'function') throw new Error('certifyInPage needs a model from loadModel()');
  if (model.rows && !model.rows.ok) {
    throw new Error(`the graph is not shown to be row-independent, so no suite can certify it: ${model.rows.message}`);
  }
  const rows = Array.isArray(views) ? views : views?.views;
  if (!rows || rows.length === 0) throw new Error('certifyInPage needs the view set (GET /api/views)');
  await viewSetOf(rows);                      // throws unless the rows are the shipped V
  const suiteSeed = seed ?? (batchSizes ? null : await cacheSuiteSeed());
  const runs = compositions(rows.length, suiteSeed, batchSizes, model.maxBatch ?? null);
  const n = model.steps.length;
  const vs = rows.map((r) => r.view);
  const total = rows.length * runs.length;
  const journal = resume ? await openJournal(model, runs) : null;
  const started = journal?.started ?? isoNow();
  const seconds = {};
  const logits = [];
  let done = 0;
  let ran = 0;                                 // chunks run here (stopAfterChunks: a test's interruption)
  for (let s = 0; s < runs.length; s++) {
    const run = runs[s];
    const all = new Float32Array(rows.length * n);
    let k = 0;
    let spent = 0;
    const groups = chunkGroups(run.sizes);
    for (let c = 0; c < groups.length; c++) {
      const sizes = run.sizes.slice(groups[c][0], groups[c][1]);
      const held = Math.min(sizes.reduce((a, b) => a + b, 0), rows.length - k);
      let got = journal ? await journal.get(s, c) : null;
      if (got && got.logits.length !== held * n) got = null;
      if (got) {
        done += held;
        onResume?.(journal);
        onProgress?.(done, total, { label: run.label, resumed: true, batchViews: held, batchMs: 0 });
      } else {
        if (stopAfterChunks !== undefined && ran >= stopAfterChunks) throw new Error('the certification suite was interrupted');
        const t = performance.now();
        const data = await runBatches(model, vs, run.order, k, sizes, (views, ms) => {
          done += views;
          onProgress?.(done, total, { label: run.label, batchViews: views, batchMs: ms });
        });
        got = { logits: data, seconds: Math.round(performance.now() - t) / 1000 };
        await journal?.put(s, c, data, got.seconds);
        ran += 1;
      }
      for (let r = 0; r < held; r++) all.set(got.logits.subarray(r * n, (r + 1) * n), run.order[k + r] * n);
      k += held;
      spent += got.seconds;
    }
    logits.push(all);
    seconds[run.label] = Math.round(spent * 1000) / 1000;
  }
  const results = logits.map((data) => argmaxMargins(data, rows.length, n));

  let maxDiff = 0;
  let worst = 0;
  for (let i = 0; i < rows.length; i++) {
    for (let k = 0; k < n; k++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const data of logits) {
        const x = data[i * n + k];
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
      if (hi - lo > maxDiff) { maxDiff = hi - lo; worst = i; }
    }
  }
  const perView = [];
  const failures = [];
  let minMargin = Infinity;
  let minAt = 0;
  for (let i = 0; i < rows.length; i++) {
    const want = stepKey(rows[i].step);
    const gots = results.map((r) => stepKey(model.steps[r.best[i]]));
    const margin = Math.min(...results.map((r) => r.margin[i]));
    const ok = gots.every((g) => g === want) && margin > 0;
    const row = { view: viewKey(rows[i].view), expected: want, got: gots[0], margin, pass: ok };
    if (new Set(gots).size > 1) row.got_by_run = Object.fromEntries(runs.map((r, j) => [r.label, gots[j]]));
    perView.push(row);
    if (!ok) failures.push({ ...row, witness: rows[i].witness ?? null });
    if (margin < minMargin) { minMargin = margin; minAt = i; }
  }
  const cert = buildCertificate({
    model, manifestSha256: await manifestDigest(model.manifest),
    runs: runs.map((r) => ({
      label: r.label, batches: r.sizes.length, batch_sizes: [Math.min(...r.sizes), Math.max(...r.sizes)],
      shuffled: r.shuffled, seconds: seconds[r.label],
    })),
    suite: { seed: suiteSeed, runs: runs.length, row_independence: model.rows ? 'checked: passed' : null },
    drift: { max_abs_logit_diff: maxDiff, at_view: viewKey(rows[worst].view) },
    result: {
      passed: failures.length === 0, views: rows.length, passed_views: rows.length - failures.length,
      failed_views: failures.length, failures,
      min_margin: minMargin, min_margin_view: viewKey(rows[minAt].view), min_margin_step: stepKey(rows[minAt].step),
    },
    perView,
    time: {
      started, finished: isoNow(), seconds_by_run: seconds,
      ...(journal ? { resumed: { chunks: journal.resumedChunks, view_runs: journal.resumedViews } } : {}),
    },
  });
  await journal?.finish();
  return cert;
}
