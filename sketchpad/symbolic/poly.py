"""Univariate polynomials with Z coefficients, stored sparsely ({exponent: nonzero Z}).

Exponents are structural Python ints (they count, they are not coefficients).  A coefficient
that becomes zero is dropped by reading it, so "zero" never needs to be computed.
"""

from __future__ import annotations

from ..errors import InputError
from .integer import Z, square_and_multiply


class Poly:
    __slots__ = ("ctx", "terms", "var")

    def __init__(self, ctx, terms: dict | None = None, var: str = "x"):
        self.ctx = ctx
        self.var = var
        self.terms = {}
        for k, c in (terms or {}).items():
            if not isinstance(c, Z) or c.ctx is not ctx:
                raise TypeError("polynomial coefficients must be Sketchpad numbers of the same context")
            if not c.is_zero:
                self.terms[k] = c

    # construction -------------------------------------------------------------------------
    @classmethod
    def const(cls, c: Z, var: str = "x") -> Poly:
        return cls(c.ctx, {0: c}, var)

    @classmethod
    def monomial(cls, c: Z, k: int, var: str = "x") -> Poly:
        return cls(c.ctx, {k: c}, var)

    def _new(self, terms: dict) -> Poly:
        return Poly(self.ctx, terms, self.var)

    # reading ------------------------------------------------------------------------------
    @property
    def is_zero(self) -> bool:
        return not self.terms

    @property
    def degree(self) -> int:
        return max(self.terms) if self.terms else -1

    @property
    def lc(self) -> Z:
        return self.terms[self.degree]

    @property
    def low(self) -> int:
        """The lowest exponent present (x^low divides the polynomial)."""
        return min(self.terms)

    def coeff(self, k: int) -> Z | None:
        return self.terms.get(k)

    def at(self, k: int) -> Z:
        """The coefficient of x^k, the recorded constant 0 when absent."""
        c = self.terms.get(k)
        return c if c is not None else self.ctx.const(0, "zero")

    def coeffs(self) -> list[int]:
        """Dense coefficient values, highest first (reading, for display and tests)."""
        return [self.terms[k].value if k in self.terms else 0 for k in range(self.degree, -1, -1)]

    # arithmetic -----------------------------------------------------------------------------
    def _same_kind(self, other, op: str) -> None:
        if not isinstance(other, Poly):
            raise TypeError(f"cannot {op} a polynomial and a {type(other).__name__}: lift it with Poly.const")
        if other.ctx is not self.ctx:
            raise TypeError("cannot combine polynomials from two different contexts")

    def __add__(self, other: Poly) -> Poly:
        self._same_kind(other, "add")
        terms = dict(self.terms)
        for k, c in other.terms.items():
            terms[k] = terms[k] + c if k in terms else c
        return self._new(terms)

    def __neg__(self) -> Poly:
        return self._new({k: -c for k, c in self.terms.items()})

    def __sub__(self, other: Poly) -> Poly:
        self._same_kind(other, "subtract")
        terms = dict(self.terms)
        for k, c in other.terms.items():
            terms[k] = terms[k] - c if k in terms else -c
        return self._new(terms)

    def __mul__(self, other: Poly) -> Poly:
        if isinstance(other, Z):
            return self.scale(other)
        self._same_kind(other, "multiply")
        self.ctx.check_degree(self.degree + other.degree)
        acc: dict[int, list] = {}
        for i, a in self.terms.items():
            for j, b in other.terms.items():
                acc.setdefault(i + j, []).append(a * b)
        return self._new({k: _sum(v) for k, v in acc.items()})

    def scale(self, c: Z) -> Poly:
        if c.is_one:  # reading: multiplying by one is no work
            return self
        return self._new({k: a * c for k, a in self.terms.items()})

    def shift(self, k: int) -> Poly:
        """Multiply (k > 0) or divide exactly (k < 0) by x^|k|: only exponents move."""
        return self._new({e + k: c for e, c in self.terms.items()})

    def __pow__(self, n: int) -> Poly:
        if type(n) is not int or n < 0:
            raise TypeError("polynomial exponent must be a non-negative int")
        self.ctx.check_degree(max(self.degree, 0) * n)
        if self.terms and n > 1:  # reading lengths: refuse hopeless powers up front
            digits = max(c.digits for c in self.terms.values()) * n
            limit = self.ctx.arith.limits.max_quadratic_digits
            if digits > 2 * limit:
                raise InputError(
                    f"the power ^{n} would give coefficients of about {digits:,} digits; "
                    f"products are limited to {limit:,}-digit operands"
                )
        return square_and_multiply(self, n, lambda: Poly.const(self.ctx.const(1, "one"), self.var))

    def derivative(self) -> Poly:
        return self._new(
            {k - 1: c * self.ctx.const(k, "an exponent (derivative)") for k, c in self.terms.items() if k > 0}
        )

    # division over Z ----------------------------------------------------------------------
    def divmod_exact(self, d: Poly):
        """Divide by d over Z: (q, r) when each leading division is exact, else None.

        When d is primitive and divides self over Q, every step is exact (Gauss's lemma),
        so None means 'd does not divide self'."""
        if d.is_zero:
            raise ZeroDivisionError("division by the zero polynomial")
        q: dict = {}
        r = self
        while not r.is_zero and r.degree >= d.degree:
            t, rem = divmod(r.lc, d.lc)
            if not rem.is_zero:
                return None
            k = r.degree - d.degree
            q[k] = t
            r = r - d.scale(t).shift(k)
        return self._new(q), r

    def exact_quotient(self, d: Poly) -> Poly | None:
        """self / d when d divides self over Z, else None."""
        qr = self.divmod_exact(d)
        return qr[0] if qr is not None and qr[1].is_zero else None

    def prem(self, d: Poly) -> Poly:
        """A pseudo-remainder: lc(d)^e * self mod d, computed without fractions."""
        r = self
        while not r.is_zero and r.degree >= d.degree:
            k = r.degree - d.degree
            r = r.scale(d.lc) - d.scale(r.lc).shift(k)
        return r

    # content -------------------------------------------------------------------------------
    def content(self) -> Z:
        """gcd of the coefficients, with the sign of the leading coefficient."""
        g = None
        for k in sorted(self.terms, reverse=True):
            c = self.terms[k]
            g = abs(c) if g is None else g.gcd(c)
            if g.is_one:
                break
        return -g if self.lc.sign < 0 else g

    def primitive(self) -> tuple[Z, Poly]:
        c = self.content()
        if c.is_one:
            return c, self
        return c, self._new({k: a.exact_div(c) for k, a in self.terms.items()})

    def gcd(self, other: Poly) -> Poly:
        """Primitive gcd with positive leading coefficient (primitive remainder sequence)."""
        a, b = self.primitive()[1], other.primitive()[1]
        if a.degree < b.degree:
            a, b = b, a
        while not b.is_zero:
            r = a.prem(b)
            a, b = b, (r.primitive()[1] if not r.is_zero else r)
        return a.primitive()[1]

    # evaluation ----------------------------------------------------------------------------
    def eval_int(self, x: Z) -> Z:
        """self(x) by Horner's rule."""
        n = self.degree
        acc = self.lc
        for k in range(n - 1, -1, -1):
            acc = acc * x
            c = self.terms.get(k)
            if c is not None:
                acc = acc + c
        return acc

    def eval_homogeneous(self, p: Z, q: Z) -> Z:
        """q^n * self(p/q): zero exactly when p/q is a root; integers only."""
        n = self.degree
        acc = self.lc
        qpow = q
        for k in range(n - 1, -1, -1):
            acc = acc * p
            c = self.terms.get(k)
            if c is not None:
                acc = acc + c * qpow
            if k:
                qpow = qpow * q
        return acc

    # text ------------------------------------------------------------------------------------
    def __str__(self) -> str:
        return format_poly(self)

    def __repr__(self) -> str:
        return f"Poly({self})"


def _sum(values: list) -> Z:
    """Sum a list of Z pairwise, as a tree (shallower carries, same number of additions)."""
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def format_poly(p: Poly) -> str:
    if p.is_zero:
        return "0"
    out = []
    for k in sorted(p.terms, reverse=True):
        c = p.terms[k]
        mag = str(c).lstrip("-")
        mono = "" if k == 0 else (p.var if k == 1 else f"{p.var}^{k}")
        if mono:
            body = mono if mag == "1" else f"{mag}*{mono}"
        else:
            body = mag
        if not out:
            out.append(("-" if c.sign < 0 else "") + body)
        else:
            out.append(("- " if c.sign < 0 else "+ ") + body)
    return " ".join(out)
