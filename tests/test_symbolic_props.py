"""Property tests against SymPy on random polynomials (reference stepper, few examples each,
so the whole symbolic suite stays well under a minute and a half on two cores)."""

from __future__ import annotations

import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sketchpad.symbolic import Context, expand, factor, parse_poly, solve
from sketchpad.symbolic.roots import rational_roots

from profiles import examples
from symbolic_helpers import X, assert_factors_match, assert_roots_match, to_sympy

# examples(n): n, or 20 n drawn afresh under HYPOTHESIS_PROFILE=nightly (tests/profiles.py).
FAST = settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])

small = st.integers(-9, 9)
wide = st.integers(-999, 999)  # expansion's coefficients (factoring stays on small ones: its search grows fast)
nonzero = small.filter(lambda v: v != 0)


def text_of(coeffs: list[int]) -> str:
    """Dense coefficients (highest first) as an input string in our syntax."""
    n = len(coeffs) - 1
    return " + ".join(f"({c})*x^{n - k}" for k, c in enumerate(coeffs)) or "0"


def sym_of(coeffs: list[int]):
    n = len(coeffs) - 1
    return sum(c * X ** (n - k) for k, c in enumerate(coeffs))


@st.composite
def factor_lists(draw, max_factors=3, coeff=small):
    """A product of random small factors (degree 1..3), some repeated, as (text, sympy expr)."""
    parts, texts = [], []
    content = draw(st.sampled_from([1, 1, 1, -1, 2, -6]))
    for _ in range(draw(st.integers(1, max_factors))):
        deg = draw(st.sampled_from([1, 1, 2, 2, 3]))
        cs = [draw(coeff.filter(lambda v: v != 0))] + [draw(coeff) for _ in range(deg)]
        m = draw(st.sampled_from([1, 1, 1, 2]))
        parts.append(sym_of(cs) ** m)
        texts.append(f"({text_of(cs)})^{m}")
    return f"{content}*" + "*".join(texts), content * sympy.Mul(*parts)


@FAST
@given(st.lists(st.lists(wide, min_size=1, max_size=6), min_size=1, max_size=3), st.integers(0, 3))
def test_expand_equals_sympy(polys, power):
    text = "*".join(f"({text_of(p)})" for p in polys) + f" - ({text_of(polys[0])})^{power}"
    want = sympy.expand(sympy.Mul(*[sym_of(p) for p in polys]) - sym_of(polys[0]) ** power)
    got = expand(text, "reference")
    assert sympy.expand(to_sympy(str(got)) - want) == 0
    if want != 0:
        assert got.poly.coeffs() == [int(c) for c in sympy.Poly(want, X).all_coeffs()]


@FAST
@given(factor_lists())
def test_factor_products_match_sympy(case):
    text, expr = case
    if sympy.degree(expr, X) < 1:
        return
    r = factor(text, "reference")
    assert r.proven  # Zassenhaus's search is complete: always proven
    assert_factors_match(r, expr)


@FAST
@given(st.lists(small, min_size=3, max_size=5).filter(lambda c: c[0] != 0))
def test_factor_random_dense_up_to_degree_4(coeffs):
    """Degree <= 4: full factorisation, always proven (no budget involved)."""
    r = factor(text_of(coeffs), "reference")
    assert r.proven
    assert_factors_match(r, sym_of(coeffs))


@FEW
@given(st.lists(st.tuples(nonzero, nonzero, small), min_size=2, max_size=2))
def test_factor_quartic_as_two_quadratics(quads):
    expr = sympy.Mul(*[a * X**2 + b * X + c for a, b, c in quads])
    text = "*".join(f"(({a})x^2 + ({b})x + ({c}))" for a, b, c in quads)
    assert_factors_match(factor(text, "reference"), expr)


@FAST
@given(
    st.lists(st.tuples(nonzero, small), min_size=0, max_size=3),
    st.lists(st.tuples(nonzero, small, small), min_size=0, max_size=2),
    st.sampled_from([1, 2]),
)
def test_roots_equal_sympy(linears, quads, m):
    """Products of linear and quadratic factors: every root exact, surds in simplest form."""
    if not linears and not quads:
        return
    factors = [a * X - b for a, b in linears] + [a * X**2 + b * X + c for a, b, c in quads]
    expr = sympy.expand(sympy.Mul(*factors) ** m)
    text = (
        "("
        + "*".join(f"(({a})x - ({b}))" for a, b in linears)
        + ("*" if linears and quads else "")
        + "*".join(f"(({a})x^2 + ({b})x + ({c}))" for a, b, c in quads)
        + f")^{m}"
    )
    assert_roots_match(solve(text, "reference"), expr)


@FEW
@given(
    st.lists(st.tuples(st.integers(1, 12), st.integers(-20, 20)), min_size=1, max_size=2),
    st.tuples(nonzero, small, small),
)
def test_rational_root_methods_agree(linears, quad):
    """The rational root theorem and Hensel lifting find the same roots."""
    expr = sympy.expand(sympy.Mul(*[a * X - b for a, b in linears]) * (quad[0] * X**2 + quad[1] * X + quad[2]))
    text = text_of([int(c) for c in sympy.Poly(expr, X).all_coeffs()])
    got = {}
    for method in ("divisors", "hensel"):
        ctx = Context("reference")
        got[method] = sorted(
            (r.num.value * 10**6 // r.den.value, str(r)) for r in rational_roots(parse_poly(ctx, text), method)
        )
    assert got["divisors"] == got["hensel"]
    want = sorted(str(sympy.Rational(r)) for r in sympy.roots(sympy.Poly(expr, X), filter="Q"))
    assert sorted(s for _, s in got["hensel"]) == want


# degree >= 5: Zassenhaus's method ---------------------------------------------------------------


def test_zassenhaus_splits_and_proves():
    for text in (
        "(x^2 + x + 1)(x^3 - 2)",
        "(x^3 + x + 1)(x^3 - 2)",
        "x^5 - x - 1",
        "(x^2 + 1)(x^2 + 2)(x^2 + 3)",
        "(x^2 - 2)^2 (x^3 + 3x - 1)",
        "(x^2 + x - 8)(7x^2 + 9x - 9)(x^2 + 8x - 8)",
        "(x^2 + 3x + 9)(x^5 + x^4 - 3x + 7)",
        "x^7 + 3x^3 - 5x + 11",
    ):
        r = factor(text, "reference")
        assert r.proven, text
        assert_factors_match(r, parse_sym(text))


def parse_sym(text):
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    return parse_expr(
        text, transformations=standard_transformations + (implicit_multiplication_application, convert_xor)
    )
