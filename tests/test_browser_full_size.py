"""The page's side of a full-size model, on the shipped model (headless Chromium, wasm): it runs
the smallest served variant whose certificate holds on this device and says which (int8 fails
its suite here, so it moves to float16 and remembers), ?variant= pins one, its suite reports
every batch (time, memory, an ETA) and, interrupted, resumes after a reload from the chunks it
kept in IndexedDB with the same result."""

from __future__ import annotations

import re

import pytest

from sketchpad.certify.chromium import available, wait_until
from sketchpad.model import DEFAULT_MODEL_DIR

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(available() is not None, reason=f"headless browser tests: {available()}"),
]
TIMEOUT = 180_000
SETTLED = "['ready', 'failed'].includes(document.body.dataset.state)"


@pytest.fixture(scope="module")
def site():
    from sketchpad.server.live import page_server

    with page_server(DEFAULT_MODEL_DIR) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from sketchpad.certify.chromium import browser as launch

    with launch() as b:
        yield b


@pytest.fixture()
def page(site, browser):
    ctx = browser.new_context()
    p = ctx.new_page()
    yield p
    ctx.close()


def open_at(p, site, query="?provider=wasm&speed=6"):
    p.goto(site + "/" + query)
    wait_until(p, SETTLED, timeout=TIMEOUT)
    assert p.evaluate("document.body.dataset.state") == "ready", p.inner_text("#error")


def test_the_page_runs_the_smallest_variant_whose_certificate_holds(page, site):
    open_at(page, site)
    assert page.evaluate("document.body.dataset.variant") == "int8"  # the smallest, not tried yet
    assert "Variant int8" in page.inner_text("#variant-status")
    page.fill("#expr", "98765 * 4321")
    page.click("#solve")
    wait_until(page, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
    assert page.inner_text("#answer").strip() == str(98765 * 4321), page.inner_text("#error")
    assert page.evaluate("document.body.dataset.variant") == "float16"
    status = page.inner_text("#variant-status")
    assert "The int8 variant failed its suite here (1430/1436 views): it is never used; running float16" in status
    assert "(float16," in page.inner_text("#model-status")
    assert page.evaluate("document.body.dataset.certified") == "yes"
    wait_until(page, "document.getElementById('cert-upload').textContent !== ''", timeout=TIMEOUT)
    assert "recorded on the server" in page.inner_text("#cert-upload")  # checked against the float16 variant
    page.reload()  # remembered here: the float16 variant at once, certified from IndexedDB
    wait_until(page, SETTLED, timeout=TIMEOUT)
    wait_until(page, "document.body.dataset.certified === 'yes'", timeout=TIMEOUT)
    assert page.evaluate("document.body.dataset.variant") == "float16"
    # its size as the page lists it (the int8 graph's size changed with its MatMulInteger rewrite)
    assert re.search(r"int8 \d+\.\d+ MB: failed its suite here \(1430/1436 views\)", page.inner_text("#variant-status"))


def test_a_variant_can_be_pinned(page, site):
    open_at(page, site, "?provider=wasm&variant=float32")
    assert page.evaluate("document.body.dataset.variant") == "float32"
    assert "(float32," in page.inner_text("#model-status")
    page.goto(site + "/?provider=wasm&variant=bfloat7")
    wait_until(page, SETTLED, timeout=TIMEOUT)
    assert "this server offers no variant" in page.inner_text("#error")


def test_the_suite_reports_every_batch(page, site):
    open_at(page, site, "?provider=wasm&variant=float16")
    page.click("#certify")
    wait_until(page, "['passed', 'failed', 'error'].includes(document.body.dataset.certState)", timeout=TIMEOUT)
    log = page.evaluate("async () => (await import('/cert-panel.js')).batchLog")
    assert sum(b["views"] for b in log) == 3 * 1436  # all of V, one per pass, shuffled
    assert all(b["ms"] >= 0 and b["label"] for b in log) and sum(1 for b in log if b["views"] == 1) >= 1436


# Run the page's suite in this page, stopping after two chunks when asked (an interruption).
SUITE = """async (stop) => {
  const { loadModel, loadViewSet } = await import('/onnx_stepper.js');
  const { certifyInPage } = await import('/certify/run.js');
  const model = await loadModel({ modelUrl: '/model-float16/model.json', provider: 'wasm' });
  const views = await loadViewSet();
  try {
    const cert = await certifyInPage({ model, views, ...(stop === null ? {} : { stopAfterChunks: stop }) });
    return { cert };
  } catch (e) {
    return { error: e.message };
  } finally {
    model.release();
  }
}"""


def test_an_interrupted_page_suite_resumes_after_a_reload(page, site):
    open_at(page, site, "?provider=wasm&variant=float16")
    stopped = page.evaluate(SUITE, 2)
    assert stopped == {"error": "the certification suite was interrupted"}
    page.reload()
    wait_until(page, SETTLED, timeout=TIMEOUT)
    resumed = page.evaluate(SUITE, None)["cert"]
    assert resumed["predicate"]["time"]["resumed"]["chunks"] == 2
    fresh = page.evaluate(SUITE, None)["cert"]  # the kept chunks were cleared: all of it again
    assert fresh["predicate"]["time"]["resumed"]["chunks"] == 0
    for key in ("per_view", "result", "drift", "suite", "environment"):
        assert resumed["predicate"][key] == fresh["predicate"][key], key
    assert resumed["subject"] == fresh["subject"] and resumed["predicate"]["result"]["passed"]
