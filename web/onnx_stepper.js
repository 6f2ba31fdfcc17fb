// web/onnx_stepper.js — the Sketchpad model in the browser (ONNX Runtime Web).
//
//   import { loadModel } from './onnx_stepper.js';
//   const model = await loadModel({ modelUrl: '/model/model.json', provider: 'auto' });
//   const steps = await model.stepper([['ADD', '1', '2', '_']]);   // -> [['3', '_', 'ADD']]
//   const { data, dims } = await model.logits(views);             // Float32Array [B * nSteps]
//   model.provider   // 'webgpu' or 'wasm' (what actually runs)
//   model.info       // { ortVersion, dtype, adapter, features, modelSha256, ... }
//
// model.json (written by `sketchpad export`) names the ONNX file, the step list (logit index ->
// [sym, flag, next]) and the tokenizer as a table: a template of token ids plus, per view field,
// the positions it owns and the ids each symbol puts there (export/encoding.py checks that this
// table equals the Python tokenizer on every possible view).  The graph takes input_ids
// [B, L] int64 and gate [1] float32 and returns step logits [B, nSteps].
//
// The graph is parsed here (onnx_proto.js) and checked for row independence (certify/rows.js)
// before anything certifies it: model.rows is that verdict.  External data files the graph
// names (plain file names beside model.json, nothing else) are fetched, hashed, compared with
// the sha256 and size model.json gives them (a tampered or incomplete file is refused) and
// handed to ONNX Runtime Web as the same bytes (its externalData option), like model.json and
// the graph.  A large model (over RULE.suite.large_model_bytes, e.g. the 0.8B-parameter one)
// runs at most model.maxBatch views at once, as in Python, and its files are read into one
// buffer of their announced size as they stream in (onDownload reports the bytes).
//
// Provider 'auto' picks WebGPU only when navigator.gpu offers a real adapter; a fallback
// adapter (SwiftShader, a CPU emulation) is ~50x slower than wasm, so it is used only when
// asked for explicitly ('webgpu').  ONNX Runtime Web's JS and wasm come from this server
// (/vendor/ort/, i.e. node_modules/onnxruntime-web/dist): nothing is fetched from elsewhere.

import { externalFiles, readModel } from './onnx_proto.js';
import { checkModel } from './certify/rows.js';
import { RULE } from './certify/policy.js';

const ORT_BASE = '/vendor/ort/';

async function gpuAdapter() {
  if (typeof navigator === 'undefined' || !navigator.gpu) return null;
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return null;
    const info = adapter.info || {};
    const fallback = Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter);
    return {
      adapter, fallback,
      info: { vendor: info.vendor || '', architecture: info.architecture || '', device: info.device || '',
              description: info.description || '', isFallbackAdapter: fallback },
      features: [...adapter.features].sort(),
    };
  } catch (e) {
    return null;
  }
}

async function chooseProvider(provider) {
  const gpu = await gpuAdapter();
  if (provider === 'wasm') return { provider: 'wasm', gpu: null };
  if (provider === 'webgpu') {
    if (!gpu) throw new Error('WebGPU was requested but this browser offers no adapter');
    return { provider: 'webgpu', gpu };
  }
  if (gpu && !gpu.fallback) return { provider: 'webgpu', gpu };
  return { provider: 'wasm', gpu: null };
}

function encoder(table) {
  // BigInt tables built once: a forward pass per view must not pay for conversions.
  const { length, template, fields } = table;
  const base = BigInt64Array.from(template.map(BigInt));
  const specs = ['op', 'a', 'b', 'c'].map((f) => ({
    positions: fields[f].positions,
    ids: Object.fromEntries(Object.entries(fields[f].ids).map(([sym, ids]) => [sym, ids.map(BigInt)])),
  }));
  return function encodeInto(out, row, view) {
    const at = row * length;
    out.set(base, at);
    for (let f = 0; f < 4; f++) {
      const spec = specs[f];
      const ids = spec.ids[view[f]];
      if (!ids) throw new Error(`the model cannot read symbol ${JSON.stringify(view[f])} in view ${view.join(' ')}`);
      for (let k = 0; k < spec.positions.length; k++) out[at + spec.positions[k]] = ids[k];
    }
  };
}

// wasm threads: 2 (the page is cross-origin isolated), or ?threads=N in the page's URL.
function defaultThreads() {
  const n = Number(typeof location === 'undefined' ? NaN : new URLSearchParams(location.search).get('threads'));
  return Number.isInteger(n) && n >= 1 && n <= 16 ? n : 2;
}

async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// This file's own source, hashed: the code that turns a view into a step here is a subject of
// every certificate the page writes ('sketchpad/web/onnx_stepper.js', as Python names it).
const CODE_NAME = 'sketchpad/web/onnx_stepper.js';
async function codeSha256() {
  const r = await fetch(import.meta.url);
  if (!r.ok) throw new Error(`cannot read the page's model code ${import.meta.url}: HTTP ${r.status}`);
  return sha256Hex(new Uint8Array(await r.arrayBuffer()));
}

/** The browser's name and full version (the reduced user agent string hides the version). */
async function browserIdentity() {
  const ua = typeof navigator === 'undefined' ? '' : navigator.userAgent;
  try {
    const hints = await navigator.userAgentData.getHighEntropyValues(['fullVersionList', 'architecture', 'bitness', 'platformVersion']);
    const brand = (hints.fullVersionList || []).find((b) => !/not.a.brand/i.test(b.brand) && b.brand !== 'Chromium')
      || (hints.fullVersionList || []).find((b) => !/not.a.brand/i.test(b.brand));
    return {
      browser: brand ? `${brand.brand} ${brand.version}` : ua, userAgent: ua,
      architecture: hints.architecture || null, bitness: hints.bitness || null, platformVersion: hints.platformVersion || null,
    };
  } catch {
    return { browser: ua, userAgent: ua, architecture: null, bitness: null, platformVersion: null };
  }
}

/** Where this stepper runs, in the fields the rule compares (sketchpad/model/environment.py). */
function environmentOf(provider, ortVersion, dtype, gpu, who, threads, maxBatch) {
  const adapter = gpu ? { ...gpu.info } : null;       // vendor, architecture, device, description, isFallbackAdapter
  return {
    backend: 'browser', execution_provider: provider, dtype,
    library: { browser: who.browser, 'onnxruntime-web': ortVersion },
    threads: { wasm: threads, cross_origin_isolated: globalThis.crossOriginIsolated === true, ...(maxBatch ? { max_batch: maxBatch } : {}) },
    device: {
      platform: navigator.userAgentData?.platform ?? navigator.platform ?? null, platform_version: who.platformVersion,
      architecture: who.architecture, bitness: who.bitness, cores: navigator.hardwareConcurrency ?? null,
      user_agent: who.userAgent, adapter,
    },
  };
}

/** A file name beside model.json: letters, digits, '.', '_', '-'; no folders, nothing hidden, nothing a
 *  URL reads otherwise (sketchpad/model/onnx_stepper.py's plain_name). */
const plainName = (name) => typeof name === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name);

/** A file's bytes; with a Content-Length, read into one buffer of that size as they arrive
 *  (a 750 MB weight file is never held twice), reporting progress as (loaded, total). */
async function fetchBytes(url, onDownload) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot load ${url}: HTTP ${r.status}`);
  const size = Number(r.headers.get('content-length'));
  if (!r.body || !Number.isSafeInteger(size) || size <= 0) return new Uint8Array(await r.arrayBuffer());
  const out = new Uint8Array(size);
  const reader = r.body.getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > size) throw new Error(`${url} is longer than the ${size} bytes its server announced`);
    out.set(value, at);
    at += value.length;
    onDownload?.(url, at, size);
  }
  if (at !== size) throw new Error(`${url} ended after ${at} of ${size} bytes`);
  return out;
}

/** An external data file must be the one model.json names (onnx_stepper.py's check_listed). */
function checkListed(meta, name, sha256, size) {
  const want = meta.external_data?.[name];
  if (!want || typeof want !== 'object') throw new Error(`model.json does not name the graph's external data file ${name} (sha256, bytes)`);
  if (want.sha256 !== sha256 || want.bytes !== size) {
    throw new Error(`${name} does not match model.json (${size.toLocaleString('en-US')} bytes, sha256 ${sha256.slice(0, 12)}…; `
      + `model.json: ${want.bytes} bytes, ${String(want.sha256).slice(0, 12)}…): a tampered or incomplete file is refused`);
  }
}

export async function loadModel({ modelUrl = '/model/model.json', provider = 'auto', gate, threads = defaultThreads(), onDownload } = {}) {
  const t0 = performance.now();
  const metaFetch = fetch(modelUrl);            // in flight while the runtime loads
  const codeHash = codeSha256();
  const chosen = await chooseProvider(provider);
  // The WebGPU build also runs the wasm EP; the plain wasm build is smaller, so load only what is used.
  const ort = await import(ORT_BASE + (chosen.provider === 'webgpu' ? 'ort.webgpu.min.mjs' : 'ort.wasm.min.mjs'));
  ort.env.wasm.wasmPaths = ORT_BASE;
  ort.env.wasm.numThreads = threads;    // 2: without it onnxruntime-web runs on one thread
  ort.env.logLevel = 'error';

  const metaResp = await metaFetch;
  if (!metaResp.ok) throw new Error(`cannot load ${modelUrl}: HTTP ${metaResp.status}`);
  const metaBytes = new Uint8Array(await metaResp.arrayBuffer());
  const metaSha256 = await sha256Hex(metaBytes);       // model.json is a certificate subject too
  const meta = JSON.parse(new TextDecoder().decode(metaBytes));
  if (!plainName(meta.onnx)) throw new Error(`${modelUrl} names no graph file beside it`);
  const onnxUrl = new URL(meta.onnx, new URL(modelUrl, location.href)).href;
  const bytes = await fetchBytes(onnxUrl, onDownload);
  const onnxSha256 = await sha256Hex(bytes);
  if (meta.onnx_sha256 && onnxSha256 !== meta.onnx_sha256) {
    throw new Error(`the ONNX file does not match model.json (sha256 ${onnxSha256.slice(0, 12)}…, expected ${meta.onnx_sha256.slice(0, 12)}…)`);
  }
  // The graph as the check reads it, and its verdict: the page's own, never the file's word.
  const graph = readModel(bytes);
  const rows = checkModel(graph, meta.encoding.length, meta.steps.length);
  delete rows.trace;
  const external = {};
  const externalSha256 = {};
  for (const name of externalFiles(graph)) {
    if (!plainName(name)) throw new Error(`the graph ${meta.onnx} names external data outside its directory: '${name}'`);
    external[name] = await fetchBytes(new URL(name, onnxUrl).href, onDownload);
    externalSha256[`onnx/${name}`] = await sha256Hex(external[name]);
    checkListed(meta, name, externalSha256[`onnx/${name}`], external[name].length);
  }
  const totalBytes = bytes.length + Object.values(external).reduce((a, b) => a + b.length, 0);
  const maxBatch = totalBytes > RULE.suite.large_model_bytes ? RULE.suite.large_max_batch : null;
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: [chosen.provider], graphOptimizationLevel: 'all',
    ...(Object.keys(external).length ? { externalData: Object.entries(external).map(([path, data]) => ({ path, data })) } : {}),
  });

  const L = meta.encoding.length;
  const nSteps = meta.steps.length;
  const encodeInto = encoder(meta.encoding);
  const gateTensor = new ort.Tensor('float32', Float32Array.of(gate ?? meta.gate ?? 1), [1]);
  const steps = meta.steps;
  let forwardPasses = 0;
  let queue = Promise.resolve();   // one session.run at a time (the wasm EP is not re-entrant)

  async function logits(views) {
    const B = views.length;
    if (B === 0) return { data: new Float32Array(0), dims: [0, nSteps] };
    if (maxBatch && B > maxBatch) {                   // a large model: never more than maxBatch at once
      const data = new Float32Array(B * nSteps);
      for (let i = 0; i < B; i += maxBatch) data.set((await logits(views.slice(i, i + maxBatch))).data, i * nSteps);
      return { data, dims: [B, nSteps] };
    }
    const ids = new BigInt64Array(B * L);
    for (let i = 0; i < B; i++) encodeInto(ids, i, views[i]);
    const feeds = { input_ids: new ort.Tensor('int64', ids, [B, L]), gate: gateTensor };
    const run = queue.then(() => session.run(feeds));
    queue = run.catch(() => {});
    const out = await run;
    const t = out[session.outputNames[0]];
    const data = t.data instanceof Float32Array ? t.data : Float32Array.from(t.data);
    forwardPasses += B;
    return { data, dims: [B, nSteps] };
  }

  async function stepper(views) {
    const { data } = await logits(views);
    const out = new Array(views.length);
    for (let i = 0; i < views.length; i++) {
      let best = 0;
      const row = i * nSteps;
      for (let k = 1; k < nSteps; k++) if (data[row + k] > data[row + best]) best = k;
      out[i] = steps[best];
    }
    return out;
  }

  const ortVersion = ort.env.versions?.web || ort.env.versions?.common || 'unknown';
  // Every file this loader read, by the names certificates use (Python's browser_manifest).
  const manifest = { 'onnx/model.json': metaSha256, [`onnx/${meta.onnx}`]: onnxSha256, ...externalSha256, [CODE_NAME]: await codeHash };
  const info = {
    provider: chosen.provider,
    ortVersion,
    dtype: meta.dtype || 'float32',
    numThreads: chosen.provider === 'wasm' ? ort.env.wasm.numThreads : undefined,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    adapter: chosen.gpu ? chosen.gpu.info : null,
    features: chosen.gpu ? chosen.gpu.features : null,
    onnxSha256, onnxUrl, metaSha256, meta,
    gate: gateTensor.data[0],
    bytes: totalBytes, maxBatch,
    loadMs: performance.now() - t0,
  };
  const who = await browserIdentity();
  return {
    stepper, logits, provider: chosen.provider, info, steps, meta, manifest, rows, maxBatch,
    environment: environmentOf(chosen.provider, ortVersion, info.dtype, chosen.gpu, who, info.numThreads ?? null, maxBatch),
    get forwardPasses() { return forwardPasses; },
    release: () => session.release(),
  };
}

// The view set V with each view's expected step, as the server publishes it (GET /api/views).
export async function loadViewSet(url = '/api/views') {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot load the view set from ${url}: HTTP ${r.status}`);
  return r.json();
}
