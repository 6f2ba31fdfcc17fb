"""The heuristic gcd (sketchpad/symbolic/heugcd.py) against SymPy's gcd, with its fallbacks."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sketchpad.expr import Limits
from sketchpad.symbolic import heugcd
from sketchpad.symbolic.context import Context
from sketchpad.symbolic.poly import Poly

from profiles import examples

X = sympy.Symbol("x")
FAST = settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=examples(4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
coeffs = st.lists(st.integers(-30, 30), min_size=1, max_size=6)


def _poly(ctx, cs: list[int]) -> Poly:
    return Poly(ctx, {k: ctx.lit(c, "test coefficient") for k, c in enumerate(reversed(cs))})


def _check(a: list[int], b: list[int], c: list[int]) -> tuple:
    """heu_gcd(a c, b c) equals SymPy's primitive gcd, and the cofactors multiply back."""
    ctx = Context("reference")
    pa, pb, pc = _poly(ctx, a), _poly(ctx, b), _poly(ctx, c)
    if pa.is_zero or pb.is_zero or pc.is_zero:
        return None
    f, g = pa * pc, pb * pc
    h, qf, qg = heugcd.heu_gcd(f, g)
    want = sympy.Poly(sympy.gcd(sympy.Poly(f.coeffs(), X), sympy.Poly(g.coeffs(), X)), X)
    want = want.primitive()[1]
    if want.LC() < 0:
        want = -want
    assert h.coeffs() == [int(v) for v in want.all_coeffs()]
    assert (h * qf).coeffs() == f.coeffs() and (h * qg).coeffs() == g.coeffs()
    return h


dense = st.lists(st.integers(-30, 30), min_size=4, max_size=7).filter(lambda cs: cs[0] != 0)  # a c: degree >= 6


@FAST
@given(dense, coeffs, dense)
def test_heu_gcd_matches_sympy(a, b, c):
    _check(a, b, c)


@FEW
@given(coeffs.filter(lambda cs: len(cs) > 1 and cs[0] != 0), coeffs, coeffs)
def test_heu_gcd_sparse_inputs_fall_back(a, b, c):
    # polynomials in x^5 (at most one term in three degrees from degree 5 on): the remainder sequence answers
    saved, calls = heugcd._try, []
    heugcd._try = lambda *args: calls.append(args)
    try:
        _check(*([v for k in cs for v in (k, 0, 0, 0, 0)][:-4] for cs in (a, b, c)))
    finally:
        heugcd._try = saved
    assert not calls


def test_heu_gcd_values_past_the_gcd_limit_fall_back():
    # f(xi) would pass the gcd operand limit: no evaluation point is tried
    ctx = Context("reference", limits=Limits(quadratic_digits=(("gcd", 5),)))
    f = _poly(ctx, [1, 4, 5, 2])  # (x + 1)^2 (x + 2)
    saved, calls = heugcd._try, []
    heugcd._try = lambda *args: calls.append(args)
    try:
        h, qf, qd = heugcd.heu_gcd(f, f.derivative())
    finally:
        heugcd._try = saved
    assert not calls and h.coeffs() == [1, 1] and qf.coeffs() == [1, 3, 2]


@FAST
@given(dense, coeffs, dense)
def test_heu_gcd_falls_back_when_every_point_fails(a, b, c):
    saved = heugcd._try
    heugcd._try = lambda f, g, xi: None  # every evaluation point fails: the remainder sequence
    try:
        _check(a, b, c)
    finally:
        heugcd._try = saved


def test_heu_gcd_small_point_is_refused_or_a_common_divisor():
    # below the bound 2 min norm + 2 a try may fail (an extra factor of the values); what it
    # returns is still checked by exact division, so never a non-divisor
    ctx = Context("reference")
    f = _poly(ctx, [1, 0, -1]) * _poly(ctx, [1, 5])  # (x^2 - 1)(x + 5)
    g = _poly(ctx, [1, 0, -1]) * _poly(ctx, [1, -7])  # (x^2 - 1)(x - 7)
    outs = [heugcd._try(f, g, ctx.lit(v, "test point")) for v in (2, 3, 4, 6, 12)]
    assert any(o is None for o in outs)  # 12 divides the values' gcd at x = 2 and 6: extra factors
    for o in outs:
        if o is not None:
            h, qf, qg = o
            assert (h * qf).coeffs() == f.coeffs() and (h * qg).coeffs() == g.coeffs()
    assert heugcd.heu_gcd(f, g)[0].coeffs() == [1, 0, -1]


def test_heu_gcd_needs_no_remainder_sequence_on_repeated_factors(monkeypatch):
    # (x + 1)(7x + 3)^3 (x^2 - 3)^2, as corpus #123: the first point is the proof
    ctx = Context("reference")
    f = _poly(ctx, [1, 1]) * _poly(ctx, [7, 3]) ** 3 * _poly(ctx, [1, 0, -3]) ** 2
    monkeypatch.setattr(Poly, "gcd", lambda *a: pytest.fail("the remainder sequence ran"))
    h, qf, _ = heugcd.heu_gcd(f, f.derivative())
    assert h.coeffs() == (_poly(ctx, [7, 3]) ** 2 * _poly(ctx, [1, 0, -3])).coeffs()
    assert qf.coeffs() == (_poly(ctx, [1, 1]) * _poly(ctx, [7, 3]) * _poly(ctx, [1, 0, -3])).coeffs()
