"""Exact roots: rational roots from the factorisation, and for every quadratic factor
a*x^2 + b*x + c the roots (-b ± s*sqrt(C)) / (2a) with D = b^2 - 4ac = s^2 * C, reduced to
(A ± B*sqrt(C))/E with gcd(A, B, E) = 1 and E > 0.  C < 0 gives complex roots, written with i.
Factors of degree >= 3 that do not split have no such closed form here ('unsolved', each with
`proven` and a `reason`); their real roots, like every real root, are isolated and refined to
N digits with a proof by realroots.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .factor import Factorization
from .integer import Z
from .poly import Poly
from .rational import Q
from .roots import square_part  # batched trial division (issue 14)


@dataclass
class Surd:
    """(A + sign*B*sqrt(C)) / E, C square-free (proven or not), C != 0, 1."""

    A: Z
    B: Z
    C: Z
    E: Z
    sign: int  # +1 or -1
    simplified: bool  # C proven square-free
    factor: object = field(default=None, repr=False, compare=False)  # the quadratic it solves

    @property
    def complex(self) -> bool:
        return self.C.sign < 0

    def _radical(self, python: bool) -> str:
        mag = str(self.C).lstrip("-")  # reading digits, not computing
        rad = "" if mag == "1" else f"sqrt({mag})"
        i = ("I" if python else "i") if self.C.sign < 0 else ""
        parts = [p for p in ("" if self.B.is_one else str(self.B), rad, i) if p]
        return "*".join(parts)

    def text(self, python: bool = False) -> str:
        rad = self._radical(python)
        if self.A.is_zero:
            num = rad if self.sign > 0 else f"-{rad}"
            parens = "*" in num.lstrip("-")
        else:
            num = f"{self.A} {'+' if self.sign > 0 else '-'} {rad}"
            parens = True
        if self.E.is_one:
            return num
        return f"({num})/{self.E}" if parens else f"{num}/{self.E}"

    def __str__(self) -> str:
        return self.text()


@dataclass
class Root:
    value: object  # Q or Surd
    multiplicity: int

    @property
    def kind(self) -> str:
        if isinstance(self.value, Q):
            return "rational"
        return "complex" if self.value.complex else "irrational"

    def __str__(self) -> str:
        return str(self.value)


def quadratic_roots(g: Poly) -> list[Surd]:
    """The two roots of an irreducible primitive quadratic, in simplest surd form."""
    ctx = g.ctx
    a, b, c = g.lc, g.at(1), g.at(0)
    D = b * b - ctx.const(4, "the 4 of b^2 - 4ac") * a * c
    s, C, proven = square_part(D)
    E = a + a
    k = (-b).gcd(s).gcd(E)
    A, B, E = ((-b).exact_div(k), s.exact_div(k), E.exact_div(k)) if not k.is_one else (-b, s, E)
    return [Surd(A, B, C, E, +1, proven, g), Surd(A, B, C, E, -1, proven, g)]


@dataclass
class Unsolved:
    """An irreducible factor of degree >= 3: its roots have no closed form here."""

    factor: Poly
    multiplicity: int
    proven: bool  # proven irreducible over Q (the factorisation's exhaustive search)

    @property
    def degree(self) -> int:
        return self.factor.degree

    @property
    def reason(self) -> str:
        state = "proven irreducible" if self.proven else "not proven irreducible"
        return (
            f"degree {self.degree} > 2, no rational roots, {state}; no closed form here: "
            f"its real roots are isolated and refined numerically (real_roots)"
        )

    def __iter__(self):  # (factor, multiplicity), as before
        return iter((self.factor, self.multiplicity))

    def as_dict(self) -> dict:
        return {
            "factor": str(self.factor),
            "multiplicity": self.multiplicity,
            "degree": self.degree,
            "proven": self.proven,
            "reason": self.reason,
        }


def roots_of(fac: Factorization) -> tuple[list[Root], list[Unsolved]]:
    roots, unsolved = [], []
    for g, m in fac.factors:
        if g.degree == 1:
            roots.append(Root(Q(-g.at(0), g.lc), m))
        elif g.degree == 2:
            roots += [Root(s, m) for s in quadratic_roots(g)]
        else:
            unsolved.append(Unsolved(g, m, fac.proven))
    return roots, unsolved
