"""The page in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright; skipped
with the reason when it is absent): certification of all of V in the page, solving a
1,000-digit sum and a 20x20-digit product exactly as Python does, clear messages for bad
input, and working with the network off.

The page serves the shipped model's committed ONNX export through a real server on
127.0.0.1; every request that is not to 127.0.0.1 is blocked and counted (there must be none).
"""

from __future__ import annotations

import json
import random
import re

import pytest

from sketchpad.certify.chromium import available, wait_until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(available() is not None, reason=f"headless browser tests: {available()}"),
]

TIMEOUT = 120_000
# The page's float32 export: this module tests the page itself (tests/test_browser_full_size.py
# has how it picks among the served variants when none is pinned).
QUERY = "?provider=wasm&speed=6&variant=float32"


def model_dir():
    """The shipped model (SKETCHPAD_TEST_MODEL may name another exported model directory)."""
    import os
    from pathlib import Path

    from sketchpad.model import DEFAULT_MODEL_DIR

    return Path(os.environ.get("SKETCHPAD_TEST_MODEL") or DEFAULT_MODEL_DIR)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from sketchpad.server import Settings
    from sketchpad.server.live import running

    assert Settings().ort_dir.is_dir(), "onnxruntime-web is not installed: run `npm ci` (.ci/install-browser.sh)"
    assert (model_dir() / "onnx" / "model.onnx").is_file(), f"{model_dir()} has no ONNX export"
    db = tmp_path_factory.mktemp("browser") / "certs.sqlite"
    with running(Settings(db_path=str(db), model_dir=model_dir(), stepper="reference")) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from sketchpad.certify.chromium import browser as launch

    with launch() as b:
        yield b


@pytest.fixture(scope="module")
def page(site, browser):
    """One page for the whole module: loaded once, certified once (as a user would)."""
    ctx = browser.new_context()
    external: list[str] = []

    def guard(route):
        if route.request.url.startswith(site):
            route.continue_()
        else:
            external.append(route.request.url)
            route.abort()

    ctx.route("**/*", guard)
    p = ctx.new_page()
    errors: list[str] = []
    console: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("console", lambda m: console.append(m.text))
    p.response = p.goto(f"{site}/{QUERY}")
    p.console = console
    wait_until(p, "['ready', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
    assert p.evaluate("document.body.dataset.state") == "ready", (p.inner_text("#error"), errors)
    p.external, p.errors, p.ctx = external, errors, ctx
    # A fresh browser has no certificate of its own: it says so, and certifies before solving.
    wait_until(p, "document.body.dataset.certified === 'no'", timeout=TIMEOUT)
    p.status_before = p.inner_text("#cert-status")
    p.click("#certify")
    wait_until(p, "['passed', 'failed', 'error'].includes(document.body.dataset.certState)", timeout=TIMEOUT)
    p.cert_state = p.evaluate("document.body.dataset.certState")
    p.cert = p.evaluate("async () => (await fetch(document.getElementById('cert-download').href)).json()")
    yield p
    ctx.close()


def solve_in_page(p, expr: str) -> str:
    p.fill("#expr", expr)
    p.click("#solve")
    wait_until(p, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
    state = p.evaluate("document.body.dataset.state")
    assert state == "done", (state, p.inner_text("#error"))
    return p.inner_text("#answer").strip()


def test_certification_suite_passes_all_views(page, site, tmp_path):
    from sketchpad import views as V
    from sketchpad.certify.verify import verify

    assert "Not yet certified on this device" in page.status_before
    assert page.cert_state == "passed", page.inner_text("#cert-result")
    cert = page.cert
    r = cert["predicate"]["result"]
    n = len(V.load())
    assert r["passed"] and r["views"] == r["passed_views"] == n and r["failed_views"] == 0
    assert f"{n}/{n} views passed" in page.inner_text("#cert-result")
    # progress counts views of V, as everywhere (was "2,162/2,872": all compositions together)
    runs = cert["predicate"]["suite"]["runs"]
    assert page.evaluate("document.body.dataset.certProgress").startswith(
        f"Checking views with wasm: {n:,}/{n:,}" + (f" (batch composition {runs} of {runs})" if runs > 1 else "")
    )
    env = cert["predicate"]["environment"]
    assert env["execution_provider"] == "wasm" and env["dtype"] == "float32"
    # the browser and its full version (the user agent string hides the minor numbers), threads
    assert re.fullmatch(r"Chrom\w* \d+\.\d+\.\d+\.\d+", env["library"]["browser"]), env["library"]
    assert env["threads"] == {"wasm": 2, "cross_origin_isolated": True} and env["device"]["cores"] >= 1
    assert env["library"]["onnxruntime-web"].startswith("1.30")
    assert cert["predicate"]["margin_rule"]["holds"]
    # The page's certificate holds under Python's rule for what the page loads (the graph,
    # model.json, the page's model code, V), by the hashes the page computed itself.
    path = tmp_path / "browser.json"
    path.write_text(json.dumps(cert))
    rep = verify(path, model_dir=model_dir(), backend="browser")
    assert rep.ok, rep.verdict.reasons
    # ... and the page recorded it on the server, as this device's claim.
    assert "recorded on the server" in page.inner_text("#cert-upload")
    import httpx

    listed = httpx.get(f"{site}/api/certificates").json()["certificates"]  # summaries; each whole by id
    assert any(httpx.get(f"{site}/api/certificates/{c['id']}").json()["certificate"] == cert for c in listed)
    wait_until(page, "document.body.dataset.certified === 'yes'", timeout=TIMEOUT)
    assert "Certified on this device" in page.inner_text("#cert-status")


def test_a_new_browser_certifies_itself_before_its_first_solve(site, browser):
    """No button pressed: the first Solve runs the suite here, then solves; the certificate is
    cached in IndexedDB, so a reload is certified at once."""
    ctx = browser.new_context()
    try:
        p = ctx.new_page()
        p.goto(f"{site}/{QUERY}")
        wait_until(p, "document.body.dataset.state === 'ready'", timeout=TIMEOUT)
        wait_until(p, "document.body.dataset.certified === 'no'", timeout=TIMEOUT)
        assert solve_in_page(p, "123456789 * 987654321") == str(123456789 * 987654321)
        assert p.evaluate("document.body.dataset.certified") == "yes"
        assert "1436/1436 views passed" in p.inner_text("#cert-result")
        p.reload()
        wait_until(p, "document.body.dataset.state === 'ready'", timeout=TIMEOUT)
        wait_until(p, "document.body.dataset.certified === 'yes'", timeout=TIMEOUT)
    finally:
        ctx.close()


def test_the_page_runs_under_its_content_security_policy(page):
    """Loaded, certified and solving with the server's policy in force: nothing it needs is refused."""
    from sketchpad.server.static import CSP

    assert page.response.headers["content-security-policy"] == CSP
    assert solve_in_page(page, "99 * 99") == "9801"
    refused = [m for m in page.console if "Content Security Policy" in m or "Refused to" in m]
    assert refused == [] and page.errors == [], refused + page.errors
    # ... and it is in force: an injected inline script does not run
    ran = page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__inline = 1';"
        " document.body.append(s); s.remove(); return window.__inline === 1; }"
    )
    assert ran is False
    wait_until(page, "true", timeout=1000)
    assert any("inline script" in m for m in page.console), page.console[-3:]


def test_thousand_digit_sum_matches_python(page):
    rnd = random.Random(1000)
    a, b = rnd.randrange(10**999, 10**1000), rnd.randrange(10**999, 10**1000)
    assert solve_in_page(page, f"{a} + {b}") == str(a + b)
    a = rnd.randrange(10**999, 10**1000)
    assert solve_in_page(page, f"{a} - {b}") == str(a - b)


def test_twenty_by_twenty_product_matches_python(page):
    rnd = random.Random(20)
    a, b = rnd.randrange(10**19, 10**20), rnd.randrange(10**19, 10**20)
    assert solve_in_page(page, f"{a} * -{b}") == str(-a * b)
    passes = int(page.inner_text("#c-passes").replace(",", ""))
    assert passes > 400  # one forward pass per view, no shortcut


@pytest.mark.parametrize(
    "expr, words",
    [("1 +", "syntax"), ("7 // 0", "zero"), ("sqrt(-9)", "negative"), ("2 ** 8", "not supported"), ("12abc", "not")],
)
def test_bad_input_shows_a_clear_message(page, expr, words):
    page.fill("#expr", expr)
    page.click("#solve")
    wait_until(page, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
    assert page.evaluate("document.body.dataset.state") == "error"
    msg = page.inner_text("#error")
    assert page.is_visible("#error") and words in msg.lower(), msg
    assert page.inner_text("#answer").strip() == ""


def test_works_with_the_network_off(page):
    from sketchpad.expr import evaluate_python, parse

    assert page.external == [], f"the page asked for non-local resources: {page.external[:5]}"
    page.ctx.set_offline(True)
    try:
        # The network really is off, the local server included ...
        assert page.evaluate("fetch('/api/views').then(() => 'reached', () => 'offline')") == "offline"
        # ... and the page still solves: the model, runtime and wasm are all in the page already.
        for expr in (
            "98765432109876543210 // -1234567",
            "sqrt(123456789012345678901234567890)",
            "gcd(1071, 462) + -(5 - 8)",
        ):
            assert solve_in_page(page, expr) == str(evaluate_python(parse(expr)))
    finally:
        page.ctx.set_offline(False)
    assert page.errors == []


def test_webgpu_code_path_on_the_fallback_adapter(site, browser):
    """No GPU here: Chromium's WebGPU offers only SwiftShader (a CPU emulation, isFallbackAdapter).
    'auto' must not pick it; asked for explicitly it must run and agree with wasm."""
    import numpy as np

    from sketchpad.certify.chromium import launch_options

    js = """async () => {
      const { loadModel, loadViewSet } = await import('/onnx_stepper.js');
      const vs = (await loadViewSet()).views.slice(0, 64).map((r) => r.view);
      const auto = await loadModel({ provider: 'auto' });
      const gpu = await loadModel({ provider: 'webgpu' });
      const a = await auto.logits(vs), g = await gpu.logits(vs);
      return { auto: auto.provider, gpu: gpu.provider, adapter: gpu.info.adapter, features: gpu.info.features,
               a: Array.from(a.data), g: Array.from(g.data), dims: a.dims };
    }"""
    b = browser.browser_type.launch(**launch_options(webgpu=True))
    try:
        p = b.new_page()
        p.goto(f"{site}/model/model.json")
        r = p.evaluate(js)
    finally:
        b.close()
    assert r["auto"] == "wasm" and r["gpu"] == "webgpu"
    assert r["adapter"]["isFallbackAdapter"] is True and isinstance(r["features"], list)
    a, g = (np.asarray(r[k], dtype=np.float32).reshape(r["dims"]) for k in ("a", "g"))
    assert (a.argmax(1) == g.argmax(1)).all()
    assert np.abs(a - g).max() < 1e-3 * max(1.0, float(np.abs(a).max()))


# --- the page as a person expects it ------------------------------------------------------------


def _fresh(site, browser, path="/" + QUERY):
    """A new browser context (fresh IndexedDB: no certificate of its own) on `path`, with
    every non-local request blocked and counted."""
    ctx = browser.new_context()
    external: list[str] = []

    def guard(route):
        if route.request.url.startswith(site):
            route.continue_()
        else:
            external.append(route.request.url)
            route.abort()

    ctx.route("**/*", guard)
    p = ctx.new_page()
    p.goto(f"{site}{path}")
    return ctx, p, external


def test_a_passing_certification_clears_the_old_error(site, browser):
    """The server hiccups (the view set cannot be loaded), so the first Solve cannot certify and
    says so in red; once "Run certification suite" passes, no red message stays under the
    green status."""
    ctx = browser.new_context()
    try:
        ctx.route(
            "**/api/views",
            lambda route: route.fulfill(status=503, content_type="application/json", body='{"error": "busy"}'),
        )
        p = ctx.new_page()
        p.goto(f"{site}/{QUERY}")
        wait_until(p, "document.body.dataset.state === 'ready'", timeout=TIMEOUT)
        p.fill("#expr", "12 + 30")
        p.click("#solve")
        wait_until(p, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
        assert p.is_visible("#error") and "Certification could not start" in p.inner_text("#error")
        ctx.unroute("**/api/views")
        p.click("#certify")
        wait_until(p, "['passed', 'failed', 'error'].includes(document.body.dataset.certState)", timeout=TIMEOUT)
        assert p.evaluate("document.body.dataset.certState") == "passed", p.inner_text("#cert-result")
        wait_until(p, "document.body.dataset.certified === 'yes'", timeout=TIMEOUT)
        assert "Certified on this device" in p.inner_text("#cert-status")
        assert not p.is_visible("#error") and p.inner_text("#error") == ""
    finally:
        ctx.close()


def test_a_parse_error_clears_the_previous_sheet(page):
    assert solve_in_page(page, "1234 * 5678") == str(1234 * 5678)
    assert int(page.get_attribute("#sheet", "data-lines")) > 0
    assert page.inner_text("#answer-digits") == "7 digits"
    page.fill("#expr", "1 +")
    page.click("#solve")
    wait_until(page, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
    assert page.evaluate("document.body.dataset.state") == "error"
    assert "syntax" in page.inner_text("#error").lower()
    assert page.get_attribute("#sheet", "data-lines") == "0"  # nothing of 1234 * 5678 is left
    assert page.inner_text("#answer").strip() == "" and page.inner_text("#answer-digits") == ""
    assert page.is_disabled("#copy") and page.is_disabled("#download-png")
    for counter in ("#c-passes", "#c-presented", "#c-batches", "#c-views"):  # not 1234 * 5678's
        assert page.inner_text(counter) == "0", counter


def test_the_status_line_is_not_cut_off(page):
    assert solve_in_page(page, "9" * 300 + " * " + "7" * 200) == str(int("9" * 300) * int("7" * 200))
    fits = page.evaluate(
        "(() => { const e = document.getElementById('view-line');"
        " return e.textContent.length > 0 && e.scrollWidth <= e.clientWidth + 1; })()"
    )
    assert fits, page.inner_text("#view-line")


def test_copy_button_copies_exactly_the_digits(page, site):
    page.ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    rnd = random.Random(77)
    a, b = rnd.randrange(10**999, 10**1000), rnd.randrange(10**999, 10**1000)
    for expr, want in ((f"{a} + {b}", a + b), (f"-{a} - 7", -a - 7)):
        assert solve_in_page(page, expr) == str(want)
        n = len(str(abs(want)))
        assert page.inner_text("#answer-digits") == f"{n:,} digits"
        page.click("#copy")
        wait_until(page, "document.getElementById('copy-status').textContent.startsWith('Copied')", timeout=TIMEOUT)
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == str(want)  # exactly: sign and digits, no spaces, commas or newlines
        assert f"Copied {n:,} digits" in page.inner_text("#copy-status")


def test_download_sheet_as_png(page):
    import io

    from PIL import Image

    assert solve_in_page(page, "98765432109876543210 // -1234567") == str(98765432109876543210 // -1234567)
    with page.expect_download(timeout=TIMEOUT) as info:
        page.click("#download-png")
    download = info.value
    assert download.suggested_filename == "sketchpad-sheet.png"
    data = open(download.path(), "rb").read()
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG"
    lines = int(page.get_attribute("#sheet", "data-lines"))
    assert img.height >= lines * 22 and img.width > 200  # the whole sheet, not the visible box


def test_solve_on_the_server_streams_progress(page):
    from sketchpad.expr import evaluate_python, parse

    page.check("#on-server")
    try:
        for expr in ("98765432109876543210 // -1234567", "sqrt(123456789012345678901234567890) + 1"):
            assert solve_in_page(page, expr) == str(evaluate_python(parse(expr)))
            assert page.evaluate("document.body.dataset.solvedOn") == "server"
            assert int(page.evaluate("document.body.dataset.progressEvents")) >= 2  # accepted + progress
            assert 0 <= int(page.evaluate("document.body.dataset.progressPercent")) <= 99  # an estimate
            assert page.is_hidden("#solve-progress")  # the bar goes when the answer comes
            assert "reference stepper" in page.inner_text("#view-line")  # it says who answered
            assert int(page.inner_text("#c-batches").replace(",", "")) > 0
        # Bad input from the server is shown like the page's own.
        page.fill("#expr", "5 // (3 - 3)")
        page.click("#solve")
        wait_until(page, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
        assert page.evaluate("document.body.dataset.state") == "error"
        assert "zero" in page.inner_text("#error").lower()
    finally:
        page.uncheck("#on-server")
    assert solve_in_page(page, "2 + 2") == "4"
    assert page.evaluate("document.body.dataset.solvedOn") == "page"


def test_a_server_record_is_reported_never_certified(page, site, browser):
    """Another client uploads a passing certificate that holds for an environment like this
    browser's: a fresh browser shows it as that client's report and still certifies itself."""
    import copy

    import httpx

    forged = copy.deepcopy(page.cert)
    forged["predicate"]["time"]["finished"] = "2026-12-31T23:59:59+00:00"  # another upload, same claim
    r = httpx.post(f"{site}/api/certificates", json=forged, timeout=60)
    assert r.status_code == 201, r.text
    rec = r.json()
    ctx, p, external = _fresh(site, browser)
    try:
        wait_until(p, "document.body.dataset.state === 'ready'", timeout=TIMEOUT)
        wait_until(p, "document.body.dataset.certified === 'no'", timeout=TIMEOUT)
        wait_until(
            p, "document.getElementById('cert-status').textContent.includes('device like yours')", timeout=TIMEOUT
        )
        status = p.inner_text("#cert-status")
        assert "Certified on this device" not in status
        assert f"reported by a device like yours (record #{rec['id']} from 127.0.0.1, {rec['received_at']})" in status
        assert external == []
    finally:
        ctx.close()


def test_docs_page_works_offline(site, browser):
    ctx, p, external = _fresh(site, browser, "/docs")
    try:
        p.wait_for_selector(".opblock", timeout=TIMEOUT)  # Swagger UI rendered the routes
        assert p.locator(".opblock").count() >= 6
        assert external == [], external
    finally:
        ctx.close()
