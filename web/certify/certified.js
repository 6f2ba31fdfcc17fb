// web/certify/certified.js — the page's only way to let the model solve (a port of
// sketchpad/certify/certified.py): under a certificate that the rule accepts for this model
// in this browser, which only a suite this browser ran can give.
//
//   const status = await findCertificate(model, rows);        // {ok, source, cert, verdict}
//   const status = await ensureCertified(model, rows, { onProgress });
//
// 0. the graph must be row-independent (model.rows: the page's own analysis, certify/rows.js);
//    otherwise nothing is certified and the model does not solve;
// 1. this browser's cache (IndexedDB, cache.js): a certificate it made earlier, with a valid tag
//    of this browser's key, checked by the rule;
// 2. otherwise the page certifies itself (all of V in several batch compositions, a second or
//    two) and caches the result when the rule holds.  A server record, a certificate shipped
//    with the model or a download is never enough: it is a claim (cert-panel.js shows a
//    matching server record as "reported by a device like yours").

import * as cache from './cache.js';
import { check, viewSetOf } from './policy.js';
import { certifyInPage } from './run.js';

export function expectationOf(model) {
  return { backend: 'browser', files: model.manifest, gate: model.info.gate, environment: model.environment, rows: model.rows ?? null };
}

export async function findCertificate(model, rows) {
  const refused = refusedGraph(model);
  if (refused) return refused;
  const viewSet = await viewSetOf(rows);
  const cert = await cache.load(model);
  if (cert) {
    const verdict = check(cert, expectationOf(model), viewSet);
    if (verdict.ok) return { ok: true, source: 'this browser', cert, verdict };
  }
  return { ok: false, source: null, cert: null, verdict: null };
}

/** {ok: false, refused} when the graph is not row-independent: it is neither certified nor run. */
export function refusedGraph(model) {
  return model.rows && !model.rows.ok ? { ok: false, source: null, cert: null, verdict: null, refused: model.rows } : null;
}

export async function ensureCertified(model, rows, { onProgress } = {}) {
  const refused = refusedGraph(model);
  if (refused) return refused;
  const found = await findCertificate(model, rows);
  if (found.ok) return found;
  const cert = await certifyInPage({ model, views: rows, onProgress });
  const verdict = check(cert, expectationOf(model), await viewSetOf(rows));
  if (verdict.ok) await cache.store(model, cert).catch(() => {});
  return { ok: verdict.ok, source: 'self-certified', cert, verdict, fresh: true };
}
