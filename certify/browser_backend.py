"""The "browser" certification backend: the page's own suite in headless Chromium.

`certify_in_browser(model_dir)` starts the server on 127.0.0.1 (an ephemeral port, a
throw-away certificate database), opens the page in Debian's chromium through Playwright,
clicks the page's "Run certification suite" button and returns the certificate the page
produced (web/certify.js: same schema as certify/run.py).  The ONNX graph it certifies is
model_dir/onnx/model.onnx, run by onnxruntime-web with the wasm provider (or WebGPU when
asked for and the browser offers an adapter).

The backend is also registered for certify.run.certify: there the page computes the logits
(model.logits in web/model.js) and Python applies the pass rule, a cross-check of the page's
own JavaScript suite.
"""
from __future__ import annotations

import contextlib
import json
import tempfile
import time
from pathlib import Path

from .backends import Backend, register

PAGE_TIMEOUT_MS = 120_000


@contextlib.contextmanager
def page_for(model_dir, provider: str = "wasm", webgpu: bool = False, query: str = ""):
    """A loaded, ready page serving `model_dir`; yields (page, base_url)."""
    from sketchpad.server import Settings
    from sketchpad.server.chromium import browser
    from sketchpad.server.live import running
    with tempfile.TemporaryDirectory(prefix="sketchpad-cert-") as tmp:
        settings = Settings(db_path=str(Path(tmp) / "certificates.sqlite"), model_dir=Path(model_dir))
        with running(settings) as url, browser(webgpu=webgpu or provider == "webgpu") as b:
            page = b.new_page()
            # Note when the page says ready (for "page load to ready" in benchmarks/bench_browser.py).
            page.add_init_script("""new MutationObserver(() => {
                if (!window.__readyAt && document.body && document.body.dataset.state === 'ready')
                    window.__readyAt = performance.now();
            }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-state'] });""")
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{url}/?provider={provider}{query}")
            try:
                page.wait_for_function("['ready', 'failed'].includes(document.body.dataset.state)",
                                       timeout=PAGE_TIMEOUT_MS)
            except Exception:
                raise RuntimeError(f"the page did not become ready: {errors[:3]}") from None
            if page.evaluate("document.body.dataset.state") != "ready":
                raise RuntimeError(f"the page failed to load the model: {page.inner_text('#error')}")
            yield page, url


def run_page_suite(page) -> dict:
    """Click the page's certification button; return its certificate and the time it took."""
    t0 = time.perf_counter()
    page.click("#certify")
    page.wait_for_function("['passed', 'failed', 'error'].includes(document.body.dataset.certState)",
                           timeout=PAGE_TIMEOUT_MS)
    seconds = time.perf_counter() - t0
    if page.evaluate("document.body.dataset.certState") == "error":
        raise RuntimeError(f"the page's certification suite failed to run: {page.inner_text('#cert-result')}")
    cert = page.evaluate("async () => (await fetch(document.getElementById('cert-download').href)).json()")
    return {"certificate": cert, "seconds": seconds, "result_text": page.inner_text("#cert-result")}


def certify_in_browser(model_dir, provider: str = "wasm") -> dict:
    with page_for(model_dir, provider) as (page, _):
        return run_page_suite(page)["certificate"]


# --- the registry entry: page logits, Python's pass rule ---------------------------------------

_LAST_DEVICE: dict = {}


class _PageLogits:
    """logits(views) answered by web/model.js in a live page (one forward pass per view)."""

    def __init__(self, model_dir, gate: float):
        self._stack = contextlib.ExitStack()
        self.page, _ = self._stack.enter_context(page_for(model_dir, "wasm"))
        info = self.page.evaluate(f"""async () => {{
            const {{ loadModel }} = await import('/model.js');
            window.__certModel = await loadModel({{ provider: 'wasm', gate: {float(gate)} }});
            const i = window.__certModel.info;
            return {{ kind: 'browser', user_agent: navigator.userAgent, provider: window.__certModel.provider,
                      dtype: i.dtype, adapter: i.adapter, features: i.features, num_threads: i.numThreads ?? null,
                      cross_origin_isolated: i.crossOriginIsolated, ort_version: i.ortVersion }};
        }}""")
        _LAST_DEVICE.clear()
        _LAST_DEVICE.update(info)

    def logits(self, views):
        import numpy as np
        # float32 bytes as base64: JSON arrays of numbers would cost seconds for all of V
        rows = self.page.evaluate("""async (views) => {
            const { data, dims } = await window.__certModel.logits(views);
            const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
            let s = '';
            for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
            return { b64: btoa(s), dims };
        }""", [list(v) for v in views])
        import base64
        return np.frombuffer(base64.b64decode(rows["b64"]), dtype="<f4").reshape(rows["dims"])

    def close(self):
        self._stack.close()

    def __del__(self):
        with contextlib.suppress(Exception):
            self.close()


def _describe() -> dict:
    d = dict(_LAST_DEVICE)
    return {"device": d, "versions": {"onnxruntime-web": d.pop("ort_version", None)}}


def _files(model_dir):
    from .onnx_backend import _files as onnx_files
    return onnx_files(model_dir)


register(Backend("browser", _PageLogits, _describe, _files))


def save(cert: dict, out: Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(cert, indent=1) + "\n")
    return out
