// web/certify/certified.js — the page's only way to let the model solve (a port of
// sketchpad/certify/certified.py): under a certificate that the rule accepts for this model
// in this browser, which only a suite this browser ran can give.
//
//   const status = await findCertificate(model, rows);        // {ok, source, cert, verdict}
//   const status = await ensureCertified(model, rows, { onProgress });
//
// 1. this browser's cache (IndexedDB, cache.js): a certificate it made earlier, checked by the rule;
// 2. otherwise the page certifies itself (all of V, a second or two) and caches the result
//    when the rule holds.  A server record is never enough: it is another device's claim
//    (cert-panel.js shows a matching one as "reported by a device like yours").

import * as cache from './cache.js';
import { check, viewSetOf } from './policy.js';
import { certifyInPage } from './run.js';

export function expectationOf(model) {
  return { backend: 'browser', files: model.manifest, gate: model.info.gate, environment: model.environment };
}

export async function findCertificate(model, rows) {
  const viewSet = await viewSetOf(rows);
  const cert = await cache.load(model);
  if (cert) {
    const verdict = check(cert, expectationOf(model), viewSet);
    if (verdict.ok) return { ok: true, source: 'this browser', cert, verdict };
  }
  return { ok: false, source: null, cert: null, verdict: null };
}

export async function ensureCertified(model, rows, { onProgress } = {}) {
  const found = await findCertificate(model, rows);
  if (found.ok) return found;
  const cert = await certifyInPage({ model, views: rows, onProgress });
  const verdict = check(cert, expectationOf(model), await viewSetOf(rows));
  if (verdict.ok) await cache.store(model, cert).catch(() => {});
  return { ok: verdict.ok, source: 'self-certified', cert, verdict, fresh: true };
}
