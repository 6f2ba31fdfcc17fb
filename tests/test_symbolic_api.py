"""Issue 24: a symbolic API a user can guess.  Polynomials come from text with Poly.parse and
QPoly.parse (checked against SymPy on generated polynomials), a wrong argument type is a
one-line TypeError naming what was expected (never a silent zero), and every public class,
function and method of sketchpad.symbolic has a docstring."""

from __future__ import annotations

import inspect
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sketchpad.symbolic as symbolic
from sketchpad.errors import InputError
from sketchpad.symbolic import Context, Poly, QPoly, expand, parse_equation, parse_poly

from symbolic_helpers import X

R = "reference"
FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- a wrong argument type is a clear TypeError --------------------------------------------------
def test_poly_of_text_is_a_type_error_that_points_to_parse():
    with pytest.raises(TypeError, match=r"^Poly\(ctx, terms, var\) takes a Context first.*Poly\.parse\('x\+1'\)$"):
        Poly("x+1")


def test_qpoly_of_text_is_a_type_error_that_points_to_parse():
    with pytest.raises(TypeError) as e:
        QPoly("1/2x+1")
    assert str(e.value) == (
        "QPoly(num, den) takes an integer Poly and a Sketchpad integer, not the text '1/2x+1': "
        "read a polynomial from text with QPoly.parse('1/2x+1')"
    )


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda ctx: Poly(42), "takes a Context first"),
        (lambda ctx: Poly(ctx, [1, 2]), "terms must be a dict"),
        (lambda ctx: Poly(ctx, {}, 1), "variable must be a str"),
        (lambda ctx: Poly.const(7), "Poly.const takes a Sketchpad integer"),
        (lambda ctx: QPoly(Poly.parse("x", context=ctx), 2), "not Poly and int"),
        (lambda ctx: QPoly.of(3), "cannot use a int as a polynomial"),
        (lambda ctx: Poly.parse("x", context=ctx) + 1, "cannot add a polynomial and a int"),
        (lambda ctx: parse_poly("x+1", ctx), r"parse_poly\(ctx, text\) takes a Context first"),
        (lambda ctx: parse_equation(None, "x = 1"), r"parse_equation\(ctx, text\) takes a Context first"),
        (lambda ctx: Poly.parse(3, R), "Poly.parse's text must be a str"),
        (lambda ctx: QPoly.parse(["x"], R), "QPoly.parse's text must be a str"),
        (lambda ctx: Poly.parse("x", R, context=ctx), "a stepper or a context, not both"),
        (lambda ctx: Poly.parse("x", context="reference"), "takes a Context first"),
        (lambda ctx: expand(123, R), "must be a str"),
        (lambda ctx: symbolic.Z(ctx, 2.5), "use ctx.lit"),
    ],
)
def test_wrong_argument_types_are_one_line_type_errors(make, expected):
    ctx = Context(R)
    with pytest.raises(TypeError, match=expected) as e:
        make(ctx)
    assert "\n" not in str(e.value)


def test_a_text_type_error_is_still_an_input_error_for_the_cli_and_server():
    with pytest.raises(InputError):
        expand(123, R)


# --- Poly.parse and QPoly.parse against SymPy ------------------------------------------------------
small = st.integers(-50, 50)


@st.composite
def integer_texts(draw):
    """(our text, SymPy's text) of a sum of terms c*x^k and products of linear factors, written
    in the styles a user types: '3x^2', '3*x**2', '-x', '2(x + 1)'."""
    ours, theirs = [], []
    for c, k in draw(st.lists(st.tuples(small, st.integers(0, 6)), min_size=1, max_size=5)):
        style = draw(st.sampled_from(["{c}x^{k}", "{c}*x**{k}", "{c} x^({k})"]))
        ours.append("(" + style.format(c=c, k=k) + ")")
        theirs.append(f"({c})*x**{k}")
    for a, b in draw(st.lists(st.tuples(small, small), max_size=2)):
        ours.append(f"{a}({b} + x)(x - {b})")
        theirs.append(f"({a})*(({b}) + x)*(x - ({b}))")
    signs = draw(st.lists(st.sampled_from(["+", "-"]), min_size=len(ours), max_size=len(ours)))
    return (
        " ".join(s + " " + t for s, t in zip(signs, ours)),
        " ".join(s + " " + t for s, t in zip(signs, theirs)),
    )


def _sympy_coeffs(text: str) -> list:
    e = sympy.expand(sympy.sympify(text, locals={"x": X}))
    return [] if e == 0 else sympy.Poly(e, X).all_coeffs()


@FAST
@given(integer_texts())
def test_poly_parse_round_trips_against_sympy(texts):
    ours, theirs = texts
    p = Poly.parse(ours, R)
    assert type(p) is Poly
    expected = [int(c) for c in _sympy_coeffs(theirs)]
    assert (p.coeffs() if not p.is_zero else []) == expected
    again = Poly.parse(str(p), R)  # what it prints reads back as the same polynomial
    assert again.coeffs() == p.coeffs() and str(again) == str(p)


fractions = st.fractions(min_value=-20, max_value=20, max_denominator=12)


@FAST
@given(st.lists(st.tuples(fractions, st.integers(0, 5)), min_size=1, max_size=5))
def test_qpoly_parse_round_trips_against_sympy(terms):
    ours = " + ".join(f"({c.numerator}/{c.denominator})x^{k}" for c, k in terms)
    theirs = " + ".join(f"Rational({c.numerator}, {c.denominator})*x**{k}" for c, k in terms)
    q = QPoly.parse(ours, R)
    assert type(q) is QPoly
    expected = _sympy_coeffs(theirs)
    got = [Fraction(q.at(k).num.value, q.at(k).den.value) for k in range(q.degree, -1, -1)]
    assert got == [Fraction(int(c.p), int(c.q)) for c in expected]
    again = QPoly.parse(str(q), R)
    assert str(again) == str(q)


def test_poly_parse_accepts_exact_divisions_and_refers_rational_ones_to_qpoly():
    assert str(Poly.parse("(2x^2 + 4)/2 - x", R)) == "x^2 - x + 2"
    with pytest.raises(InputError, match=r"division at column 2 leaves rational coefficients.*QPoly\.parse"):
        Poly.parse("1/2x + 1", R)
    assert str(QPoly.parse("1/2x + 1", R)) == "1/2*x + 1"
    assert QPoly.parse("(2x + 2)/2", R).is_integral  # always a QPoly, in lowest terms


def test_parse_into_an_existing_context_combines_and_audits():
    ctx = Context(R)
    p, q = Poly.parse("x + 1", context=ctx), Poly.parse("x - 1", context=ctx)
    assert str(p * q) == "x^2 - 1"
    assert [lit[0] for lit in ctx.literals] == [1, 1, 1]  # "1" twice from the text, one "one"
    with pytest.raises(TypeError, match="two different contexts"):
        p + Poly.parse("x", R)


def test_parse_errors_keep_their_columns():
    with pytest.raises(InputError, match="unexpected '\\)' at column 4|unbalanced '\\)' at column 4"):
        Poly.parse("x+1)", R)
    with pytest.raises(InputError, match="multivariate"):
        QPoly.parse("x + y", R)


# --- every public name has a docstring -------------------------------------------------------------
def _public_members(cls):
    for name, raw in inspect.getmembers_static(cls):
        if name.startswith("_"):
            continue
        if isinstance(raw, property | staticmethod | classmethod) or inspect.isfunction(raw):
            yield name, raw.fget if isinstance(raw, property) else getattr(cls, name)


def _undocumented() -> list[str]:
    missing = []
    for name in symbolic.__all__:
        obj = getattr(symbolic, name)
        assert inspect.isclass(obj) or inspect.isfunction(obj), name
        doc = inspect.getdoc(obj) or ""
        if not doc.strip() or (inspect.isclass(obj) and doc.startswith(name + "(")):  # a dataclass's own
            missing.append(name)
        if inspect.isclass(obj):
            missing += [f"{name}.{m}" for m, v in _public_members(obj) if not (inspect.getdoc(v) or "").strip()]
    return missing


def test_every_public_class_function_and_method_has_a_docstring():
    assert len(symbolic.__all__) >= 13
    assert _undocumented() == []


def test_the_docstring_walk_sees_a_missing_docstring(monkeypatch):
    monkeypatch.setattr(Poly.parse.__func__, "__doc__", None)
    monkeypatch.setattr(symbolic.Expansion, "__doc__", "Expansion(input: str, ...)")
    assert _undocumented() == ["Expansion", "Poly.parse"]


def test_the_default_stepper_is_documented_as_sketchpad_solves():
    for obj in (Poly.parse, QPoly.parse, Context):
        assert "certified shipped model" in inspect.getdoc(obj) and "sketchpad.solve" in inspect.getdoc(obj)
