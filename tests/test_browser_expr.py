"""The page points at the column of a bad expression: a caret under the text, in the error
box, and the character selected in the input (real Chromium; bad input is answered before any
certification, so the page is not certified here)."""

from __future__ import annotations

import pytest

from sketchpad.certify.chromium import available, wait_until
from sketchpad.expr import ExprError, caret_lines, parse

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(available() is not None, reason=f"headless browser tests: {available()}"),
]

TIMEOUT = 120_000


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from sketchpad.certify.chromium import browser
    from sketchpad.model import DEFAULT_MODEL_DIR
    from sketchpad.server import Settings
    from sketchpad.server.live import running

    db = tmp_path_factory.mktemp("browser-expr") / "certs.sqlite"
    with running(Settings(db_path=str(db), model_dir=DEFAULT_MODEL_DIR, stepper="reference")) as url, browser() as b:
        p = b.new_page()
        p.goto(f"{url}/?provider=wasm&speed=6")
        wait_until(p, "['ready', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
        assert p.evaluate("document.body.dataset.state") == "ready", p.inner_text("#error")
        yield p


def _python_says(expr: str) -> ExprError:
    with pytest.raises(ExprError) as e:
        parse(expr)
    return e.value


@pytest.mark.parametrize("expr", ["12345678 +", "(1 + 2", "1 + 2 * x", "7 / 2", "\u3000 1 + \uff12", "1 + 😀 + 2"])
def test_the_page_points_at_the_column_python_names(page, expr):
    want = _python_says(expr)
    page.fill("#expr", expr)
    page.click("#solve")
    wait_until(page, "['done', 'error', 'failed'].includes(document.body.dataset.state)", timeout=TIMEOUT)
    assert page.evaluate("document.body.dataset.state") == "error"
    assert page.inner_text("#error").startswith(str(want))
    assert page.eval_on_selector("#error .error-at", "e => e.textContent") == caret_lines(expr, want.column)
    # the selection in the input covers the character at the column (UTF-16 offsets there)
    start, end = page.eval_on_selector("#expr", "e => [e.selectionStart, e.selectionEnd]")
    before = len(expr[: want.column - 1].encode("utf-16-le")) // 2
    assert start == before and end - start == len(expr[want.column - 1 : want.column].encode("utf-16-le")) // 2


def test_an_error_without_a_column_draws_no_caret(page):
    page.fill("#expr", "   ")
    page.click("#solve")
    wait_until(page, "document.getElementById('error').textContent === 'empty expression'", timeout=TIMEOUT)
    assert page.evaluate("document.body.dataset.state") == "error"
    assert page.query_selector("#error .error-at") is None
