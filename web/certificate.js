// web/certificate.js — the certificate a page run writes: an in-toto Statement v1 with the
// same subject and predicate layout as certify/run.py's, so `sketchpad certify --verify`,
// the server (POST /api/certificates) and the page read both alike.
//
// Subjects: the model's files as the export recorded them (model.json "source.subjects"),
// the ONNX graph and model.json as this page fetched and hashed them, and the view set,
// hashed here from the rows the page checked (rebuilt byte for byte as the JSONL export).
// The device names what makes a browser result reproducible: user agent, execution
// provider, WebGPU adapter info and features, dtype, threads, onnxruntime-web version.

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'https://sketchpad.invalid/certificate/v1';
export const VIEW_SET_NAME = 'sketchpad/data/views.jsonl';

export const viewKey = (v) => `${v[0]} ${v[1]}${v[2]}${v[3]}`;
export const stepKey = (s) => `${s[0]}${s[1]} ${s[2]}`;
export const isoNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');

const round = (x, digits) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);

export async function sha256Text(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The view-set export's bytes (sketchpad/views.py: one compact JSON object per line). */
export function viewSetText(rows) {
  return rows.map((r) => JSON.stringify({ view: r.view, step: r.step, witness: r.witness })).join('\n') + '\n';
}

function device(model) {
  const i = model.info;
  return {
    kind: 'browser', user_agent: navigator.userAgent, provider: model.provider, dtype: i.dtype,
    adapter: i.adapter, features: i.features, num_threads: i.numThreads ?? null,
    cross_origin_isolated: i.crossOriginIsolated, hardware_concurrency: navigator.hardwareConcurrency ?? null,
    platform: navigator.userAgentData?.platform ?? navigator.platform ?? null,
  };
}

/** Assemble the Statement from a finished run (see certify.js). */
export function buildCertificate({ model, viewSetSha256, count, batchSizes, consistency, result, perView, time }) {
  const meta = model.info.meta;
  const src = meta.source || {};
  const subject = (src.subjects || []).map((s) => ({ name: s.name, digest: { sha256: s.digest.sha256 } }));
  subject.push({ name: 'onnx/model.onnx', digest: { sha256: model.info.onnxSha256 } });
  subject.push({ name: 'onnx/model.json', digest: { sha256: model.info.metaSha256 } });
  subject.push({ name: VIEW_SET_NAME, digest: { sha256: viewSetSha256 } });
  const weights = (prefix) => Object.fromEntries(subject
    .filter((s) => s.name.startsWith(prefix) && s.name.endsWith('.safetensors'))
    .map((s) => [s.name, s.digest.sha256]));
  const predicate = {
    tool: { name: 'sketchpad certify (web page)', version: meta.tool_version || null },
    model: { ...(src.model || {}), weights_sha256: weights('base/') },
    adapter: { ...(src.adapter || {}), gate: model.info.gate, weights_sha256: weights('adapter/') },
    view_set: { name: VIEW_SET_NAME, sha256: viewSetSha256, count },
    backend: { name: 'browser', device: device(model) },
    versions: { 'onnxruntime-web': model.info.ortVersion, onnx_opset: meta.opset ?? null },
    batch_sizes: batchSizes,
    batch_consistency: consistency,
    result: {
      ...result,
      min_margin: round(result.min_margin, 6),
    },
    time,
    per_view: perView.map((r) => ({ ...r, margin: round(r.margin, 4) })),
  };
  return { _type: STATEMENT_TYPE, subject, predicateType: PREDICATE_TYPE, predicate };
}
