"""Issue 14: the symbolic layer hands independent integer operations to the runtime together.

Batched and one-at-a-time computation (Context(batching=False)) must give identical numbers,
equal to Python's integers and SymPy's answers, while the batched one needs far fewer
sequential stepper calls (batches)."""

from __future__ import annotations

import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from sketchpad.symbolic import Context, Poly, expand, factor, intfactor, roots, solve
from sketchpad.symbolic.integer import batch, gcd_all, product_all, products, sums

from symbolic_helpers import X, assert_factors_match

coef = st.integers(-(10**12), 10**12)
small = st.integers(-50, 50)
dense = st.lists(coef, min_size=1, max_size=7)


def poly(ctx, cs):
    """cs highest first, as a Poly of ctx (every coefficient a recorded literal)."""
    n = len(cs) - 1
    return Poly(ctx, {n - i: ctx.lit(c, "test") for i, c in enumerate(cs) if c}, "x")


def values(p):
    return p.coeffs() if not p.is_zero else [0]


def convolve(a, b):
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    while len(out) > 1 and out[0] == 0:
        out.pop(0)
    return out


def both():
    return Context("reference"), Context("reference", batching=False)


@settings(max_examples=20, deadline=None)
@given(dense, dense)
def test_products_and_sums_match_python(a, b):
    for ctx in both():
        pa, pb = poly(ctx, a), poly(ctx, b)
        want = convolve(a, b)
        assert values(pa * pb) == (want if any(want) else [0])
        assert values(pa + pb) == values(poly(ctx, _add(a, b)))
        assert values(pa - pb) == values(poly(ctx, _add(a, [-v for v in b])))


def _add(a, b):
    n = max(len(a), len(b))
    a, b = [0] * (n - len(a)) + a, [0] * (n - len(b)) + b
    return [x + y for x, y in zip(a, b)]


@settings(max_examples=20, deadline=None)
@given(dense.filter(any), st.lists(small, min_size=1, max_size=5))
def test_evaluation_at_many_points_matches_python(cs, xs):
    for ctx in both():
        p = poly(ctx, cs)
        pts = [ctx.lit(x, "test") for x in xs]
        want = [sum(c * x ** (len(cs) - 1 - i) for i, c in enumerate(cs)) for x in xs]
        assert [v.value for v in p.eval_many(pts)] == want
        assert p.eval_int(pts[0]).value == want[0]
        qv = list(range(1, len(xs) + 1))
        qs = [ctx.lit(q, "test") for q in qv]
        n = p.degree
        hom = [sum(c * x**k * q ** (n - k) for k, c in zip(range(n, -1, -1), p.coeffs())) for x, q in zip(xs, qv)]
        assert [v.value for v in p.eval_homogeneous_many(list(zip(pts, qs)))] == hom


@settings(max_examples=20, deadline=None)
@given(dense.filter(any), st.integers(1, 10**6))
def test_content_and_exact_division_match_python(cs, k):
    for ctx in both():
        p = poly(ctx, [c * k for c in cs])
        c, prim = p.primitive()
        nz = [v for v in cs if v]
        g = math.gcd(*[v * k for v in nz])
        lead = next(v for v in cs if v)
        assert c.value == (g if lead > 0 else -g)
        assert values(prim) == [v * k // c.value for v in cs[cs.index(lead) :]]


@settings(max_examples=25, deadline=None)
@given(st.lists(coef, min_size=1, max_size=9), st.lists(st.lists(coef, min_size=1, max_size=4), min_size=1, max_size=4))
def test_batch_helpers_match_python(xs, groups):
    ctx = Context("reference")
    zs = [ctx.lit(x, "test") for x in xs]
    assert [v.value for v in products(list(zip(zs, zs[::-1])))] == [a * b for a, b in zip(xs, xs[::-1])]
    assert product_all(zs, lambda: None).value == math.prod(xs)
    assert gcd_all(zs).value == math.gcd(*xs)
    zg = [[ctx.lit(x, "test") for x in g] for g in groups]
    assert [v.value for v in sums(zg)] == [sum(g) for g in groups]
    ops = [("//", z, w) for z, w in zip(zs, zs[1:]) if not w.is_zero]
    assert [(q.value, r.value) for q, r in batch(ops)] == [divmod(z.value, w.value) for _, z, w in ops]


@settings(max_examples=30, deadline=None)
@given(st.integers(-(10**18), 10**18).filter(bool), st.sampled_from([1, 4, 9 * 49, 997**2, 1009**2, 2**10]))
def test_square_part_is_the_sequential_ones(n, square):
    ctx = Context("reference")
    a = intfactor.square_part(ctx.lit(n * square, "test"))
    b = roots.square_part(ctx.lit(n * square, "test"))
    assert (a[0].value, a[1].value, a[2]) == (b[0].value, b[1].value, b[2])
    s, c, proven = b
    assert s.value**2 * c.value == n * square and s.value > 0
    if proven:
        assert all(e == 1 for e in sympy.factorint(abs(c.value)).values())


def rational_poly_text(roots_, extra):
    """(x - r1)(x - r2)...(extra quadratic): a product with known factors."""
    parts = [f"({q}x - {p})" if p >= 0 else f"({q}x + {-p})" for p, q in roots_]
    a, b, c = extra
    return "".join(parts) + f"({a}x^2 + {b}x + {c})"


@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-9, 9), st.integers(1, 5)), min_size=1, max_size=3),
    st.tuples(st.integers(1, 6), small, small),
)
def test_batched_and_one_by_one_give_identical_answers(rts, extra):
    text = rational_poly_text(rts, extra)
    for call in (expand, factor, solve):
        on, off = call(text, "reference"), call(text, "reference", batching=False)
        keep = lambda d: {k: v for k, v in d.items() if k not in ("forward_passes", "batches", "seconds")}  # noqa: E731
        assert keep(on.as_dict()) == keep(off.as_dict()), text
        assert on.batches <= off.batches
    f = factor(text, "reference")
    assert_factors_match(f, _sym(text))


def _sym(text):
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    return parse_expr(
        text, transformations=standard_transformations + (implicit_multiplication_application, convert_xor)
    )


QUADRATIC = "12345678901234567891x^2 + 98765432109876543211x - 11111111112222222222"
DEGREE6 = "(x - 1)(x + 2)(2x - 3)(x + 4)(x^2 + x + 1)"


@pytest.mark.parametrize(
    "call, text, before",
    [
        # batches of the unmodified code (benchmarks/results/symbolic-before.md)
        (expand, "(x+1)^20", 906),
        (factor, DEGREE6, 5_981),
        # None: Zassenhaus's complete method (factors mod p, Hensel lifting) does more work on
        # this one than the budgeted quartic/Kronecker path it replaced; batching still pays
        (factor, "(x^2 + 1)(x^2 - 2)(x^2 + x + 1)", None),
        (solve, QUADRATIC, 8_341),
    ],
)
def test_batches_drop(call, text, before):
    on, off = call(text, "reference"), call(text, "reference", batching=False)
    assert str(on) == str(off)
    assert on.batches * 2 < off.batches and (before is None or on.batches * 2 < before), (on.batches, off.batches)
    assert on.forward_passes == sum(e["forward_passes"] for e in on.audit)
    assert on.batches == sum(e["batches"] for e in on.audit)


def test_the_quadratic_square_part_is_one_batch_of_trial_divisions():
    r = solve(QUADRATIC, "reference")
    assert r.batches < 1_000 and r.forward_passes < 100_000  # were 8,341 and 597,840
    f = _sym(QUADRATIC)
    for root in r.roots:
        v = sympy.sympify(root.value.text(python=True))
        assert sympy.expand(f.subs(X, v)) == 0
