// web/certify/policy.js — the certificate rule in the page: a port of
// sketchpad/certify/policy.py, check for check, reason code for reason code, with its
// constants from the JSON that Python generates (generated/certificate-rule.json).  The same
// tampering matrix runs on both (tests/test_policy.py writes it; web/tests/policy.test.mjs
// replays it here).
//
//   const verdict = check(cert, expect, viewSet);
//   verdict.ok, verdict.reasons     // [[code, message], ...]
//
// expect = { backend, files: {subject name: sha256}, gate, environment | null, rows | null }:
// what this page loaded (onnx_stepper.js's model.manifest, model.environment, and model.rows,
// the page's own row-independence verdict on the graph), never what the certificate lists.  viewSet = viewSetOf(rows): the rows the server publishes, which must
// hash to the shipped V named in the rule.

import RULE from '../generated/certificate-rule.json' with { type: 'json' };
import { stepKey, viewKey } from '../symbols.js';

export { RULE };
export const ENVIRONMENT_FIELDS = RULE.environment_fields;

export async function sha256Hex(data) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The view-set export's bytes (derive/views.py: one compact JSON object per line). */
export function viewSetText(rows) {
  return rows.map((r) => JSON.stringify({ view: r.view, step: r.step, witness: r.witness })).join('\n') + '\n';
}

/** {sha256, count, steps: Map(view key -> step key)} of the served rows; throws unless they
 *  are the shipped V (the rule's sha256). */
export async function viewSetOf(rows) {
  const sha256 = await sha256Hex(viewSetText(rows));
  if (sha256 !== RULE.view_set.sha256) {
    throw new Error(`the server publishes a view set (sha256 ${sha256.slice(0, 12)}…) that is not the shipped V `
      + `(${RULE.view_set.sha256.slice(0, 12)}…)`);
  }
  return { sha256, count: rows.length, steps: new Map(rows.map((r) => [viewKey(r.view), stepKey(r.step)])) };
}

/** JSON with keys sorted at every level (Python's json.dumps(sort_keys=True), compact). */
export function canonical(x) {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (x && typeof x === 'object') {
    return `{${Object.keys(x).sort().map((k) => `${JSON.stringify(k)}:${canonical(x[k])}`).join(',')}}`;
  }
  return JSON.stringify(x === undefined ? null : x);
}

const finite = (x) => typeof x === 'number' && Number.isFinite(x);
const get = (d, ...path) => path.reduce((o, k) => (o && typeof o === 'object' && !Array.isArray(o) ? o[k] : undefined), d);
const short = (s) => `${String(s).slice(0, 12)}...`;
export const marginRule = (drift) => RULE.drift_factor * drift + RULE.margin_floor;

export function check(cert, expect, viewSet) {
  const reasons = [];
  const facts = {};
  const fail = (code, message) => reasons.push([code, message]);
  const p = get(cert, 'predicate');
  if (!cert || typeof cert !== 'object' || cert._type !== RULE.statement_type
      || cert.predicateType !== RULE.predicate_type || !p || typeof p !== 'object' || Array.isArray(p)) {
    fail('format', `not a sketchpad certificate (needs _type ${RULE.statement_type} and predicateType ${RULE.predicate_type})`);
    return { ok: false, reasons, facts };
  }
  const backend = get(p, 'backend', 'name');
  if (backend !== expect.backend) fail('backend', `made on backend '${backend}', not '${expect.backend}'`);
  subjects(cert.subject, expect, fail);
  const tool = get(p, 'tool', 'version');
  if (tool !== RULE.tool_version) fail('tool-version', `made by sketchpad ${tool}, this is sketchpad ${RULE.tool_version}`);
  views(p, viewSet, fail, facts);
  margin(p, fail, facts);
  if (expect.environment != null) environment(p.environment, expect.environment, fail);
  const gate = get(p, 'adapter', 'gate');
  if (!finite(gate) || gate !== expect.gate) fail('gate', `certifies the adapter at gate ${gate}, not at gate ${expect.gate}`);
  if (expect.rows != null && !expect.rows.ok) {
    fail('rows', `is for a graph that is not shown to be row-independent: ${expect.rows.message}`);
  }
  return { ok: reasons.length === 0, reasons, facts };
}

function subjects(list, expect, fail) {
  const have = new Map();
  if (Array.isArray(list)) {
    for (const s of list) {
      const name = get(s, 'name'), digest = get(s, 'digest', 'sha256');
      if (typeof name === 'string' && typeof digest === 'string' && !have.has(name)) have.set(name, digest);
    }
  }
  const required = { ...expect.files, [RULE.view_set.name]: RULE.view_set.sha256 };
  for (const name of Object.keys(required).sort()) {
    if (!have.has(name)) fail('subject-missing', `does not cover ${name}, which the loader loads`);
    else if (have.get(name) !== required[name]) {
      fail('subject-digest', `names ${name} with sha256 ${short(have.get(name))}, the loaded file has ${short(required[name])}`);
    }
  }
}

function views(p, viewSet, fail, facts) {
  const sha = get(p, 'view_set', 'sha256'), count = get(p, 'view_set', 'count');
  if (sha !== RULE.view_set.sha256 || count !== RULE.view_set.count) {
    fail('view-set', `is for a view set of ${count} views (sha256 ${short(sha)}), not the shipped V of `
      + `${RULE.view_set.count} views (${short(RULE.view_set.sha256)})`);
  }
  const rows = p.per_view;
  if (!Array.isArray(rows)) { fail('per-view', 'has no per-view results'); return; }
  const seen = new Set(), foreign = [], dup = [], wrong = [], margins = [];
  for (const r of rows) {
    const key = get(r, 'view');
    if (typeof key !== 'string' || !viewSet.steps.has(key)) { foreign.push(String(key)); continue; }
    if (seen.has(key)) { dup.push(key); continue; }
    seen.add(key);
    const m = get(r, 'margin');
    if (get(r, 'got') !== viewSet.steps.get(key) || get(r, 'pass') !== true || !finite(m) || m <= 0) wrong.push(key);
    else margins.push(m);
  }
  const missing = viewSet.steps.size - seen.size;
  if (missing || foreign.length || dup.length) {
    const what = [missing ? `${missing} views of V missing` : '',
      foreign.length ? `${foreign.length} views not in V (first '${foreign[0]}')` : '',
      dup.length ? `${dup.length} views twice (first '${dup[0]}')` : ''];
    fail('per-view', `has results for ${rows.length} rows, not exactly the ${RULE.view_set.count} views of V: `
      + what.filter(Boolean).join(', '));
  }
  if (wrong.length) fail('failed-views', `${wrong.length} views do not pass (first: ${wrong.slice(0, 3).join(', ')})`);
  facts.min_margin = margins.length && !wrong.length ? Math.min(...margins) : null;
}

function margin(p, fail, facts) {
  const drift = get(p, 'drift', 'max_abs_logit_diff');
  if (!finite(drift) || drift < 0) {
    fail('margin', 'records no measured drift (drift.max_abs_logit_diff), so no margin rule can hold');
    return;
  }
  const need = marginRule(drift);
  Object.assign(facts, { drift, required_margin: need });
  const m = facts.min_margin;
  if (m != null && !(m > need)) {
    fail('margin', `smallest margin ${m.toFixed(4)} is not above ${RULE.drift_factor} x drift ${drift.toPrecision(3)} `
      + `+ floor ${RULE.margin_floor} = ${need.toFixed(4)}`);
  }
}

function environment(got, want, fail) {
  if (!got || typeof got !== 'object' || Array.isArray(got)) {
    fail('environment', 'records no environment (backend, provider, dtype, library, device)');
    return;
  }
  const differ = ENVIRONMENT_FIELDS.filter((k) => canonical(got[k]) !== canonical(want[k]));
  if (differ.length) {
    fail('environment', `was made in another environment: ${differ.map((k) => `${k} ${canonical(got[k])} here is ${canonical(want[k])}`).join('; ')}`);
  }
}

/** One sha256 for a manifest, as Python's Manifest.digest(): the cache key of a model. */
export async function manifestDigest(files) {
  return sha256Hex(Object.keys(files).sort().map((n) => `${n}\t${files[n]}\n`).join(''));
}
