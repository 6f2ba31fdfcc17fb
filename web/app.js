// The Sketchpad page: solve a problem with the model in this browser, drawing the sheet as
// the fixed runtime moves the three-cell view, and certify the model on this device.
//
// Element ids (stable: the browser tests drive them)
//   #expr            the problem (the CLI's expression language)
//   #solve           solve button (disabled until a stepper is ready and while solving)
//   #answer          the answer, a decimal string, once solved (empty otherwise)
//   #answer-digits   how many digits it has; #copy copies exactly the answer (sign and digits);
//                    #download-png the whole sheet as a PNG; #copy-status what they did
//   #error           a clear message for bad input or a failed solve (hidden when none); a new
//                    problem or a passing certification clears it
//   #sheet           the worksheet drawing (a canvas), view cells highlighted as they are read;
//                    cleared when a new problem starts (data-lines="0" when nothing is drawn)
//   #on-server       solve on the server (POST /api/solve/stream, progress as server-sent events)
//                    instead of in this page; the default is this page
//   #view-line       the last view read and the step the model emitted, as text
//   #counters        forward passes (rows the model computed) #c-passes, views presented
//                    #c-presented, batches #c-batches, distinct views #c-views,
//                    model time #c-model-ms, wall time #c-time
//   #speed           animation speed (0 slowest .. 6 no delay); #speed-label says it in words
//   #skip            "Skip to answer": stop drawing and finish at full speed
//   #sequential      one view per forward pass instead of carry-select batches
//   #allow-uncertified  solve although the model has no passing certificate here
//   #examples        example problems (buttons)
//   #model-status    which model and execution provider are loaded
//   #variant-status  which of the served variants runs (the smallest not known to fail its suite
//                    here; variants.js) and what is known of the others; data-variant on <body>
//   #load-progress   the model's download, for a large one
//   #cert-status     whether this model has a passing certificate on this device/provider
//   #certify         "Run certification suite"; #cert-progress its progress bar
//   #solve-progress  a solve's progress: batches over the estimate of the batches it will take
//                    (estimate.js in the page, sketchpad/estimate.py on the server)
//   #cert-result     "N/N views passed", smallest margin, provider, time
//   #cert-failures   failing views, if any; #cert-download the certificate JSON
//   #cert-provider   the execution provider the suite runs on; #cert-upload server record
//   #debug-banner    shown when a debugging stepper replaces the model
//   #model-confirm   the prompt for a ?model= on another origin: #model-confirm-origin names it,
//                    #model-confirm-load loads it, #model-confirm-cancel keeps this site's model
// State for tests: <body data-state="loading|confirm|ready|certifying|solving|done|error|failed">,
// data-certified="yes|no|unknown" and data-cert-state="running|passed|failed|error";
// data-solved-on="page|server", data-model-in="worker|page" (where a page solve's model calls ran),
// data-progress-percent (the last estimated percentage) and, for a
// server solve, data-progress-events (how many came).  A page solve runs the runtime in a Web
// Worker (worker-client.js, solve-worker.js): the tab stays responsive while it works.
//
// URL parameters: ?provider=auto|wasm|webgpu, ?model=URL of model.json (another origin only after
// the user confirms #model-confirm, which names it), ?variant=float32|float16|int8 (pin one of the
// served variants), ?allow-uncertified=1,
// ?speed=0..6, ?expr=..., ?server=1 (solve on the server), and for debugging only ?stepper=reference (the reference table from
// /api/views instead of the model, with a visible banner).

import { checkCertificate, describeStatus, runSuite, setupCertification } from './cert-panel.js';
import { caretLines, parse } from './expr.js';
import { loadModel, loadViewSet } from './onnx_stepper.js';
import { serverInfo, solveOnServer } from './server-solve.js';
import { expectedBatches } from './estimate.js';
import { loadWorkerModel, solveInWorker, startWorker } from './worker-client.js';
import { copyAnswer, downloadSheet } from './answer-actions.js';
import { SheetView } from './sheet-view.js';
import { tableStepper } from './reference.js';
import { describeVariants, firstUntried, listVariants, megabytes, nextAfter, rememberFailure } from './variants.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const SPEEDS = [2, 6, 20, 60, 200, 1000, Infinity];     // batches per second, by #speed
const EXAMPLES = [
  ['1,000-digit sum', `${'9'.repeat(1000)} + 1`],
  ['20 × 20 digits', '31415926535897932384 * 27182818284590452353'],
  ['signed', '-98765 + 12345 - -500'],
  ['division', '98765432109876543210 // -1234567'],
  ['remainder', '-98765432109876543210 % 1234567'],
  ['square root', 'sqrt(200000000000000000000)'],
  ['gcd', 'gcd(1071, 462)'],
  ['mixed', '(12 + 34) * -(56 - 78) // 9 + gcd(84, 36)'],
];

const state = {
  stepper: null, model: null, viewSet: null, certified: null, solving: false, skip: false, variants: null, variant: null,
};
const sheetView = new SheetView($('sheet'));

function setState(s) { document.body.dataset.state = s; }

function showError(message, { text = null, column = null } = {}) {
  $('error').textContent = message;
  $('error').hidden = !message;
  if (!message || !column) return;
  // Point at the column: the text and a caret under the message, and the character selected.
  const at = document.createElement('code');
  at.className = 'error-at';
  at.textContent = caretLines(text, column);
  $('error').append(at);
  const before = Array.from(text).slice(0, column - 1).join('').length;     // code points -> UTF-16
  $('expr').focus();
  $('expr').setSelectionRange(before, before + (Array.from(text)[column - 1]?.length ?? 0));
}

// ---------------------------------------------------------------- the answer and its tools

/** A new problem: nothing of the previous one (answer, error, sheet) stays on the page. */
function clearResult() {
  showError('');
  $('answer').textContent = '';
  $('answer-digits').textContent = '';
  $('copy').disabled = true;
  $('download-png').disabled = true;
  $('copy-status').textContent = '';
  sheetView.clear();
  setCounters({});  // a bad input shows no counters of the solve before it
}

function showAnswer(value, { sheet = true } = {}) {
  $('answer').textContent = value;
  const n = value.replace(/^-/, '').length;
  $('answer-digits').textContent = `${n.toLocaleString('en-US')} digit${n === 1 ? '' : 's'}`;
  $('copy').disabled = false;
  $('download-png').disabled = !sheet;
}

function fmtMs(ms) { return ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(2)} s`; }

function setCounters({ forwardPasses = 0, viewsPresented = 0, batches = 0, views = 0, modelMs = 0, ms = 0 }) {
  $('c-passes').textContent = forwardPasses.toLocaleString('en-US');
  $('c-presented').textContent = viewsPresented.toLocaleString('en-US');
  $('c-batches').textContent = batches.toLocaleString('en-US');
  $('c-views').textContent = views.toLocaleString('en-US');
  $('c-model-ms').textContent = fmtMs(modelMs);
  $('c-time').textContent = fmtMs(ms);
}

function speedLabel() {
  const s = SPEEDS[Number($('speed').value)];
  $('speed-label').textContent = s === Infinity ? 'no delay' : `${s} batches/s`;
}

// ---------------------------------------------------------------- the stepper

async function loadStepper() {
  if (params.get('stepper') === 'reference') {
    // Debugging only: the reference steps as a table, so the page runs without a model.
    const banner = $('debug-banner');
    banner.textContent = 'DEBUG: the reference table stepper answers here, not the model (?stepper=reference). '
      + 'Nothing on this page is computed by the network.';
    banner.hidden = false;
    state.viewSet = await loadViewSet();
    state.stepper = tableStepper(state.viewSet.views);
    $('model-status').textContent = `Stepper: reference table (${state.viewSet.count} views) — not the model.`;
    state.certified = { ok: true, debug: true };
    document.body.dataset.certified = 'unknown';
    $('cert-status').textContent = 'No certificate applies: the reference table is the specification itself.';
    $('cert-status').className = 'status cert-unknown';
    $('allow-label').hidden = true;
    return;
  }
  const provider = params.get('provider') || 'auto';
  let url;
  if (!params.get('model')) {
    state.variants = await listVariants();
    const pinned = params.get('variant');
    if (pinned && !state.variants?.some((v) => v.name === pinned)) throw new Error(`this server offers no variant ${JSON.stringify(pinned)}`);
    state.variant = state.variants && (pinned ? state.variants.find((v) => v.name === pinned) : await firstUntried(state.variants, provider));
    url = state.variant?.url;
  }
  await loadVariant(url || await modelUrl(), provider);
}

/** Load the model at `url` (a variant's model.json) and show what runs. */
async function loadVariant(url, provider) {
  state.model?.release?.();
  state.model = null;
  const bar = $('load-progress');
  const model = await loadModel({
    modelUrl: url, provider,
    onDownload: (file, loaded, total) => {
      if (total < 32e6) return;                      // a small model needs no bar
      bar.hidden = false;
      bar.max = total;
      bar.value = loaded;
      $('model-status').textContent = `Downloading ${file.split('/').pop()}: ${megabytes(loaded)} of ${megabytes(total)}`;
    },
  });
  bar.hidden = true;
  state.model = model;
  state.stepper = model.stepper;
  // The solving worker loads the same model (checked file by file) so model calls run there too.
  state.workerModel = loadWorkerModel({ modelUrl: new URL(url, location.href).href, provider: model.provider,
    threads: model.info.numThreads }, model).catch(() => false);
  const i = model.info;
  const adapter = i.adapter ? ` on ${i.adapter.description || i.adapter.vendor || 'GPU'}${i.adapter.isFallbackAdapter ? ' (fallback adapter)' : ''}` : '';
  $('model-status').textContent = `Model ${i.onnxSha256.slice(0, 12)}… (${i.dtype}, ${megabytes(i.bytes)}) loaded in ${fmtMs(i.loadMs)} · `
    + `execution provider ${model.provider}${adapter} · onnxruntime-web ${i.ortVersion}`
    + (model.provider === 'wasm' ? ` · ${i.numThreads} threads${i.crossOriginIsolated ? '' : ' (not cross-origin isolated)'}` : '')
    + (model.maxBatch ? ` · at most ${model.maxBatch} views per run` : '');
  $('cert-provider').textContent = `provider: ${model.provider}`;
  document.body.dataset.variant = state.variant?.name ?? '';
  await showVariants();
  await refreshCertStatus();
}

async function showVariants(note = '') {
  const line = state.variant ? await describeVariants(state.variants, state.variant, params.get('provider') || 'auto') : '';
  $('variant-status').textContent = [note, line].filter(Boolean).join(' ');
  $('variant-status').hidden = !line && !note;
}

/** After a failed suite: remember it, and move to the next larger variant (unless one is pinned).
 *  Returns whether another variant is now loaded. */
async function nextVariant(status) {
  const provider = params.get('provider') || 'auto';
  if (!state.variant || params.get('variant') || !(status?.cert || status?.refused)) return false;
  await rememberFailure(state.variant, provider, status.cert);
  const failed = state.variant;
  const next = await nextAfter(state.variants, failed, provider);
  if (!next) { await showVariants(); return false; }
  const r = status.cert?.predicate.result;
  state.variant = next;
  await loadVariant(next.url, provider);
  await showVariants(`The ${failed.name} variant ${r ? `failed its suite here (${r.passed_views}/${r.views} views)` : 'was refused'}: `
    + `it is never used; running ${next.name} instead.`);
  return true;
}

/** The model to load: this site's, or one ?model= names on this origin; a model on another origin
 *  only when the user confirms a prompt that names that origin (its publisher is not this site). */
async function modelUrl() {
  const own = '/model/model.json';
  const asked = params.get('model');
  if (!asked) return own;
  let url;
  try {
    url = new URL(asked, location.href);
  } catch {
    throw new Error(`?model= is not a URL: ${asked}`);
  }
  if (url.origin === location.origin) return url.href;
  const box = $('model-confirm');
  $('model-confirm-origin').textContent = url.origin;
  box.hidden = false;
  setState('confirm');
  const yes = await new Promise((resolve) => {
    $('model-confirm-load').onclick = () => resolve(true);
    $('model-confirm-cancel').onclick = () => resolve(false);
  });
  box.hidden = true;
  setState('loading');
  if (!yes) {
    $('model-status').textContent = `Not loading the model from ${url.origin}: using this site's model.`;
    return own;
  }
  return url.href;
}

async function viewRows() {
  state.viewSet ||= await loadViewSet();
  return state.viewSet.views;
}

async function refreshCertStatus() {
  state.certified = await viewRows().then((rows) => checkCertificate(state.model, rows))
    .catch((e) => ({ ok: false, reason: e.message }));
  const { text, cls } = describeStatus(state.certified, state.model);
  $('cert-status').textContent = text;
  $('cert-status').className = `status ${cls}`;
  document.body.dataset.certified = state.certified.ok ? 'yes' : 'no';
  $('allow-label').hidden = state.certified.ok;
  // A passing certificate answers whatever went wrong before it (e.g. "no passing certificate"):
  // no old red message stays under the green status.
  if (state.certified.ok && !state.solving) showError('');
}

// ---------------------------------------------------------------- solving

async function onSolve(ev) {
  ev.preventDefault();
  if (state.solving || !state.stepper) return;
  clearResult();
  $('view-line').textContent = '';
  document.body.dataset.solvedOn = $('on-server').checked ? 'server' : 'page';
  try {
    parse($('expr').value);              // bad input is answered at once, before any certification
  } catch (e) {
    if (e.name !== 'InputError') throw e;
    showError(e.message, { text: $('expr').value, column: e.column });
    setState('error');
    return;
  }
  if ($('on-server').checked) { await solveRemotely($('expr').value); return; }
  if (!state.certified?.ok && !$('allow-uncertified').checked) {
    // A device without a certificate of its own certifies itself before its first solve.
    setState('certifying');
    $('view-line').textContent = `Certifying this model on this device first (${state.viewSet?.count ?? ''} views)…`;
    let rows;
    try {
      rows = await viewRows();
    } catch (e) {
      showError(`Certification could not start: ${e.message}`);
      setState('failed');
      return;
    }
    let status = await runSuite({ model: state.model, rows, force: false, after: refreshCertStatus });
    while (!status.ok && await nextVariant(status).catch(() => false)) {
      $('view-line').textContent = `Certifying the ${state.variant.name} variant on this device first…`;
      status = await runSuite({ model: state.model, rows, force: false, after: refreshCertStatus });
    }
    if (!status.ok) {
      const fails = status.cert?.predicate.result.failures || [];
      showError(`This model does not pass certification on this device with the ${state.model?.provider} provider`
        + (fails.length ? `: ${fails.length} views fail, e.g. [${fails.slice(0, 3).map((f) => f.view).join('], [')}]` : '')
        + (status.verdict?.reasons.length ? ` (${status.verdict.reasons.map(([, m]) => m)[0]})` : '')
        + (status.refused ? ` (its graph is not shown to be row-independent: ${status.refused.message})` : '')
        + (status.error ? ` (${status.error.message})` : '')
        + '. Tick "solve without a passing certificate" to run it anyway.');
      setState('error');
      return;
    }
    $('view-line').textContent = '';
  }
  state.solving = true;
  state.skip = false;
  $('solve').disabled = true;
  $('skip').disabled = false;
  $('certify').disabled = true;
  setState('solving');
  setCounters({});
  $('view-line').textContent = '';
  const t0 = performance.now();
  let shown = null;
  const expr = $('expr').value;
  const parallel = !$('sequential').checked;
  const expected = expectedBatches(parse(expr), parallel);
  const bar = $('solve-progress');
  bar.value = 0;
  bar.hidden = false;
  document.body.dataset.progressPercent = '0';

  // The runtime runs in a Web Worker (worker-client.js): the page only draws and runs the model.
  const onBatch = async (sheet, c, highlight, text) => {
    const percent = Math.min(99, Math.floor(100 * c.batches / Math.max(1, expected)));
    bar.value = percent;
    document.body.dataset.progressPercent = String(percent);
    const delay = state.skip ? 0 : 1000 / SPEEDS[Number($('speed').value)];
    if (shown !== sheet) { shown = sheet; sheetView.show(sheet); }
    if (!state.skip) {
      setCounters({ forwardPasses: c.forwardPasses, viewsPresented: c.viewsPresented, batches: c.batches, views: c.views, modelMs: c.stepperMs, ms: performance.now() - t0 });
      if (highlight) sheetView.highlightCells(highlight.light, highlight.strong);
      else sheetView.update();
      $('view-line').textContent = `batch ${c.batches.toLocaleString('en-US')} of ~${expected.toLocaleString('en-US')} (~${percent}%, an estimate)`
        + ` · ${c.viewsPresented.toLocaleString('en-US')} views presented${text ? ` · ${text}` : ''}`;
    }
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  };

  try {
    const own = state.model !== null && state.stepper === state.model.stepper && await state.workerModel;
    document.body.dataset.modelIn = own ? 'worker' : 'page';     // where the model's calls run (tests)
    const r = await solveInWorker(expr, state.stepper, { parallel, animate: SPEEDS[Number($('speed').value)] !== Infinity, onBatch, own });
    bar.value = 100;
    document.body.dataset.progressPercent = '100';
    document.body.dataset.modelMs = String(Math.round(r.stepperMs));
    showAnswer(r.value);
    setCounters({ forwardPasses: r.forwardPasses, viewsPresented: r.viewsPresented, batches: r.batches, views: r.distinctViews, modelMs: r.stepperMs, ms: performance.now() - t0 });
    sheetView.show(r.sheet);
    sheetView.scrollToEnd();
    $('view-line').textContent = `done: ${r.batches} batches, ${r.forwardPasses} forward passes, ${r.viewsPresented} views presented`;
    setState('done');
  } catch (e) {
    if (e.sheet) { sheetView.show(e.sheet); sheetView.scrollToEnd(); }
    $('view-line').textContent = e.counters ? `stopped after ${e.counters.batches} batches` : '';
    if (e.counters) {
      const c = e.counters;
      setCounters({ forwardPasses: c.forwardPasses, viewsPresented: c.viewsPresented, batches: c.batches, views: c.views, modelMs: c.stepperMs, ms: performance.now() - t0 });
    }
    if (e.name === 'InputError') { showError(e.message); setState('error'); }
    else if (e.name === 'StepperFault') { showError(`The model made a step the runtime cannot follow (a stepper fault): ${e.message}`); setState('failed'); }
    else { showError(`Solving failed: ${e.message}`); setState('failed'); console.error(e); }
  } finally {
    bar.hidden = true;
    state.solving = false;
    $('solve').disabled = false;
    $('skip').disabled = true;
    $('certify').disabled = !state.model;
  }
}

// ---------------------------------------------------------------- solving on the server

/** Solve with the server's stepper, showing its progress events; the sheet is not drawn here. */
async function solveRemotely(expr) {
  state.solving = true;
  $('solve').disabled = true;
  $('certify').disabled = true;
  setState('solving');
  setCounters({});
  const t0 = performance.now();
  let events = 0;
  document.body.dataset.progressEvents = '0';
  let who = 'the server';
  try {
    const h = await serverInfo();
    who = h.stepper === 'reference'
      ? "the server's reference stepper (the specification itself, not the model)"
      : `the server's model (${h.backend || h.stepper}${h.certificate?.source ? `, certificate ${h.certificate.source} on the server` : ''})`;
  } catch { /* the solve request below says what is wrong */ }
  $('view-line').textContent = `Sent to ${who}…`;
  const onProgress = (event, p) => {
    document.body.dataset.progressEvents = String(++events);
    if (event !== 'progress') return;
    const b = p.budget;
    const bar = $('solve-progress');
    bar.hidden = p.queued || p.percent == null;
    if (p.percent != null) bar.value = p.percent;
    document.body.dataset.progressPercent = p.percent == null ? '' : String(p.percent);
    const estimate = p.percent == null ? '' : ` of ~${p.expected_batches.toLocaleString('en-US')} (~${p.percent}%, an estimate)`;
    $('view-line').textContent = p.queued
      ? `waiting for a free slot on the server · ${(p.seconds).toFixed(1)} s of the ${b.seconds} s budget`
      : `on ${who}: batch ${p.batches.toLocaleString('en-US')}${estimate} · ${p.forward_passes.toLocaleString('en-US')} forward passes · `
        + `${p.distinct_views.toLocaleString('en-US')} distinct views · ${p.seconds.toFixed(1)} s `
        + `(budget: ${Math.round(100 * b.share_used)}% used)`;
    setCounters({ forwardPasses: p.forward_passes, viewsPresented: p.views_presented ?? 0, batches: p.batches, views: p.distinct_views, modelMs: 0, ms: performance.now() - t0 });
  };
  try {
    const r = await solveOnServer(expr, { parallel: !$('sequential').checked, onProgress });
    showAnswer(r.result, { sheet: false });
    setCounters({ forwardPasses: r.forward_passes, viewsPresented: r.views_presented ?? 0, batches: r.batches, views: r.distinct_views, modelMs: r.stepper_seconds * 1000, ms: performance.now() - t0 });
    $('view-line').textContent = `done on ${who}: ${r.batches.toLocaleString('en-US')} batches, `
      + `${r.forward_passes.toLocaleString('en-US')} forward passes (the sheet is drawn only when the page solves)`;
    setState('done');
  } catch (e) {
    $('view-line').textContent = '';
    const retry = e.retryAfter ? ` (try again in ${e.retryAfter} s)` : '';
    showError(e.name === 'InputError' ? e.message : `Solving on the server failed: ${e.message}${retry}`);
    setState(e.name === 'InputError' ? 'error' : 'failed');
  } finally {
    $('solve-progress').hidden = true;
    state.solving = false;
    $('solve').disabled = false;
    $('certify').disabled = !state.model;
  }
}

// ---------------------------------------------------------------- wiring

function init() {
  setState('loading');
  if (params.has('expr')) $('expr').value = params.get('expr');
  if (params.has('speed')) $('speed').value = params.get('speed');
  if (params.get('allow-uncertified') === '1') $('allow-uncertified').checked = true;
  if (params.get('server') === '1') $('on-server').checked = true;
  speedLabel();
  for (const [label, expr] of EXAMPLES) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.title = expr.length > 80 ? `${expr.slice(0, 77)}…` : expr;
    b.addEventListener('click', () => { $('expr').value = expr; $('expr').focus(); });
    $('examples').append(b);
  }
  $('speed').addEventListener('input', speedLabel);
  $('skip').addEventListener('click', () => { state.skip = true; $('skip').disabled = true; });
  $('problem-form').addEventListener('submit', onSolve);
  $('copy').addEventListener('click', () => copyAnswer($('answer'), $('copy-status')));
  $('download-png').addEventListener('click', () => downloadSheet(sheetView, $('copy-status')));
  setupCertification({
    getModel: () => state.model, getRows: viewRows,
    onCertified: async (status) => {
      await refreshCertStatus();
      if (!status?.ok) await nextVariant(status).catch(() => false);   // a failed variant is never used
    },
  });
  startWorker().catch((e) => console.error(e));      // the solving worker's modules, loaded while online
  loadStepper().then(() => {
    $('solve').disabled = false;
    $('certify').disabled = !state.model;
    setState('ready');
  }).catch((e) => {
    $('model-status').textContent = `The model could not be loaded: ${e.message}`;
    $('model-status').classList.add('bad');
    $('cert-status').textContent = 'No model, so nothing can be certified or solved here.';
    $('cert-status').className = 'status cert-no';
    document.body.dataset.certified = 'no';
    showError(`The model could not be loaded: ${e.message}`);
    setState('failed');
    console.error(e);
  });
}

init();
