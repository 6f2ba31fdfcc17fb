// web/certify.js — the certification suite, run in this page on this device.
//
//   import { certifyInPage } from './certify.js';
//   const cert = await certifyInPage({ model, views, onProgress: (done, total) => ... });
//   cert.predicate.result   // { views, passed, failed, min_margin, min_margin_view, failures }
//
// `model` is what web/model.js's loadModel returns; `views` is GET /api/views's answer (or its
// .views array): every view of V with the reference step it must produce.  Each view passes
// when the model's top step is the reference step; the margin is top-1 minus top-2 logit.
// The certificate has the schema of the Python certificates (certify/), with the browser's
// device: user agent, execution provider, WebGPU adapter info and features, dtype and the
// onnxruntime-web version, so a result can be reproduced.  POST it to /api/certificates to
// record it on the server.

import { buildCertificate } from './certificate.js';

export async function certifyInPage({ model, views, onProgress, batchSize = 512 } = {}) {
  if (!model || typeof model.logits !== 'function') throw new Error('certifyInPage needs a model from loadModel()');
  const viewSet = Array.isArray(views) ? { views } : views;
  const rows = viewSet.views;
  if (!rows || rows.length === 0) throw new Error('certifyInPage needs the view set (GET /api/views)');
  const stepIndex = new Map(model.steps.map((s, k) => [s.join('\u0000'), k]));
  const nSteps = model.steps.length;
  const failures = [];
  let passed = 0;
  let minMargin = Infinity;
  let minMarginView = null;
  const t0 = performance.now();
  for (let start = 0; start < rows.length; start += batchSize) {
    const part = rows.slice(start, start + batchSize);
    const { data } = await model.logits(part.map((r) => r.view));
    for (let i = 0; i < part.length; i++) {
      const at = i * nSteps;
      let best = 0;
      let second = -1;
      for (let k = 1; k < nSteps; k++) {
        if (data[at + k] > data[at + best]) { second = best; best = k; }
        else if (second < 0 || data[at + k] > data[at + second]) second = k;
      }
      const margin = second < 0 ? Infinity : data[at + best] - data[at + second];
      const want = stepIndex.get(part[i].step.join('\u0000'));
      if (want === best) passed++;
      else failures.push({ view: part[i].view, expected: part[i].step, got: model.steps[best],
                           margin: want === undefined ? null : data[at + want] - data[at + best] });
      if (margin < minMargin) { minMargin = margin; minMarginView = part[i].view; }
    }
    if (onProgress) onProgress(Math.min(start + batchSize, rows.length), rows.length);
    await new Promise((r) => setTimeout(r, 0));   // let the page draw the progress
  }
  const seconds = (performance.now() - t0) / 1000;
  return buildCertificate({
    model, viewSet, seconds,
    result: { views: rows.length, passed, failed: rows.length - passed, min_margin: minMargin,
              min_margin_view: minMarginView, failures: failures.slice(0, 100) },
  });
}
