// web/certify/run.js — the certification suite, run in this page on this device.
//
//   import { certifyInPage } from './certify/run.js';
//   const cert = await certifyInPage({ model, views, onProgress: (done, total) => ... });
//   cert.predicate.result   // { passed, views, passed_views, failed_views, failures, min_margin, ... }
//
// `model` is what web/onnx_stepper.js's loadModel returns; `views` is GET /api/views's answer (or
// its .views array): every view of V with the reference step it must produce, which must be
// the shipped V (policy.js's viewSetOf).  The check is sketchpad/certify/run.py's in
// JavaScript: every view runs at two batch sizes (all of V at once, then one view per forward
// pass, as the runtime's smallest batches do); a view passes when the model's step equals the
// reference step at both and its top-1 logit is strictly above the top-2.  The drift (largest
// logit difference between the runs) goes into the certificate for the margin rule.  Whether
// the certificate lets the model run is policy.js's decision alone.

import { manifestDigest, viewSetOf } from './policy.js';
import { stepKey, viewKey } from '../symbols.js';
import { buildCertificate, isoNow } from './statement.js';

const yieldToPage = () => new Promise((r) => setTimeout(r, 0));

/** Logits of every view, `batchSize` views per forward pass: Float32Array [N * nSteps]. */
async function runAll(model, views, batchSize, report) {
  const n = model.steps.length;
  const all = new Float32Array(views.length * n);
  let lastYield = performance.now();
  for (let k = 0; k < views.length; k += batchSize) {
    const { data } = await model.logits(views.slice(k, k + batchSize));
    all.set(data, k * n);
    report(Math.min(k + batchSize, views.length));
    if (performance.now() - lastYield > 50) { await yieldToPage(); lastYield = performance.now(); }
  }
  return all;
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

export async function certifyInPage({ model, views, onProgress, batchSizes } = {}) {
  if (!model || typeof model.logits !== 'function') throw new Error('certifyInPage needs a model from loadModel()');
  const rows = Array.isArray(views) ? views : views?.views;
  if (!rows || rows.length === 0) throw new Error('certifyInPage needs the view set (GET /api/views)');
  await viewSetOf(rows);                      // throws unless the rows are the shipped V
  const sizes = batchSizes || [rows.length, 1];
  const n = model.steps.length;
  const vs = rows.map((r) => r.view);
  const total = rows.length * sizes.length;
  const started = isoNow();
  const seconds = {};
  const runs = [];
  for (let s = 0; s < sizes.length; s++) {
    const t = performance.now();
    runs.push(await runAll(model, vs, sizes[s], (done) => onProgress?.(s * rows.length + done, total)));
    seconds[`batch ${sizes[s]}`] = Math.round(performance.now() - t) / 1000;
  }
  const results = runs.map((data) => argmaxMargins(data, rows.length, n));

  let maxDiff = 0;
  let worst = 0;
  for (const other of runs.slice(1)) {
    for (let i = 0; i < rows.length; i++) {
      for (let k = 0; k < n; k++) {
        const d = Math.abs(runs[0][i * n + k] - other[i * n + k]);
        if (d > maxDiff) { maxDiff = d; worst = i; }
      }
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
    if (new Set(gots).size > 1) row.got_by_run = Object.fromEntries(sizes.map((s, j) => [`batch ${s}`, gots[j]]));
    perView.push(row);
    if (!ok) failures.push({ ...row, witness: rows[i].witness ?? null });
    if (margin < minMargin) { minMargin = margin; minAt = i; }
  }
  return buildCertificate({
    model, manifestSha256: await manifestDigest(model.manifest),
    runs: sizes.map((s) => ({ label: `batch ${s}`, batch_size: s, seconds: seconds[`batch ${s}`] })),
    drift: { max_abs_logit_diff: maxDiff, at_view: viewKey(rows[worst].view) },
    result: {
      passed: failures.length === 0, views: rows.length, passed_views: rows.length - failures.length,
      failed_views: failures.length, failures,
      min_margin: minMargin, min_margin_view: viewKey(rows[minAt].view), min_margin_step: stepKey(rows[minAt].step),
    },
    perView,
    time: { started, finished: isoNow(), seconds_by_run: seconds },
  });
}
