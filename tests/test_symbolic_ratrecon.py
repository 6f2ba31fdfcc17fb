"""Rational reconstruction on the sheet (ratrecon.py) and early detection by fractions."""

from __future__ import annotations

import math

from sketchpad.symbolic import Context, factor, parse_poly, recombine
from sketchpad.symbolic.ratrecon import bound, lcm_many, reconstruct_many
from sketchpad.symbolic.zassenhaus import factor_squarefree


def test_reconstruction_finds_exactly_the_small_fractions():
    ctx = Context("reference")
    m = 211
    M = ctx.lit(m, "a modulus")
    N = bound(M)
    assert N.value == math.isqrt(m // 2)
    got = reconstruct_many([ctx.lit(u, "a residue") for u in range(m)], M, N)
    for u, nd in enumerate(got):
        small = [(n, d) for d in range(1, N.value + 1) for n in range(-N.value, N.value + 1) if (n - d * u) % m == 0]
        if nd is None:
            assert not small, u
        else:
            n, d = nd[0].value, nd[1].value
            assert (n - d * u) % m == 0 and abs(n) <= N.value and 0 < d <= N.value
            assert any(n * d2 == n2 * d for n2, d2 in small)


def test_lcm_many():
    ctx = Context("reference")
    groups = [[4, 6, 10], [7], [12, 18], [1, 5, 25, 3]]
    got = lcm_many([[ctx.lit(v, "a value") for v in g] for g in groups])
    assert [z.value for z in got] == [math.lcm(*g) for g in groups]


def test_fractions_end_the_lifting_early(monkeypatch):
    # long leading coefficient (the product of the factors' ones), short factor coefficients:
    # the fractions find the factors at a modulus far below 2 lc(f) |H|
    text = "(97x^3 - 5x + 89)(83x^4 + 3x^2 - 71)(79x^5 + x - 67)(73x^3 + 2x^2 - 61)"
    fast = factor(text, "reference")
    assert sorted(str(g) for g, _ in fast.factors) == sorted(
        ["97*x^3 - 5*x + 89", "83*x^4 + 3*x^2 - 71", "79*x^5 + x - 67", "73*x^3 + 2*x^2 - 61"]
    )
    assert fast.proven
    monkeypatch.setattr(recombine, "_early_fractions", lambda piece, *a: [piece])
    slow = factor(text, "reference")
    assert [str(g) for g, _ in slow.factors] == [str(g) for g, _ in fast.factors] and slow.proven
    assert fast.forward_passes < slow.forward_passes


def test_a_prime_above_the_bound_needs_no_lifting():
    # 2 B + 1 < 101: the factors modulo p are the factors over Z at once (K = 1)
    ctx = Context("reference")
    f = parse_poly(ctx, "(x^2 + 1)(x^2 + x + 2)")
    got = factor_squarefree(f, primes=[101])
    assert sorted(str(g) for g in got) == ["x^2 + 1", "x^2 + x + 2"]
