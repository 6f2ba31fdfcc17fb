"""Real roots to N digits, checked against SymPy (exact root counts in the intervals) and mpmath
(the values): Wilkinson's polynomial and its famous perturbation, Mignotte-type polynomials
with close roots, x^n - 2, random polynomials (Hypothesis), the JSON shape, the guards.

The full sizes at 50 digits (every corpus polynomial, x^n - 2 for every n <= 30, Wilkinson's
perturbation, 200 Hypothesis examples) run with `-m slow` and in
benchmarks/bench_symbolic_scale.py (results in benchmarks/results/symbolic.md); the default
run keeps a sample of each, some at fewer digits, so the suite stays within its time budget."""

from __future__ import annotations

import json
import os

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from realroot_oracle import X, check_real_roots

from sketchpad.errors import InputError
from sketchpad.symbolic import solve

HERE = os.path.dirname(__file__)
CORPUS = json.load(open(os.path.join(HERE, "data", "symbolic_corpus.json")))["polynomials"]


def text_of(coeffs: list[int]) -> str:
    n = len(coeffs) - 1
    return " + ".join(f"({c})*x^{n - k}" for k, c in enumerate(coeffs) if c) or "0"


def solved(coeffs: list[int], digits: int):
    s = solve(text_of(coeffs), "reference", digits=digits, max_operations=2_000_000)
    check_real_roots(s, coeffs, digits)
    return s


def coeffs_of(expr) -> list[int]:
    return [int(c) for c in sympy.Poly(sympy.expand(expr), X).all_coeffs()]


def test_x5_minus_x_minus_1_json_shape():
    s = solve("x^5 - x - 1", "reference", digits=10)
    d = s.as_dict()
    assert d["real_roots"] == [
        {
            "factor": "x^5 - x - 1",
            "multiplicity": 1,
            "interval": ["11673039782/10000000000", "11673039783/10000000000"],
            "approx": "1.1673039782",
            "proven": True,
        }
    ]
    assert d["nonreal_roots"] == 4 and d["digits"] == 10 and d["proven"]
    assert d["unsolved"][0]["factor"] == "x^5 - x - 1"  # today's fields stay
    check_real_roots(s, [1, 0, 0, 0, -1, -1], 10)
    assert "x ≈ 1.1673039782" in str(s) and "1 real root, 4 non-real" in str(s)


WILKINSON = sympy.prod([X - k for k in range(1, 21)])


def test_wilkinson_20():
    s = solved(coeffs_of(WILKINSON), 50)
    assert [r.approx_text.split(".")[0] for r in s.real_roots] == [str(k) for k in range(1, 21)]


@pytest.mark.nightly  # the isolation alone (ten pairs of close roots, 26-digit coefficients) takes minutes
@pytest.mark.parametrize("digits", [12, 50])
def test_wilkinson_20_perturbed(digits):
    """Wilkinson's experiment: x^19's coefficient -210 moved by 2^-23; ten roots stay real."""
    s = solved(coeffs_of(2**23 * WILKINSON - X**19), digits)
    assert len(s.real_roots) == 10 and s.nonreal_roots == 10


@pytest.mark.parametrize("n, a", [(4, 10), (5, 100), (7, 30)])
def test_mignotte_type_close_roots(n, a):
    """x^n - 2 (a x - 1)^2: two real roots within about a^-(n+2)/2 of 1/a and each other."""
    s = solved(coeffs_of(X**n - 2 * (a * X - 1) ** 2), 50)
    close = sympy.Rational(1, a * a)
    near = [r for r in s.real_roots if abs(sympy.Rational(r.approx_text) - sympy.Rational(1, a)) < close]
    assert len(near) == 2 and near[0].approx_text != near[1].approx_text


@pytest.mark.parametrize("n, digits", [(2, 50), (3, 50), (7, 50), (12, 30), (30, 15)])
def test_x_to_the_n_minus_2(n, digits):
    s = solved([1] + [0] * (n - 1) + [-2], digits)
    assert len(s.real_roots) == (2 if n % 2 == 0 else 1)


@pytest.mark.nightly
@pytest.mark.parametrize("n", range(1, 31))
def test_x_to_the_n_minus_2_all(n):
    solved([1] + [0] * (n - 1) + [-2], 50)


# the corpus at 50 digits: a sample of every twentieth here, all of it with -m slow
@pytest.mark.parametrize("entry", CORPUS[::20], ids=[p["source"].split("::")[1] for p in CORPUS[::20]])
def test_corpus_real_roots_sample(entry):
    solved([int(c) for c in entry["coefficients"]], 50)


@pytest.mark.nightly
@pytest.mark.parametrize("entry", CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_corpus_real_roots_all(entry):
    solved([int(c) for c in entry["coefficients"]], 50)


polys = st.lists(st.integers(-30, 30), min_size=2, max_size=13).filter(lambda cs: cs[0] != 0 and any(cs[1:]))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polys)
def test_random_polynomials(cs):
    solved(cs, 30)


@pytest.mark.nightly
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polys)
def test_random_polynomials_200(cs):
    solved(cs, 50)


def test_rational_input_and_multiplicities():
    s = solve("(x^3 - 2)^2 (2x - 1) / 3", "reference", digits=12)
    check_real_roots(s, coeffs_of((X**3 - 2) ** 2 * (2 * X - 1)), 12)
    assert [(r.approx_text, r.multiplicity) for r in s.real_roots] == [("0.500000000000", 1), ("1.259921049894", 2)]


def test_zero_digits_and_negative_roots():
    s = solved([1, 0, -7, 7], 0)  # three real roots, two of them in (1, 2)
    assert [r.approx_text for r in s.real_roots] == ["-4", "1", "1"]


def test_bad_digits_are_input_errors():
    for bad in (-1, 1.5, "3"):
        with pytest.raises(InputError, match="digits"):
            solve("x^3 - 2", "reference", digits=bad)


def test_results_depend_on_the_procedures(monkeypatch):
    """Corrupt the sheet's large products (the refinement's values on fine grids; a +1 there
    changes no sign, so their sign is flipped): the refined digits change or the inconsistency
    is caught, so every digit of a real root comes from the procedures (no arithmetic on the side)."""
    from sketchpad.arith import Arithmetic

    good = solve("x^3 - 2", "reference", digits=20).real_roots[0].approx_text
    real = Arithmetic.many

    def wrong(self, ops):
        out = real(self, ops)
        return [-v if o[0] == "*" and abs(v) > 10**30 else v for o, v in zip(ops, out)]

    monkeypatch.setattr(Arithmetic, "many", wrong)
    try:
        bad = solve("x^3 - 2", "reference", digits=20).real_roots[0].approx_text
    except (ArithmeticError, InputError):
        return  # the inconsistency was caught
    assert bad != good
