"""The public calls: expand, factor, solve.  Each call gets a fresh Context, so the result's
audit lists exactly the operations (and literals) of that call."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..errors import InputError
from ..expr import Limits
from .context import MAX_OPERATIONS, Context
from .factor import Factorization, factor_poly
from .parse import parse_equation, parse_poly
from .poly import Poly
from .qpoly import QPoly
from .rational import Q
from .realroots import DEFAULT_DIGITS, RealRoot, real_roots
from .solving import Root, roots_of


@dataclass
class Result:
    """What expand, factor and solve share: the input, the polynomial, the Context (counters, audit) and the seconds."""

    input: str
    poly: Poly = field(repr=False)
    context: Context = field(repr=False)
    seconds: float = 0.0

    @property
    def stepper(self) -> str:
        """The stepper that computed every number: 'model', 'reference' or a given stepper's name."""
        return self.context.stepper_name

    @property
    def forward_passes(self) -> int:
        """Forward passes of the stepper over the whole call."""
        return self.context.forward_passes

    @property
    def batches(self) -> int:
        """Runtime batches over the whole call (independent operations run together)."""
        return self.context.batches

    @property
    def operations(self) -> int:
        """Arithmetic operations the procedures ran."""
        return len(self.context.log)

    @property
    def audit(self) -> list[dict]:
        """Every literal that entered and every operation the procedures ran, in order."""
        return self.context.audit()

    def counters(self) -> dict:
        """stepper, operations, forward_passes, batches and seconds, as a dict."""
        return {
            "stepper": self.stepper,
            "operations": self.operations,
            "forward_passes": self.forward_passes,
            "batches": self.batches,
            "seconds": round(self.seconds, 6),
        }

    def as_dict(self, audit: bool = False) -> dict:
        """What --json prints: the input, the polynomial, the answer and the counters (and the audit)."""
        d = {"input": self.input, "polynomial": str(self.poly), **self.payload(), **self.counters()}
        if audit:
            d["audit"] = self.audit
        return d

    def payload(self) -> dict:
        """The answer's own fields of as_dict."""
        raise NotImplementedError


@dataclass
class Expansion(Result):
    """The expanded polynomial of expand(): str(e) is it; e.poly is the Poly (or QPoly)."""

    def payload(self) -> dict:
        return {
            "expanded": str(self.poly),
            "degree": self.poly.degree,
            "coefficients": [str(c) for c in _dense(self.poly)],
        }

    def __str__(self) -> str:
        return str(self.poly)


@dataclass
class Factored(Result):
    """The factorisation of factor(): content, factors [(factor, multiplicity)] and proven;
    str(f) reads "3*(x - 2)*(x + 2)"."""

    factorization: Factorization = None

    @property
    def content(self):
        """The content: an integer (or over Q, a rational) with the sign of the leading coefficient."""
        return self.factorization.content

    @property
    def factors(self) -> list:
        """[(factor, multiplicity)]: primitive irreducible integer polynomials."""
        return self.factorization.factors

    @property
    def proven(self) -> bool:
        """Whether every factor is proven irreducible."""
        return self.factorization.proven

    def payload(self) -> dict:
        f = self.factorization
        return {
            "factored": str(f),
            "content": str(f.content),
            "factors": [{"factor": str(g), "multiplicity": m, "degree": g.degree} for g, m in f.factors],
            "proven_irreducible": f.proven,
        }

    def __str__(self) -> str:
        return str(self.factorization)


@dataclass
class Solved(Result):
    """The roots of solve(): roots (closed forms), real_roots (every real root to `digits`
    digits, proven), the unsolved factors and the count of nonreal_roots."""

    roots: list = field(default_factory=list)  # [Root]: exact, closed forms (degrees 1 and 2)
    unsolved: list = field(default_factory=list)  # [Unsolved]: factor, multiplicity, proven, reason
    factorization: Factorization = None
    real_roots: list = field(default_factory=list)  # [RealRoot]: every real root, to `digits` digits
    nonreal_roots: int = 0  # degree minus the real roots, with multiplicity
    digits: int = DEFAULT_DIGITS

    def payload(self) -> dict:
        return {
            "roots": [_root_dict(r) for r in self.roots],
            "unsolved": [u.as_dict() for u in self.unsolved],
            "real_roots": [r.as_dict() for r in self.real_roots],
            "nonreal_roots": self.nonreal_roots,
            "digits": self.digits,
            "proven": self.factorization.proven and all(r.proven for r in self.real_roots),
            "factored": str(self.factorization),
        }

    def __str__(self) -> str:
        var = self.poly.var
        lines = []
        for r in self.roots:
            line = f"{var} = {r}" + (f"  (multiplicity {r.multiplicity})" if r.multiplicity > 1 else "")
            near = self._approx_of(r)
            lines.append(line + (f"  ≈ {near}" if near else ""))
        for u in self.unsolved:
            for r in (r for r in self.real_roots if r.factor is u.factor):
                lo, hi = r.interval_text
                lines.append(
                    f"{var} ≈ {r.approx_text}  (a root of {u.factor}"
                    + (f", multiplicity {r.multiplicity}" if r.multiplicity > 1 else "")
                    + f"; proven in [{lo}, {hi}])"
                )
            real = sum(1 for r in self.real_roots if r.factor is u.factor)
            state = "proven irreducible" if u.proven else "not proven irreducible"
            each = f", each of multiplicity {u.multiplicity}" if u.multiplicity > 1 else ""
            lines.append(
                f"{u.factor}: degree {u.degree}, {state}, no closed form here: "
                f"{real} real root{'' if real == 1 else 's'}, {u.degree - real} non-real{each}"
            )
        if any(r.kind != "rational" and not r.value.simplified for r in self.roots):
            lines.append("note: a radicand could not be proven square-free by trial division (primes < 1000)")
        return "\n".join(lines) if lines else "no roots"

    def _approx_of(self, root: Root) -> str | None:
        """The decimal value of a real irrational closed-form root (the larger of a quadratic's
        two real roots is its '+' one: B > 0, E > 0)."""
        if root.kind != "irrational":
            return None
        value = root.value
        mine = [r for r in self.real_roots if r.factor.degree == 2 and _same_quadratic(r, value)]
        if len(mine) != 2:
            return None
        return mine[1 if value.sign > 0 else 0].approx_text


def _same_quadratic(r: RealRoot, surd) -> bool:
    """Whether the real root r belongs to the quadratic whose root is `surd` (reading the
    factor's identity through the Surd's owner, recorded when the roots were made)."""
    return getattr(surd, "factor", None) is r.factor


def _root_dict(r: Root) -> dict:
    d = {"root": str(r), "kind": r.kind, "multiplicity": r.multiplicity, "sympy": _sympy_text(r)}
    if r.kind != "rational":
        d["simplified"] = r.value.simplified
    return d


def _sympy_text(r: Root) -> str:
    v = r.value
    return f"Rational({v.num}, {v.den})" if r.kind == "rational" else v.text(python=True)


def _dense(p: Poly) -> list:
    if p.is_zero:
        return [p.ctx.const(0, "zero")]
    return [p.at(k) for k in range(p.degree, -1, -1)]


class RationalFactorization:
    """A factorisation over Q: a rational content times the factorisation over Z of the
    primitive integer part, e.g. (1/2)*(x - 1)*(x + 1).  The content is written in parentheses
    whenever it is not an integer; everything else reads from the integer factorisation."""

    def __init__(self, content: Q, inner: Factorization):
        self.content = content
        self.inner = inner

    def __getattr__(self, name):  # factors, proven and whatever else the integer one reports
        return getattr(self.inner, name)

    def __str__(self) -> str:
        parts = []
        for g, m in self.inner.factors:
            s = f"({g})" if len(g.terms) > 1 else str(g)
            parts.append(s if m == 1 else f"{s}^{m}")
        c = f"({self.content})"
        return "*".join([c] + parts) if parts else c


def _factor_over_q(p: QPoly, method: str) -> RationalFactorization:
    """Content over Q and the primitive integer part; the part is factored over Z (Gauss's
    lemma: its factors over Q are the integer ones)."""
    content, part = p.primitive()
    inner = factor_poly(part, method=method)
    if not inner.content.is_one:  # a primitive part with lc > 0 has content 1
        raise ArithmeticError(f"internal error: the primitive part {part} has content {inner.content}")
    return RationalFactorization(content, inner)


def _context(stepper, limits, max_degree, batching=True, max_operations=MAX_OPERATIONS) -> Context:
    return Context(stepper, limits or Limits(), max_degree, max_operations=max_operations, batching=batching)


def expand(
    expr: str,
    stepper=None,
    *,
    limits: Limits | None = None,
    max_degree: int = 200,
    batching: bool = True,
    max_operations: int = MAX_OPERATIONS,
) -> Expansion:
    """Parse and expand EXPR; every coefficient operation runs on the sheet."""
    ctx = _context(stepper, limits, max_degree, batching, max_operations)
    t = time.perf_counter()
    p = parse_poly(ctx, expr)
    return Expansion(expr, p, ctx, time.perf_counter() - t)


def factor(
    expr: str,
    stepper=None,
    *,
    limits: Limits | None = None,
    max_degree: int = 200,
    method: str = "auto",
    batching: bool = True,
    max_operations: int = MAX_OPERATIONS,
) -> Factored:
    """Content and irreducible factors over Z, with multiplicities.  With rational coefficients:
    a rational content times primitive integer factors, written "(1/2)*(x - 1)*(x + 1)"."""
    ctx = _context(stepper, limits, max_degree, batching, max_operations)
    t = time.perf_counter()
    p = parse_poly(ctx, expr)
    if isinstance(p, QPoly):  # rational coefficients: content over Q, then the integer factors
        if p.is_zero:
            raise InputError("cannot factor the zero polynomial")
        f = _factor_over_q(p, method)
    else:
        f = factor_poly(p, method=method)
    return Factored(expr, p, ctx, time.perf_counter() - t, f)


def solve(
    expr: str,
    stepper=None,
    *,
    limits: Limits | None = None,
    max_degree: int = 200,
    method: str = "auto",
    batching: bool = True,
    max_operations: int = MAX_OPERATIONS,
    digits: int = DEFAULT_DIGITS,
) -> Solved:
    """The roots of EXPR = 0 (or of LHS = RHS): exact ones in closed form (rational, surd,
    complex), and every real root isolated and refined to `digits` decimal digits, proven."""
    if type(digits) is not int or digits < 0:
        raise InputError(f"digits must be a non-negative integer, got {digits!r}")
    ctx = _context(stepper, limits, max_degree, batching, max_operations)
    t = time.perf_counter()
    p = parse_equation(ctx, expr)
    if p.is_zero:
        raise InputError("the equation holds for every value of the variable (it is 0 = 0)")
    if isinstance(p, QPoly):
        # rational coefficients: p.num is p with its denominators cleared (times their lcm,
        # computed on the sheet), so it has the same roots; its factors are the integer ones
        f = _factor_over_q(p, method)
        inner = f.inner
    else:
        f = inner = factor_poly(p, method=method)
    roots, unsolved = roots_of(inner)
    real, nonreal = real_roots(inner.factors, digits)
    return Solved(expr, p, ctx, time.perf_counter() - t, roots, unsolved, f, real, nonreal, digits)
