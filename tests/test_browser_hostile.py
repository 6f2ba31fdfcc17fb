"""The page against a hostile model publisher (headless Chromium; tests/test_hostile.py has the
command line, the Python API and the server): graphs that are not row-independent are refused
before they are certified or run, a model on another origin loads only after a prompt naming
it, a wrong model is never "certified" by a forged server record or a forged IndexedDB entry,
and a graph changed after the page certified it is certified again.  No wrong answer, ever.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading

import pytest
from hostile import hostile_model

from sketchpad.certify.chromium import available, wait_until
from sketchpad.model import DEFAULT_MODEL_DIR

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(available() is not None, reason=f"headless browser tests: {available()}"),
]
TIMEOUT = 120_000
SETTLED = "['ready', 'failed'].includes(document.body.dataset.state)"


@pytest.fixture(scope="module")
def browser():
    from sketchpad.certify.chromium import browser as launch

    with launch() as b:
        yield b


def site_for(model_dir):
    from sketchpad.server.live import page_server

    return page_server(model_dir)


def open_page(browser, url, query="?provider=wasm&speed=6"):
    ctx = browser.new_context()
    p = ctx.new_page()
    p.goto(url + "/" + query)
    return ctx, p


def solve_in(p, expr="7 + 5"):
    p.fill("#expr", expr)
    p.click("#solve")
    wait_until(p, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
    return p.evaluate("document.body.dataset.state"), p.inner_text("#answer").strip(), p.inner_text("#error")


@pytest.mark.parametrize(
    "kind,words", [("batch-size", "(Mul)"), ("batch-content", "(ReduceMax)"), ("random", "(RandomUniformLike)")]
)
def test_the_page_refuses_a_graph_that_is_not_row_independent(browser, tmp_path, kind, words):
    with site_for(hostile_model(tmp_path, kind)) as url:
        ctx, p = open_page(browser, url)
        try:
            wait_until(p, SETTLED, timeout=TIMEOUT)
            wait_until(p, "document.body.dataset.certified === 'no'", timeout=TIMEOUT)
            status = p.inner_text("#cert-status")
            assert "not shown to be row-independent" in status and words in status, status
            state, answer, error = solve_in(p)
            assert state == "error" and answer == "" and "row-independent" in error, (state, error)
            p.click("#certify")
            wait_until(p, "['passed', 'failed', 'error'].includes(document.body.dataset.certState)", timeout=TIMEOUT)
            assert p.evaluate("document.body.dataset.certState") == "failed"
            assert "Not run" in p.inner_text("#cert-result")
        finally:
            ctx.close()


class _CorsFiles(http.server.SimpleHTTPRequestHandler):
    """A publisher's own static server: its files readable from any origin."""

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        super().end_headers()

    def log_message(self, *args):
        pass


def test_a_model_on_another_origin_needs_a_confirmed_prompt(browser, tmp_path):
    d = hostile_model(tmp_path, "batch-size")
    handler = functools.partial(_CorsFiles, directory=str(d / "onnx"))
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{other.server_address[1]}"
    try:
        with site_for(DEFAULT_MODEL_DIR) as url:
            for choice, expect in (("#model-confirm-cancel", "own"), ("#model-confirm-load", "refused")):
                ctx, p = open_page(browser, url, f"?provider=wasm&model={origin}/model.json")
                try:
                    wait_until(p, "document.body.dataset.state === 'confirm'", timeout=TIMEOUT)
                    assert p.is_visible("#model-confirm") and p.inner_text("#model-confirm-origin") == origin
                    assert p.evaluate("document.body.dataset.certified") in (None, "unknown", "")
                    p.click(choice)
                    wait_until(p, SETTLED, timeout=TIMEOUT)
                    wait_until(p, "['yes', 'no'].includes(document.body.dataset.certified)", timeout=TIMEOUT)
                    status = p.inner_text("#cert-status")
                    shipped = json.loads((DEFAULT_MODEL_DIR / "onnx" / "model.json").read_text())["onnx_sha256"]
                    if expect == "own":  # this site's model, not the other origin's
                        assert p.inner_text("#model-status").startswith(f"Model {shipped[:12]}")
                        assert "row-independent" not in status
                    else:  # loaded from the other origin, then refused by the page's own check
                        assert "not shown to be row-independent" in status, status
                        state, answer, error = solve_in(p)
                        assert state == "error" and answer == "", error
                finally:
                    ctx.close()
    finally:
        other.shutdown()


def _wrong_model_with_forged_record(tmp_path):
    """The wrong model (row-independent, answers 13), and a browser certificate forged for it
    from an honest run of the shipped model: subjects rewritten, everything else true."""
    from hostile import forged_certificate

    from sketchpad.certify.run import certify
    from sketchpad.model.loading import load_stepper

    d = hostile_model(tmp_path, "wrong")
    honest = certify(load_stepper(DEFAULT_MODEL_DIR, "onnx"), seed=3)
    forged = forged_certificate(honest, d, "browser")
    forged["predicate"]["backend"] = {"name": "browser"}
    return d, forged


def test_a_forged_record_or_cache_entry_never_certifies_a_wrong_model(browser, tmp_path):
    import httpx

    d, forged = _wrong_model_with_forged_record(tmp_path)
    with site_for(d) as url:
        ctx, p = open_page(browser, url)
        try:
            wait_until(p, SETTLED, timeout=TIMEOUT)
            # a forged record on the server, with this browser's own environment: a claim only
            forged["predicate"]["environment"] = p.evaluate(FORGE_ENV)
            r = httpx.post(f"{url}/api/certificates", json=forged, timeout=60)
            assert r.status_code == 201, r.text  # consistent: the server records it as the sender's claim
            # and a forged entry in this browser's certificate cache, tagged with no key of this browser
            p.evaluate(FORGE_CACHE, json.dumps(forged))
            p.reload()
            wait_until(p, SETTLED, timeout=TIMEOUT)
            wait_until(p, "document.body.dataset.certified === 'no'", timeout=TIMEOUT)
            assert "Certified on this device" not in p.inner_text("#cert-status")
            state, answer, error = solve_in(p)
            assert state == "error" and answer == "", (state, answer)
            assert "does not pass certification" in error and "ADD 75_" in error, error
        finally:
            ctx.close()


# The environment the page reports, as the forger would copy it from its own browser.
FORGE_ENV = """async () => {
  const { loadModel } = await import('/onnx_stepper.js');
  const m = await loadModel({ modelUrl: '/model/model.json', provider: 'wasm' });
  return m.environment;
}"""

# Write a cache entry for the loaded model with a made-up tag (IndexedDB is open to any script
# of the origin; the key is not: it signs, it cannot be read).
FORGE_CACHE = """async (text) => {
  const { loadModel } = await import('/onnx_stepper.js');
  const { cacheKey } = await import('/certify/cache.js');
  const m = await loadModel({ modelUrl: '/model/model.json', provider: 'wasm' });
  const slot = await cacheKey(m);
  const db = await new Promise((ok, no) => {
    const r = indexedDB.open('sketchpad', 3);
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  await new Promise((ok, no) => {
    const tx = db.transaction('certificates', 'readwrite');
    tx.objectStore('certificates').put({ format: 'sketchpad-cache/1', hmac: '00'.repeat(32), text }, slot);
    tx.oncomplete = ok; tx.onerror = () => no(tx.error);
  });
  db.close();
}"""


def test_a_graph_changed_after_certification_is_certified_again(browser, tmp_path):
    from hostile import hostile_graph, write_graph

    d = tmp_path / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("base", "adapter", "certificates", "onnx-*"))
    with site_for(d) as url:
        ctx, p = open_page(browser, url)
        try:
            wait_until(p, SETTLED, timeout=TIMEOUT)
            assert solve_in(p)[:2] == ("done", "12")  # certified itself, then solved
            assert p.evaluate("document.body.dataset.certified") == "yes"
            write_graph(d, hostile_graph("wrong"))  # the publisher swaps the graph behind the page's back
            p.reload()
            wait_until(p, SETTLED, timeout=TIMEOUT)
            wait_until(p, "document.body.dataset.certified === 'no'", timeout=TIMEOUT)
            state, answer, error = solve_in(p)
            assert state == "error" and answer == "" and "ADD 75_" in error, (state, answer, error)
        finally:
            ctx.close()
