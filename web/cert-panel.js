// The certification panel and the page's certificate status (UI only; the rule is
// certify/policy.js and the decision certify/certified.js).
//
// "Certified on this device" comes only from a suite this browser ran, kept in IndexedDB per
// model digest and environment.  A certificate that another device uploaded to the server is
// a claim: when the rule holds for it with an environment like this browser's, the page says
// "reported by a device like yours (record #id from <client>, <time>)", and still certifies
// itself before the first solve.  The server stores who sent each record (client address,
// time, the device as the certificate describes it) and re-checks it with the rule on upload,
// but it cannot see the sender's device: only this browser's own run counts here.

import { findCertificate, ensureCertified, expectationOf, refusedGraph } from './certify/certified.js';
import { ENVIRONMENT_FIELDS, canonical, check, viewSetOf } from './certify/policy.js';
import { certifyInPage } from './certify/run.js';
import * as cache from './certify/cache.js';

const $ = (id) => document.getElementById(id);
const fmt = (n) => Number(n).toLocaleString('en-US');

/** Every batch of the last suite run here: {label, views, ms, heap} (the browser benchmark reads it). */
export const batchLog = [];

function duration(ms) {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s - 60 * m)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The JS heap in use (Chromium's performance.memory), or null. */
function heapBytes() {
  return globalThis.performance?.memory?.usedJSHeapSize ?? null;
}

/** onProgress for certifyInPage: the bar, and a line with the last batch's time, the memory and an ETA. */
function progressLine(model, views) {
  let t0 = null;
  let from = 0;
  let resumed = 0;
  batchLog.length = 0;
  return (done, total, info = {}) => {
    $('cert-progress').max = total;
    $('cert-progress').value = done;
    if (info.resumed) { resumed = done; from = done; t0 = null; return; }
    if (t0 === null) { t0 = performance.now() - (info.batchMs || 0); from = done - (info.batchViews || 0); }
    const heap = heapBytes();
    if (info.batchViews) batchLog.push({ label: info.label, views: info.batchViews, ms: info.batchMs, heap });
    const rate = (performance.now() - t0) / Math.max(1, done - from);
    const left = done < total && done - from >= 1 ? ` · about ${duration(rate * (total - done))} left` : '';
    document.body.dataset.batchMs = String(Math.round(info.batchMs || 0));
    // Counted in views of V (1,436, as everywhere), per batch composition: the suite runs all of
    // V once per composition, so `total` is a multiple of it.
    const runs = Math.max(1, Math.round(total / views));
    const run = Math.min(runs, Math.floor(done / views) + 1);
    $('cert-result').textContent = `Checking views with ${model.provider}: ${fmt(Math.min(views, done - (run - 1) * views))}/${fmt(views)}`
      + (runs > 1 ? ` (batch composition ${run} of ${runs})` : '') + ` (${Math.floor((100 * done) / total)}% of the suite)`
      + (info.batchViews ? ` · last batch ${fmt(info.batchViews)} view${info.batchViews > 1 ? 's' : ''} in ${duration(info.batchMs)}` : '')
      + left
      + (heap ? ` · JS heap ${fmt(Math.round(heap / 1e6))} MB` : '')
      + (resumed ? ` · resumed with ${fmt(resumed)} kept from an earlier visit` : '');
    document.body.dataset.certProgress = $('cert-result').textContent;  // the last progress line (tests)
  };
}

/** A server record of a certificate the rule accepts for this model with an environment like ours.
 * The listing shows summaries: only the records reported from an environment like ours are read
 * whole (GET /api/certificates/{id}), newest first, and the rule decides on the whole one. */
async function reportedLikeYours(model, rows) {
  try {
    const key = model.manifest?.['onnx/model.onnx'];
    const query = new URLSearchParams({ backend: 'browser', limit: '20', ...(key ? { model_sha256: key } : {}) });
    const resp = await fetch(`/api/certificates?${query}`);
    if (!resp.ok) return null;
    const { certificates = [] } = await resp.json();
    const like = (device) => !model.environment
      || ENVIRONMENT_FIELDS.every((k) => canonical(device?.[k]) === canonical(model.environment[k]));
    const viewSet = await viewSetOf(rows);
    for (const rec of certificates.filter((r) => r.passed && like(r.device)).slice(0, 5)) {
      const one = await fetch(`/api/certificates/${rec.id}`);
      const whole = one.ok ? await one.json() : null;
      if (whole && check(whole.certificate, expectationOf(model), viewSet).ok) return whole;
    }
    return null;
  } catch {
    return null;
  }
}

/** {ok, source, cert, verdict, reported} for the loaded model. */
export async function checkCertificate(model, rows) {
  if (!model) return { ok: false, source: null, reason: 'no model loaded' };
  const found = await findCertificate(model, rows);
  if (found.ok || found.refused) return found;
  return { ...found, reported: await reportedLikeYours(model, rows) };
}

export function describeStatus(status, model) {
  if (!model) return { text: 'No model is loaded.', cls: 'cert-no' };
  if (status.refused) {
    return {
      text: `Refused: this model's graph is not shown to be row-independent (${status.refused.message}). A step of it `
        + 'could depend on the batch it runs in, so no finite check can certify it; it is neither certified nor run here.',
      cls: 'cert-no',
    };
  }
  if (status.ok) {
    const p = status.cert.predicate;
    return {
      text: `Certified on this device: this browser ran the suite (${p.time.finished}) and the model passed all `
        + `${fmt(p.result.views)} views with the ${model.provider} provider, smallest margin ${p.result.min_margin.toFixed(3)} `
        + `(the rule needs more than ${p.margin_rule.required.toFixed(3)}). Its answers here are exact at every length.`,
      cls: 'cert-yes',
    };
  }
  const r = status.reported;
  const reported = r
    ? ` A passing certificate was reported by a device like yours (record #${r.id} from ${r.client || 'an unknown client'}, `
      + `${r.received_at}): that is its claim, not a check made here.`
    : '';
  return {
    text: `Not yet certified on this device with the ${model.provider} provider.${reported} The page runs the `
      + 'certification suite before the first solve (or press "Run certification suite").',
    cls: 'cert-no',
  };
}

function download(cert) {
  const link = $('cert-download');
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([JSON.stringify(cert, null, 1)], { type: 'application/json' }));
  const digest = cert.subject.find((s) => s.name === 'onnx/model.onnx')?.digest.sha256 || 'model';
  link.download = `certificate-browser-${cert.predicate.environment?.execution_provider}-${digest.slice(0, 12)}.json`;
  link.hidden = false;
}

async function record(cert) {
  try {
    const resp = await fetch('/api/certificates', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(cert),
    });
    const body = await resp.json().catch(() => ({}));
    if (resp.ok) return `recorded on the server as #${body.id}${body.duplicate ? ' (already recorded)' : ''}`;
    return `the server did not record it: ${body.error || `HTTP ${resp.status}`}`;
  } catch (e) {
    return `not recorded (no server: ${e.message})`;
  }
}

/** Show a finished run: N/N, smallest margin, provider, time, failures, download link. */
function showRun(cert, verdict, model, ms) {
  const r = cert.predicate.result;
  $('cert-result').className = 'cert-result';
  $('cert-result').textContent = `${r.passed_views}/${r.views} views passed · smallest margin `
    + `${typeof r.min_margin === 'number' ? r.min_margin.toFixed(4) : 'n/a'} at [${r.min_margin_view}] · `
    + `rule > ${cert.predicate.margin_rule.required.toFixed(3)} · provider ${model.provider} · ${(ms / 1000).toFixed(2)} s`
    + (cert.predicate.time.resumed?.chunks ? ` · resumed: ${cert.predicate.time.resumed.chunks} chunks kept from an earlier visit` : '')
    + (verdict.ok ? '' : ` · the rule does not hold: ${verdict.reasons.map(([, m]) => m).slice(0, 2).join('; ')}`);
  $('cert-result').classList.add(verdict.ok ? 'pass' : 'fail');
  $('cert-failures').textContent = '';
  for (const x of r.failures.slice(0, 50)) {
    const li = document.createElement('li');
    li.textContent = `view [${x.view}]: expected ${x.expected}, got ${x.got} (witness ${x.witness})`;
    $('cert-failures').append(li);
  }
  download(cert);
}

/** Run the suite here (the button, or before the first solve).  Returns {ok, cert, verdict}. */
export async function runSuite({ model, rows, force, after }) {
  $('certify').disabled = true;
  $('solve').disabled = true;
  $('cert-failures').textContent = '';
  $('cert-download').hidden = true;
  $('cert-upload').textContent = '';
  $('cert-result').className = 'cert-result';
  document.body.dataset.certState = 'running';
  const onProgress = progressLine(model, rows.length);
  try {
    const t0 = performance.now();
    let status;
    const refused = refusedGraph(model);
    if (refused) {
      $('cert-result').textContent = `Not run: the graph is not shown to be row-independent (${refused.message}).`;
      $('cert-result').classList.add('fail');
      await after?.(refused);
      document.body.dataset.certState = 'failed';
      return refused;
    }
    if (force) {
      const cert = await certifyInPage({ model, views: rows, onProgress });
      const verdict = check(cert, expectationOf(model), await viewSetOf(rows));
      if (verdict.ok) await cache.store(model, cert).catch(() => {});
      status = { ok: verdict.ok, cert, verdict, fresh: true };
    } else {
      status = await ensureCertified(model, rows, { onProgress });
    }
    if (status.fresh) {
      showRun(status.cert, status.verdict, model, performance.now() - t0);
      $('cert-upload').textContent = await record(status.cert);
    }
    await after?.(status);
    // Set last, so that a test waiting for it finds the status line already updated.
    document.body.dataset.certState = status.ok ? 'passed' : 'failed';
    return status;
  } catch (e) {
    $('cert-result').textContent = `Certification could not run: ${e.message}`;
    $('cert-result').classList.add('fail');
    document.body.dataset.certState = 'error';
    console.error(e);
    return { ok: false, error: e };
  } finally {
    $('certify').disabled = false;
    $('solve').disabled = false;
  }
}

/** Wire the #certify button: run every view of V through the model here and show the result. */
export function setupCertification({ getModel, getRows, onCertified }) {
  $('certify').addEventListener('click', async () => {
    const model = getModel();
    if (!model) return;
    let rows;
    try {
      rows = await getRows();
    } catch (e) {
      $('cert-result').textContent = `Certification could not start: ${e.message}`;
      $('cert-result').className = 'cert-result fail';
      document.body.dataset.certState = 'error';
      return;
    }
    await runSuite({ model, rows, force: true, after: onCertified });
  });
}
