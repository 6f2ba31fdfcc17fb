"""Issue 14: rational coefficients on input and output, with SymPy as the judge.

expand over Q[x] prints coefficients in lowest terms; factor gives a rational content times
primitive integer factors, "(1/2)*(x - 1)*(x + 1)"; solve clears the denominators (by their lcm,
computed on the sheet) and its roots are checked by exact substitution."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from sketchpad.cli import main
from sketchpad.errors import InputError
from sketchpad.symbolic import Context, Poly, expand, factor, parse_poly, solve
from sketchpad.symbolic.qpoly import QPoly

from symbolic_helpers import X, coeff_key, to_sympy

R = "reference"


def sym(text: str):
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    # our reading of "1/2x" is (1/2)*x; SymPy's implicit multiplication agrees once the
    # number after '/' is parenthesised with what precedes it
    return parse_expr(
        text, transformations=standard_transformations + (implicit_multiplication_application, convert_xor)
    )


EXPAND = [
    ("1/2x^2 + x + 1/2", "1/2*x^2 + x + 1/2"),
    ("x^2/3 - 3/4", "1/3*x^2 - 3/4"),
    ("(2/3)x + 1", "2/3*x + 1"),
    ("2x/4 + 1/2", "1/2*x + 1/2"),
    ("(1/2x + 2/3)^2", "1/4*x^2 + 2/3*x + 4/9"),
    ("x/1", "x"),
    ("(x + 1)/3 - x/3", "1/3"),
    ("1/2x + 1/2x", "x"),
    ("1/-2x", "-1/2*x"),
    ("6/4", "3/2"),
    ("(x^2 - 1)/2 * 4", "2*x^2 - 2"),
]


@pytest.mark.parametrize("text, want", EXPAND)
def test_expand_rational_examples(text, want):
    r = expand(text, R)
    assert str(r) == want
    assert sympy.expand(to_sympy(want) - sym(text.replace("1/-2x", "(1/-2)x"))) == 0
    d = r.as_dict()
    assert d["expanded"] == want and all("/" not in c or _lowest(c) for c in d["coefficients"])


def _lowest(c: str) -> bool:
    n, d = c.split("/")
    return Fraction(int(n), int(d)).denominator == int(d) and int(d) > 1


def test_integer_results_stay_plain_polys():
    ctx = Context(R)
    assert type(parse_poly(ctx, "2x/2 + 3")) is Poly
    assert type(parse_poly(ctx, "x/2")) is QPoly
    assert type(expand("(x+1)^2", R).poly) is Poly


FACTOR = [
    ("1/2x^2 - 1/2", "(1/2)*(x - 1)*(x + 1)", Fraction(1, 2)),
    ("1/2x^2 + x + 1/2", "(1/2)*(x + 1)^2", Fraction(1, 2)),
    ("x^2/3 - 3/4", "(1/12)*(2*x - 3)*(2*x + 3)", Fraction(1, 12)),
    ("(2/3)x + 1", "(1/3)*(2*x + 3)", Fraction(1, 3)),
    ("-3/4x^3 + 3/4x", "(-3/4)*(x - 1)*x*(x + 1)", Fraction(-3, 4)),
    ("1/2", "(1/2)", Fraction(1, 2)),
    ("x/2 + x/2", "x", Fraction(1)),
]


@pytest.mark.parametrize("text, want, content", FACTOR)
def test_factor_rational_examples(text, want, content):
    f = factor(text, R)
    assert str(f) == want and f.proven
    c = f.content
    assert (Fraction(c.num.value, c.den.value) if hasattr(c, "den") else Fraction(c.value)) == content
    assert_rational_factors_match(f, sym(text))
    assert json.loads(json.dumps(f.as_dict()))["content"] == str(content)


def assert_rational_factors_match(result, expr) -> None:
    """content * prod(factors) == expr, and the factors are SymPy's over Q up to sign/order."""
    sc, sf = sympy.factor_list(sympy.expand(expr), X)
    sign, theirs = 1, []
    for g, m in sf:
        s, key = coeff_key(g)
        sign *= s**m
        theirs.append((key, m))
    ours = [(tuple(g.coeffs()), m) for g, m in result.factors]
    assert sorted(ours) == sorted(theirs), (str(result), sf)
    c = result.content
    ours_c = sympy.Rational(c.num.value, c.den.value) if hasattr(c, "den") else sympy.Integer(c.value)
    assert ours_c == sympy.Rational(sc) * sign
    product = ours_c
    for g, m in result.factors:
        product *= to_sympy(str(g)) ** m
    assert sympy.expand(product - expr) == 0


def assert_roots_by_substitution(solution, expr) -> None:
    n = sympy.degree(expr, X)
    assert sum(r.multiplicity for r in solution.roots) + sum(g.degree * m for g, m in solution.unsolved) == n
    for r in solution.roots:
        v = r.value
        value = sympy.Rational(v.num.value, v.den.value) if r.kind == "rational" else sympy.sympify(v.text(python=True))
        assert sympy.simplify(sympy.expand(expr.subs(X, value))) == 0, (str(r), expr)
        # multiplicity: the (m-1)-th derivative vanishes too, the m-th does not
        d = sympy.diff(expr, X, r.multiplicity - 1)
        assert sympy.simplify(sympy.expand(d.subs(X, value))) == 0


@pytest.mark.parametrize(
    "text",
    ["1/2x^2 + x + 1/2", "x^2/3 - 3/4", "(2/3)x + 1 = 1/3", "x^2/2 = 1", "1/3x^3 - 1/12x", "x^2/5 + 2/5x + 1"],
)
def test_solve_rational_examples(text):
    s = solve(text, R)
    lhs, _, rhs = text.partition("=")
    expr = sym(lhs) - (sym(rhs) if rhs else 0)
    assert_roots_by_substitution(s, expr)
    assert s.as_dict()["factored"].startswith("(")  # a rational content first


def test_solve_answers_read_well():
    assert [str(r) for r in solve("x^2/3 - 3/4", R).roots] == ["3/2", "-3/2"]
    assert str(solve("1/2x^2 + x + 1/2", R)) == "x = -1  (multiplicity 2)"


# random rational polynomials ---------------------------------------------------------------
frac = st.builds(Fraction, st.integers(-30, 30), st.integers(1, 12))
coeffs = st.lists(frac, min_size=1, max_size=5).filter(lambda cs: any(cs))


def text_of(cs: list[Fraction], style: int) -> str:
    """cs lowest degree first, in one of three spellings: 3/4x^2, (3/4)x^2, 3x^2/4."""
    parts = []
    for k, c in enumerate(cs):
        if c == 0:
            continue
        mono = "" if k == 0 else ("x" if k == 1 else f"x^{k}")
        n, d = abs(c.numerator), c.denominator
        if style == 0 or not mono:
            body = f"{n}/{d}{mono}"
        elif style == 1:
            body = f"({n}/{d}){mono}"
        else:
            body = f"{n}{mono}/{d}"
        parts.append(("- " if c < 0 else "+ ") + body)
    return " ".join(parts).lstrip("+ ")


def sym_of(cs):
    return sum(sympy.Rational(c.numerator, c.denominator) * X**k for k, c in enumerate(cs))


@settings(max_examples=25, deadline=None)
@given(coeffs, st.integers(0, 2))
def test_expand_equals_sympy(cs, style):
    r = expand(text_of(cs, style), R)
    assert sympy.expand(to_sympy(str(r)) - sym_of(cs)) == 0
    for c in r.as_dict()["coefficients"]:
        if "/" in c:
            assert _lowest(c.lstrip("-"))


@settings(max_examples=20, deadline=None)
@given(coeffs.filter(lambda cs: any(cs[1:])), st.integers(0, 2))
def test_factor_and_solve_random_rational_polynomials(cs, style):
    f = factor(text_of(cs, style), R)
    assert_rational_factors_match(f, sym_of(cs))
    assert_roots_by_substitution(solve(text_of(cs, style), R), sym_of(cs))


linear = st.tuples(st.integers(-6, 6), st.integers(1, 4))  # p/q roots


@settings(max_examples=15, deadline=None)
@given(frac.filter(bool), st.lists(linear, min_size=1, max_size=3), st.tuples(frac, frac))
def test_factor_and_solve_products_of_rational_factors(c, lins, quad):
    """c * prod(x - p/q) * (x^2 + b x + d): splits into known factors over Q."""
    b, d = quad
    text = f"({c.numerator}/{c.denominator})" + "".join(f"(x - ({p}/{q}))" for p, q in lins)
    text += f"(x^2 + ({b.numerator}/{b.denominator})x + ({d.numerator}/{d.denominator}))"
    expr = sympy.Rational(c.numerator, c.denominator) * sympy.Mul(*[X - sympy.Rational(p, q) for p, q in lins])
    expr *= X**2 + sympy.Rational(b.numerator, b.denominator) * X + sympy.Rational(d.numerator, d.denominator)
    assert_rational_factors_match(factor(text, R), expr)
    assert_roots_by_substitution(solve(text, R), sympy.expand(expr))


# what stays unsupported: one clear line ---------------------------------------------------------
BAD = [
    ("1/(x+1)", "division by a polynomial"),
    ("(x^2 - 1)/(x - 1)", "division by a polynomial"),
    ("x/(2x)", "division by a polynomial"),
    ("x/0", "division by zero"),
    ("x/(1 - 1)", "division by zero"),
    ("1/2x + y", "multivariate polynomials are not supported"),
    ("x^n/2", "symbolic exponents are not supported"),
    ("2^x", "symbolic exponents are not supported"),
    ("x^(1/2)", "non-integer exponent"),
    ("0.5x", "not an integer"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_unsupported_input_is_a_clear_input_error(text, message):
    for call in (expand, factor, solve):
        with pytest.raises(InputError, match=message.replace("(", r"\(")):
            call(text, R)


@pytest.mark.parametrize("text, message", BAD[:1] + BAD[5:7])
def test_cli_unsupported_input_is_one_line(text, message, capsys):
    assert main(["poly", "factor", text, "--stepper", R]) == 2  # the CLI's code for bad input
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_cli_rational(capsys):
    assert main(["poly", "factor", "1/2x^2 - 1/2", "--stepper", R]) == 0
    assert capsys.readouterr().out.strip() == "(1/2)*(x - 1)*(x + 1)"
    assert main(["poly", "expand", "(1/2x + 2/3)^2", "--stepper", R]) == 0
    assert capsys.readouterr().out.strip() == "1/4*x^2 + 2/3*x + 4/9"
    assert main(["poly", "solve", "x^2/3 = 3/4", "--stepper", R, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [r["root"] for r in d["roots"]] == ["3/2", "-3/2"] and d["factored"] == "(1/12)*(2*x - 3)*(2*x + 3)"


def test_the_default_model_stepper_agrees_with_the_reference():
    for call, text in ((expand, "(1/2x + 2/3)^3"), (factor, "x^2/3 - 3/4"), (solve, "1/2x^2 = x + 3/2")):
        m, r = call(text), call(text, R)
        assert m.stepper == "model" and m.as_dict()["forward_passes"] > 0
        keep = ("stepper", "seconds")
        assert {k: v for k, v in m.as_dict().items() if k not in keep} == {
            k: v for k, v in r.as_dict().items() if k not in keep
        }
