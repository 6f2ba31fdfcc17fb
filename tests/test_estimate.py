"""The progress estimate (sketchpad/estimate.py) against the real batch counts of the reference
stepper: within a factor of two on every operation, both modes, for uniformly random operands,
once a solve is long enough (40 batches or more) for a percentage to matter.  Operands with
structure can end far sooner than estimated (a gcd of two numbers with a large common factor
takes few Euclid steps): the percentage then jumps to the answer, which is why it is called an
estimate and never reaches 100 before the result."""

from __future__ import annotations

import random

import pytest

from sketchpad.estimate import BASE_BYTES, expected_batches, expected_bytes, expected_views
from sketchpad.expr import parse
from sketchpad.solve import solve

FORMS = {
    "+": "{a} + {b}",
    "-": "{a} - {b}",
    "*": "{a} * {b}",
    "//": "{a} // {b}",
    "%": "{a} % {b}",
    "sqrt": "sqrt({a})",
    "gcd": "gcd({a}, {b})",
    "mixed": "{a} * {b} + gcd({b}, 12345) - {a} // 987",
}


def _problems(count: int, seed: int = 2026):
    rng = random.Random(seed)
    for i in range(count):
        form = sorted(FORMS)[i % len(FORMS)]
        parallel = i % 2 == 0
        most = 90 if parallel else 30  # the sequential mode is one view per batch: keep it short
        a, b = (str(rng.randrange(10 ** (n - 1), 10**n)) for n in (rng.randint(1, most), rng.randint(1, most)))
        if form != "sqrt" and rng.random() < 0.3:
            a = "-" + a
        yield FORMS[form].format(a=a, b=b), parallel


@pytest.mark.parametrize("expr, parallel", list(_problems(64)))
def test_estimate_within_a_factor_of_two(expr, parallel):
    real = solve(expr, "reference", parallel=parallel).batches
    guess = expected_batches(parse(expr), parallel)
    assert guess >= 1
    if real >= 40:
        assert real / 2 <= guess <= 2 * real, (expr, parallel, real, guess)


def test_long_problems_close():
    # The long solves a progress bar is for: a 200/100-digit division, a 200-digit root, a gcd.
    rng = random.Random(7)
    a, b = str(rng.randrange(10**199, 10**200)), str(rng.randrange(10**99, 10**100))
    for expr in (f"{a} // {b}", f"sqrt({a})", f"gcd({a}, {b})"):
        real = solve(expr, "reference").batches
        assert abs(expected_batches(parse(expr)) - real) <= 0.2 * real, (expr, real)


@pytest.mark.parametrize("expr, parallel", list(_problems(64, seed=2027)))
def test_views_presented_within_a_factor_of_two(expr, parallel):
    """The server's budget refuses by this estimate before a solve starts (sketchpad/server)."""
    real = solve(expr, "reference", parallel=parallel).views_presented
    guess = expected_views(parse(expr), parallel)
    if real >= 1000:
        assert real / 2 <= guess <= 2 * real, (expr, parallel, real, guess)


@pytest.mark.parametrize("form", ["{a} * {b}", "{a} // {b}", "sqrt({a})", "gcd({a}, {b})", "{a} - {b}"])
def test_memory_held_is_within_the_estimate(form):
    """Peak memory the solve allocates (tracemalloc: numpy arrays and Python objects) is at most
    the estimate, and not far below it (the estimate is a budget, not a wild upper bound)."""
    import tracemalloc

    import sketchpad.compiled  # noqa: F401  (numba's import is the process's, not a solve's: before the count)

    rng = random.Random(11)
    a, b = str(rng.randrange(10**299, 10**300)), str(rng.randrange(10**149, 10**150))
    expr = form.format(a=a, b=b)
    tracemalloc.start()
    try:
        solve(expr, "reference")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    guess = expected_bytes(parse(expr))
    assert peak <= guess <= 4 * peak + BASE_BYTES, (expr, peak, guess)


def test_the_page_estimates_as_python_does():
    """web/estimate.js (the page's progress bar) is a port of expected_batches: equal on every
    problem of these tests, both modes."""
    import json
    import pathlib
    import shutil
    import subprocess

    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    root = pathlib.Path(__file__).resolve().parents[1]
    exprs = (
        [e for e, _ in _problems(64)] + [e for e, _ in _problems(64, seed=9)] + ["7", "-(2 * 3)", "sqrt(gcd(12, 18))"]
    )
    script = (
        "import { parse } from './web/expr.js'; import { expectedBatches } from './web/estimate.js';"
        f"const xs = {json.dumps(exprs)};"
        "const both = (e) => [expectedBatches(parse(e), true), expectedBatches(parse(e), false)];"
        "console.log(JSON.stringify(xs.map(both)));"
    )
    r = subprocess.run(
        ["node", "--input-type=module", "-e", script], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    want = [[expected_batches(parse(e), True), expected_batches(parse(e), False)] for e in exprs]
    assert json.loads(r.stdout) == want
