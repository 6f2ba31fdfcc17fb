// web/variants.js — which of the served model's variants this page runs (UI policy; what may run
// is still certify/certified.js's decision alone).
//
// `sketchpad export --dtype float16 --quantize int8` writes onnx-float16/ and onnx-int8/ beside
// the float32 export; the server serves them at /model-<name>/ and lists them in /api/model with
// their sizes.  Each is a model of its own with its own certificate.  The page runs the smallest
// whose certificate holds on this device: it starts with the smallest it has not seen fail here,
// and when that one's suite fails it remembers so (IndexedDB, per variant, file digest and
// execution provider) and moves to the next larger one.  A failed variant is never used to
// solve.  ?variant=NAME pins one (and ?model=URL bypasses the list).
//
//   const list = await listVariants();                    // [{name, url, dtype, bytes, sha256}] smallest first, or null
//   const v = await firstUntried(list, provider);         // the variant to load now
//   await rememberFailure(v, provider, cert);            // its suite failed here
//   const next = await nextAfter(list, v, provider);      // the next larger one not failed here, or null

import { VARIANTS, transact } from './certify/cache.js';

const slot = (v, provider) => `${v.name}|${v.sha256}|${provider}`;

/** The served variants, smallest download first (null when the server lists none). */
export async function listVariants() {
  try {
    const r = await fetch('/api/model');
    if (!r.ok) return null;
    const list = (await r.json()).variants;
    if (!Array.isArray(list) || list.length === 0) return null;
    return [...list].sort((a, b) => a.bytes - b.bytes || a.name.localeCompare(b.name));
  } catch {
    return null;
  }
}

/** What this browser remembers of a variant's suite here: {failed, views, at} or null. */
export async function verdictHere(v, provider) {
  return transact(VARIANTS, 'readonly', (s) => s.get(slot(v, provider))).catch(() => null);
}

export async function rememberFailure(v, provider, cert) {
  const r = cert?.predicate?.result;
  const record = { failed: true, views: r ? `${r.passed_views}/${r.views}` : null, at: new Date().toISOString() };
  await transact(VARIANTS, 'readwrite', (s) => s.put(record, slot(v, provider))).catch(() => {});
}

/** The smallest variant not known to fail here (the smallest of all when every one has failed). */
export async function firstUntried(list, provider) {
  for (const v of list) if (!(await verdictHere(v, provider))?.failed) return v;
  return list[0];
}

export async function nextAfter(list, v, provider) {
  for (const w of list.slice(list.indexOf(v) + 1)) if (!(await verdictHere(w, provider))?.failed) return w;
  return null;
}

export const megabytes = (n) => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: n < 1e7 ? 2 : 0 })} MB`;

/** One line on the variants: which runs, and why. */
export async function describeVariants(list, current, provider) {
  if (!list || list.length < 2) return '';
  const parts = [];
  for (const v of list) {
    const seen = await verdictHere(v, provider);
    const note = v === current ? 'running' : seen?.failed ? `failed its suite here (${seen.views} views)` : 'not tried here';
    parts.push(`${v.name} ${megabytes(v.bytes)}: ${note}`);
  }
  return `Variant ${current.name} (${megabytes(current.bytes)}): the smallest of ${list.length} not known to fail `
    + `certification on this device with ${provider} · ${parts.join(' · ')}`;
}
