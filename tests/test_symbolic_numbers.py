"""The number types route every operation to the procedures and refuse bare Python numbers;
the audit accounts for every number a call produces."""

from __future__ import annotations

import pytest

from sketchpad.reference import ReferenceStepper
from sketchpad.symbolic import Context, Poly, Q, expand, factor, solve


@pytest.fixture
def ctx():
    return Context("reference")


def test_z_operators_run_procedures(ctx):
    a, b = ctx.lit(-1234567, "test"), ctx.lit(891, "test")
    before = len(ctx.log)
    assert (a + b).value == -1233676 and (a - b).value == -1235458 and (a * b).value == -1099999197
    q, r = divmod(a, b)
    assert (q.value, r.value) == divmod(-1234567, 891)
    assert (-a).value == 1234567 and a.gcd(b).value == 1 and b.isqrt().value == 29
    assert [rec.op for rec in ctx.log[before:]] == ["+", "-", "*", "//", "neg", "gcd", "sqrt"]
    assert a < b and b > a and not (a == b)  # comparisons are computed differences
    assert ctx.log[-1].op == "-"


@pytest.mark.parametrize("bad", [3, -1, True, 2.5, 1j])
def test_z_refuses_bare_python_numbers(ctx, bad):
    z = ctx.lit(7, "test")
    for op in (
        lambda: z + bad,
        lambda: bad + z,
        lambda: z - bad,
        lambda: bad - z,
        lambda: z * bad,
        lambda: bad * z,
        lambda: divmod(z, bad),
        lambda: z // bad,
        lambda: z % bad,
        lambda: z == bad,
        lambda: z < bad,
        lambda: z.gcd(bad),
    ):
        with pytest.raises(TypeError, match="bare|compare"):
            op()


def test_no_silent_conversions(ctx):
    z = ctx.lit(7, "test")
    for op in (lambda: int(z), lambda: bool(z), lambda: z / z, lambda: [0, 1][z], lambda: float(z)):
        with pytest.raises(TypeError):
            op()
    with pytest.raises(TypeError, match="literal"):
        ctx.lit(7.0, "test")


def test_contexts_do_not_mix():
    a, b = Context("reference"), Context("reference")
    with pytest.raises(TypeError, match="different contexts"):
        a.lit(1, "t") + b.lit(2, "t")
    with pytest.raises(TypeError, match="different contexts"):
        Poly.const(a.lit(1, "t")) + Poly.const(b.lit(1, "t"))


def test_rationals_and_polys_refuse_ints(ctx):
    q = Q(ctx.lit(6, "t"), ctx.lit(-4, "t"))
    assert str(q) == "-3/2"
    with pytest.raises(TypeError, match="bare"):
        q + 1
    with pytest.raises(TypeError):
        Poly.const(ctx.lit(1, "t")) + 1
    with pytest.raises(TypeError):
        Poly(ctx, {0: 5})


def _audit_closure(result) -> set:
    """Replay the audit: every operand of every operation is a literal or an earlier result."""
    known = set()
    for e in result.audit:
        if e["op"] == "literal":
            known.add(e["result"])
            continue
        for o in e["operands"]:
            assert o in known, f"operand {o} of {e['op']} was never computed nor brought in"
        known.update(e["result"] if isinstance(e["result"], list) else [e["result"]])
    return known


@pytest.mark.parametrize(
    "call, text",
    [
        (expand, "(3x - 7)^4 - 2x(x + 12345678901234567890)"),
        (factor, "6x^5 - 6x^4 - 60x^3 + 84x^2 + 54x - 90"),
        (factor, "(x^2 + 4)(x^2 - 2x + 2)"),
        (solve, "(2x - 3)(x^2 - 12)(x^2 + x + 1)"),
    ],
)
def test_audit_accounts_for_every_number(call, text):
    r = call(text, "reference")
    known = _audit_closure(r)
    out = []
    if call is expand:
        out = [str(c) for c in r.poly.terms.values()]
    elif call is factor:
        out = [str(r.content)] + [str(c) for g, _ in r.factors for c in g.terms.values()]
    else:
        for root in r.roots:
            v = root.value
            out += [str(v.num), str(v.den)] if root.kind == "rational" else [str(v.A), str(v.B), str(v.C), str(v.E)]
    assert out and all(v in known for v in out), [v for v in out if v not in known]
    # literals are only the input's coefficients and structural constants: small ones, or
    # products of primes below 200 (powers of ten for a decimal grid, binomials times powers of
    # 2 and 3 for Descartes' transforms), never anything carrying a coefficient's value
    for e in r.audit:
        if e["op"] == "literal" and e["why"] != "a coefficient of the input":
            assert abs(int(e["result"])) <= 10**9 or _smooth(int(e["result"]), 200), e
            assert abs(int(e["result"])) <= 10**9 or e["why"] in STRUCTURAL, e


STRUCTURAL = {
    "a power of ten (the decimal grid of the refinement)",
    "a power of five: a dyadic cell on the decimal grid",
    "a power of two: a dyadic cell's width",
    "a power of two: a root bound",
    "an entry of a Descartes bisection matrix (binomials times powers of 2 and 3, fixed by the degree)",
    "the binomial C(n-1, (n-1)/2) of the factor bound",
}


def _smooth(v: int, bound: int) -> bool:
    v = abs(v)
    for p in range(2, bound):
        while v % p == 0:
            v //= p
    return v == 1


def test_the_literal_rule_sees_a_smuggled_number():
    # fault injection: a big literal with a large prime factor fails the rule
    assert not _smooth(10**20 + 39, 200) and _smooth(2**70 * 3**5 * 10**40, 200)


def test_audit_forward_passes_match_the_stepper():
    class Counting(ReferenceStepper):
        name = "counting"
        seen = 0

        def __call__(self, views):
            Counting.seen += len(views)
            return super().__call__(views)

    r = solve("(x - 5)(3x + 1)(x^2 - 8)", Counting())
    assert r.stepper == "counting"
    assert Counting.seen == r.forward_passes == sum(e["forward_passes"] for e in r.audit) > 0


def test_results_depend_on_the_procedures(monkeypatch):
    """Corrupt one multiplication in the arithmetic service: the answer must change.

    The symbolic layer hands its operations to the service in batches (Arithmetic.many)."""
    from sketchpad.arith import Arithmetic

    real = Arithmetic.many
    calls = []

    def wrong(self, ops):
        calls.extend(ops)
        out = real(self, ops)
        return [v + 1 if tuple(o) == ("*", 3, 3) else v for o, v in zip(ops, out)]

    monkeypatch.setattr(Arithmetic, "many", wrong)
    assert str(expand("(3x + 1)^2", "reference")) == "10*x^2 + 6*x + 1"
    assert calls


def test_the_default_stepper_is_the_certified_model():
    """One default everywhere (sketchpad.steppers.get): the symbolic runtime's is the model."""
    from sketchpad.steppers import get

    r = expand("(x + 12)(x - 3)")
    assert r.stepper == "model" and r.forward_passes > 0 and str(r) == "x^2 + 9*x - 36"
    assert get() is get("model")  # loaded and certified once per process


def test_model_stepper_end_to_end():
    r = solve("x^2 - 5x + 6", "model")  # the shipped, certified model
    assert r.stepper == "model" and r.forward_passes > 0
    assert sorted(str(x) for x in r.roots) == ["2", "3"]
