"""Complete factorisation over Z (issue 14): Yun, Cantor-Zassenhaus mod p, Hensel lifting and
Zassenhaus recombination; proven flags in factor and solve; no internal error reaches the CLI."""

from __future__ import annotations

import json

import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sketchpad import cli
from sketchpad import symbolic as symbolic_pkg
from sketchpad.symbolic import Context, factor, parse_poly, solve
from sketchpad.symbolic.cantor_zassenhaus import distinct_degree, distinct_degree_many, factor_mod_p, monic_mod_p
from sketchpad.symbolic.squarefree import yun

from symbolic_helpers import X, assert_factors_match

DEGREE25 = (
    "-29802322387695312500000000000000000000*x^25 + 2980232238769531250000000000000000*x^20"
    " + 1743435859680175781250000000000*x^15 + 114142894744873046875000000*x^10"
    " - 210106372833251953125*x^5 + 95367431640625"
)


def _sym(text: str):
    return sympy.sympify(text.replace("^", "**"), locals={"x": X})


def test_degree_25_from_sympy_factors_and_is_proven():
    r = factor(DEGREE25, "reference")
    assert r.proven
    assert_factors_match(r, _sym(DEGREE25))
    assert str(r.content) == "-95367431640625"
    assert sorted(m for _, m in r.factors) == [1, 1, 2, 2, 2]


def test_x27_plus_and_minus_one_split_completely():
    for text in ("x^27 + 1", "x^27 - 1"):
        r = factor(text, "reference")
        assert r.proven and len(r.factors) == 4
        assert_factors_match(r, _sym(text))


def test_yun_gives_the_multiplicities():
    ctx = Context("reference")
    parts, _ = yun(parse_poly(ctx, "(x - 1)(x + 2)^2 (x^2 + 1)^3 (x - 3)^3"))
    assert [(str(a), i) for a, i in parts] == [("x - 1", 1), ("x + 2", 2), ("x^3 - 3*x^2 + x - 3", 3)]


def test_factoring_mod_p_matches_sympy():
    for text, p in (("x^8 - 1", 7), ("x^6 + x^5 + x^4 + x^3 + x^2 + x + 1", 3), ("x^5 - x - 1", 7)):
        ctx = Context("reference")
        P = ctx.const(p, "p")
        got = sorted(tuple(g.coeffs()) for g in factor_mod_p(monic_mod_p(parse_poly(ctx, text), P, p), P, p))
        sf = sympy.Poly(_sym(text), X, modulus=p).factor_list()[1]
        want = sorted(
            tuple(int(c) % p for c in sympy.Poly(g.as_expr(), X, modulus=p).monic().all_coeffs())
            for g, m in sf
            for _ in range(m)
        )
        assert got == want


def _sympy_factors_mod(text: str, p: int) -> list:
    sf = sympy.Poly(_sym(text), X, modulus=p).factor_list()[1]
    return sorted(
        tuple(int(c) % p for c in sympy.Poly(g.as_expr(), X, modulus=p).monic().all_coeffs())
        for g, m in sf
        for _ in range(m)
    )


def test_distinct_degree_of_several_primes_side_by_side():
    # degree 10 (every d at once) and 14 (one d after another); the leftover factor of degree
    # > n/2 comes as None with rests=False, and factor_mod_p divides it out
    for text in (
        "47*x^10 - 91*x^9 + 10*x^8 + 24*x^7 + 48*x^6 - 96*x^5 - 47*x^4 + 19*x^3 + 26*x^2 - 28*x + 68",
        "(x^2 + 1)*(x^5 - x - 1)*(x^7 + 3*x + 5)",
    ):
        primes = [p for p in (3, 5, 7, 11, 13) if sympy.Poly(_sym(text), X, modulus=p).is_sqf]
        primes = [p for p in primes if int(sympy.Poly(_sym(text), X).LC()) % p][:3]
        assert len(primes) >= 2
        ctx = Context("reference")
        f = parse_poly(ctx, text)
        items = [(monic_mod_p(f, ctx.const(p, "p"), p), ctx.const(p, "p"), p) for p in primes]
        before = ctx.batches
        together = distinct_degree_many(items, rests=False)
        side_by_side = ctx.batches - before
        before = ctx.batches
        apart = [distinct_degree(*it) for it in items]
        assert side_by_side < ctx.batches - before
        for (fm, P, p), (parts, pw), (want, _) in zip(items, together, apart):
            assert [d for d, _ in parts] == [d for d, _ in want]
            assert all(F is None or str(F) == str(G) for (_, F), (_, G) in zip(parts, want))
            got = sorted(tuple(g.coeffs()) for g in factor_mod_p(fm, P, p, (parts, pw)))
            assert got == _sympy_factors_mod(text, p)


def test_factoring_mod_p_is_reproducible():
    a, b = factor("x^27 + 1", "reference"), factor("x^27 + 1", "reference")
    assert (a.forward_passes, a.batches, a.operations) == (b.forward_passes, b.batches, b.operations)


def test_solve_reports_unsolved_factors_as_proven_with_a_reason(capsys):
    s = solve("(x^5 - x - 1)(x - 2)", "reference")
    (u,) = s.unsolved
    assert u.proven and u.reason.startswith("degree 5 > 2, no rational roots, proven irreducible")
    d = s.as_dict()
    assert d["proven"] is True
    assert d["unsolved"][0]["proven"] is True and "proven irreducible" in d["unsolved"][0]["reason"]
    assert "proven irreducible" in str(s)
    assert cli.main(["poly", "solve", "x^5 - x - 1", "--stepper", "reference", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["unsolved"][0]["proven"] is True and out["unsolved"][0]["reason"]


def test_an_internal_fault_is_one_line_and_exit_2(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise ArithmeticError("internal error: something left over")

    monkeypatch.setattr(symbolic_pkg, "factor", broken)
    assert cli.main(["poly", "factor", "x^2 - 1", "--stepper", "reference"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" in err and "Traceback" not in err


# fuzz: products of random irreducible factors ------------------------------------------------


@st.composite
def irreducibles(draw):
    deg = draw(st.sampled_from([1, 2, 2, 3, 4, 5]))
    cs = [draw(st.integers(1, 6))] + [draw(st.integers(-6, 6)) for _ in range(deg)]
    expr = sum(c * X ** (deg - k) for k, c in enumerate(cs))
    _, fl = sympy.factor_list(expr, X)
    if len(fl) != 1 or fl[0][1] != 1:  # keep only irreducible ones (SymPy decides)
        expr = X**deg + 2 if deg > 1 else X + 1  # x^d + 2: irreducible (Eisenstein at 2)
    return expr


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(irreducibles(), st.sampled_from([1, 1, 1, 2])), min_size=2, max_size=3))
def test_fuzz_products_of_irreducibles(parts):
    expr = sympy.Mul(*[g**m for g, m in parts])
    if sympy.degree(expr, X) > 12:
        return
    text = str(sympy.expand(expr)).replace("**", "^")
    r = factor(text, "reference")
    assert r.proven
    assert_factors_match(r, expr)
