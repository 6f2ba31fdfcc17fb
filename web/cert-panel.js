// The certification panel and the page's certificate status.
//
// A certificate counts for this page only when it passed every view of the current view set,
// names this model's ONNX file by its sha256, and ran with the execution provider in use (and,
// for WebGPU, the same adapter) in a browser like this one.  Certificates come from this
// browser's earlier runs (localStorage) and from the server's record (GET /api/certificates).
// Running the suite here stores the new certificate in localStorage and POSTs it to the server.

const $ = (id) => document.getElementById(id);
const storageKey = (model) => `sketchpad.certificate.${model.info.onnxSha256}.${model.provider}`;

/** The fields a status check needs, read from a certificate (an in-toto statement). */
export function certificateFacts(cert) {
  const p = cert?.predicate || {};
  const r = p.result || {};
  const device = p.backend?.device || {};
  const views = Number(r.views);
  const passedViews = typeof r.passed === 'number' ? r.passed : r.passed_views;
  const failed = Number(r.failed_views ?? r.failed ?? (views - passedViews));
  return {
    passed: views > 0 && passedViews === views && failed === 0 && r.passed !== false,
    views, passedViews,
    digests: (cert?.subject || []).map((s) => s?.digest?.sha256).filter(Boolean),
    viewSetSha256: p.view_set?.sha256 ?? null,
    provider: device.provider ?? device.execution_provider ?? p.backend?.provider ?? null,
    userAgent: device.user_agent ?? device.userAgent ?? null,
    adapter: device.adapter ?? null,
    minMargin: r.min_margin ?? null,
    minMarginView: r.min_margin_view ?? null,
    when: p.time?.finished ?? p.time?.started ?? null,
  };
}

/** Does this certificate vouch for `model` as loaded in this page? */
export function certifies(cert, model, viewSetSha256 = null) {
  const f = certificateFacts(cert);
  if (!f.passed || !f.digests.includes(model.info.onnxSha256) || f.provider !== model.provider) return false;
  if (viewSetSha256 && f.viewSetSha256 && f.viewSetSha256 !== viewSetSha256) return false;
  if (model.provider === 'webgpu' && JSON.stringify(f.adapter) !== JSON.stringify(model.info.adapter)) return false;
  return true;
}

/** {ok, source, facts} for the loaded model: a passing certificate here, or why there is none. */
export async function checkCertificate(model, viewSetSha256 = null) {
  if (!model) return { ok: false, source: null, reason: 'no model loaded' };
  let local = null;
  try {
    local = JSON.parse(localStorage.getItem(storageKey(model)) || 'null');
  } catch { local = null; }
  if (local && certifies(local, model, viewSetSha256)) return { ok: true, source: 'this browser', facts: certificateFacts(local) };
  try {
    const resp = await fetch('/api/certificates');
    if (resp.ok) {
      const { certificates = [] } = await resp.json();
      const ua = navigator.userAgent;
      const mine = certificates.find((rec) => rec.passed && certifies(rec.certificate, model, viewSetSha256)
        && certificateFacts(rec.certificate).userAgent === ua);
      if (mine) return { ok: true, source: `the server's record #${mine.id}`, facts: certificateFacts(mine.certificate) };
      const other = certificates.find((rec) => rec.passed && certifies(rec.certificate, model, viewSetSha256));
      if (other) return { ok: false, source: null, reason: `a passing certificate for ${model.provider} exists from another browser (${certificateFacts(other.certificate).userAgent || 'unknown'}), not from this one` };
    }
  } catch { /* no server record: only this browser's own runs count */ }
  return { ok: false, source: null, reason: local ? 'the certificate stored in this browser did not pass or is for another model' : null };
}

export function describeStatus(status, model) {
  if (!model) return { text: 'No model is loaded.', cls: 'cert-no' };
  if (status.ok) {
    const f = status.facts;
    const margin = typeof f.minMargin === 'number' ? `, smallest margin ${f.minMargin.toFixed(3)}` : '';
    return {
      text: `Certified on this device: this model passed all ${f.views.toLocaleString('en-US')} views with the ${model.provider} `
        + `provider${margin} (certificate from ${status.source}${f.when ? `, ${f.when}` : ''}). Its answers here are exact at every length.`,
      cls: 'cert-yes',
    };
  }
  return {
    text: `Not certified on this device: no passing certificate for this model with the ${model.provider} provider`
      + `${status.reason ? ` (${status.reason})` : ''}. Run the certification suite below before trusting its answers.`,
    cls: 'cert-no',
  };
}

function download(cert) {
  const link = $('cert-download');
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([JSON.stringify(cert, null, 1)], { type: 'application/json' }));
  const f = certificateFacts(cert);
  link.download = `certificate-browser-${f.provider}-${(f.digests[0] || 'model').slice(0, 12)}.json`;
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

/** Wire the #certify button: run every view of V through the model and show the result. */
export function setupCertification({ getModel, getViewSet, onCertified }) {
  $('certify').addEventListener('click', async () => {
    const model = getModel();
    if (!model) return;
    $('certify').disabled = true;
    $('solve').disabled = true;
    $('cert-failures').textContent = '';
    $('cert-download').hidden = true;
    $('cert-upload').textContent = '';
    $('cert-result').className = 'cert-result';
    document.body.dataset.certState = 'running';
    try {
      const viewSet = await getViewSet();
      $('cert-progress').max = viewSet.views.length;
      $('cert-progress').value = 0;
      $('cert-result').textContent = `Checking ${viewSet.views.length.toLocaleString('en-US')} views with ${model.provider}…`;
      // Loaded on first use: solving never depends on the certification code.
      const { certifyInPage } = await import('./certify.js');
      const t0 = performance.now();
      const cert = await certifyInPage({
        model, views: viewSet,
        onProgress: (done, total) => {     // total counts every view at every batch size
          $('cert-progress').max = total;
          $('cert-progress').value = done;
          $('cert-result').textContent = `Checking views with ${model.provider}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
        },
      });
      const ms = performance.now() - t0;
      const f = certificateFacts(cert);
      const failures = cert.predicate?.result?.failures || [];
      $('cert-result').textContent = `${f.passedViews}/${f.views} views passed · smallest margin `
        + `${typeof f.minMargin === 'number' ? f.minMargin.toFixed(4) : 'n/a'} at [${[].concat(f.minMarginView ?? []).join(' ')}] · `
        + `provider ${model.provider} · ${(ms / 1000).toFixed(2)} s`;
      $('cert-result').classList.add(f.passed ? 'pass' : 'fail');
      for (const x of failures.slice(0, 50)) {
        const li = document.createElement('li');
        li.textContent = `view [${[].concat(x.view).join(' ')}]: expected ${[].concat(x.expected).join(' ')}, got ${[].concat(x.got).join(' ')}`;
        $('cert-failures').append(li);
      }
      download(cert);
      if (f.passed) localStorage.setItem(storageKey(model), JSON.stringify(cert));
      else localStorage.removeItem(storageKey(model));
      $('cert-upload').textContent = await record(cert);
      await onCertified();
      // Set last, so that a test waiting for it finds the status line already updated.
      document.body.dataset.certState = f.passed ? 'passed' : 'failed';
    } catch (e) {
      $('cert-result').textContent = `Certification could not run: ${e.message}`;
      $('cert-result').classList.add('fail');
      document.body.dataset.certState = 'error';
      console.error(e);
    } finally {
      $('certify').disabled = false;
      $('solve').disabled = false;
    }
  });
}
