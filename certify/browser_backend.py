"""The browser as a certification device: the page's own suite in headless Chromium.

    with page_for(url) as page:          # url: a running `sketchpad serve` (server/live.py)
        cert = run_page_suite(page)["certificate"]

The page (web/) loads the served model's ONNX export with onnxruntime-web (wasm, or WebGPU
when asked for and the browser offers an adapter), runs every view of V through it
(web/certify/run.js) and writes a certificate in the same schema as certify/run.py.  The
caller starts the server; this module only drives the browser, so the certifier does not
depend on the server.
"""

from __future__ import annotations

import contextlib
import time

from .chromium import browser, wait_until

PAGE_TIMEOUT_MS = 120_000


@contextlib.contextmanager
def page_for(url: str, provider: str = "wasm", webgpu: bool = False, query: str = ""):
    """A loaded, ready page of the server at `url`; yields the Playwright page."""

    with browser(webgpu=webgpu or provider == "webgpu") as b:
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
            wait_until(page, "['ready', 'failed'].includes(document.body.dataset.state)", timeout=PAGE_TIMEOUT_MS)
        except Exception:
            raise RuntimeError(f"the page did not become ready: {errors[:3]}") from None
        if page.evaluate("document.body.dataset.state") != "ready":
            raise RuntimeError(f"the page failed to load the model: {page.inner_text('#error')}")
        yield page


def run_page_suite(page) -> dict:
    """Click the page's certification button; return its certificate and the time it took."""

    t0 = time.perf_counter()
    page.click("#certify")
    wait_until(page, "['passed', 'failed', 'error'].includes(document.body.dataset.certState)", timeout=PAGE_TIMEOUT_MS)
    seconds = time.perf_counter() - t0
    if page.evaluate("document.body.dataset.certState") == "error":
        raise RuntimeError(f"the page's certification suite failed to run: {page.inner_text('#cert-result')}")
    cert = page.evaluate("async () => (await fetch(document.getElementById('cert-download').href)).json()")
    return {"certificate": cert, "seconds": seconds, "result_text": page.inner_text("#cert-result")}


def certify_in_browser(url: str, provider: str = "wasm", variant: str = "float32") -> dict:
    """The page's suite on one served variant (the float32 export unless another is named: the
    page on its own would pick the smallest whose certificate holds)."""
    with page_for(url, provider, query=f"&variant={variant}") as page:
        return run_page_suite(page)["certificate"]
