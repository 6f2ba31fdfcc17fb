// web/certify/statement.js — the certificate a page run writes: an in-toto Statement v1 in
// the schema of sketchpad/certify/run.py and statement.py, so that the rule (policy.py and
// policy.js), `sketchpad certify --verify` and the server read both alike.
//
// Subjects: every file this page loaded for the model (model.json, the graph it names, the
// page's own model code, as onnx_stepper.js hashed them) and the view set.  The environment
// names what makes a browser result reproducible: execution provider, dtype, onnxruntime-web
// and browser versions, platform, and for WebGPU the adapter's vendor, architecture and driver.

import { marginRule, RULE } from './policy.js';

export const isoNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
const round = (x, digits) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);

/** Assemble the Statement from a finished run (see run.js). */
export function buildCertificate({ model, manifestSha256, runs, suite, drift, result, perView, time }) {
  const files = model.manifest;
  const subject = Object.keys(files).sort().map((name) => ({ name, digest: { sha256: files[name] } }));
  subject.push({ name: RULE.view_set.name, digest: { sha256: RULE.view_set.sha256 } });
  const minMargin = result.min_margin == null ? null : round(result.min_margin, 4);
  const need = marginRule(drift.max_abs_logit_diff);
  const predicate = {
    tool: { name: 'sketchpad certify (web page)', version: RULE.tool_version },
    model: { dir: new URL(model.info.onnxUrl).pathname.replace(/[^/]*$/, ''), manifest_sha256: manifestSha256,
      ...(model.meta.source?.model ? { model: model.meta.source.model } : {}) },
    adapter: { gate: model.info.gate },
    backend: { name: 'browser' },
    environment: model.environment,
    view_set: { name: RULE.view_set.name, sha256: RULE.view_set.sha256, count: RULE.view_set.count, shipped: true },
    runs,
    suite,
    drift,
    margin_rule: { floor: RULE.margin_floor, factor: RULE.drift_factor, drift: drift.max_abs_logit_diff,
      required: need, min_margin: minMargin, holds: minMargin != null && minMargin > need },
    result: { ...result, min_margin: minMargin },
    time,
    per_view: perView.map((r) => ({ ...r, margin: round(r.margin, 4) })),
  };
  return { _type: RULE.statement_type, subject, predicateType: RULE.predicate_type, predicate };
}
