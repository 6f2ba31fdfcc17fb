"""QPoly: a polynomial with rational coefficients, kept as num / den: an integer polynomial over
one positive integer denominator (the least common multiple of the coefficients' denominators).

Every rational polynomial is one of these, so everything else (factoring, roots) keeps working
on integer polynomials: the numerator IS the polynomial with its denominators cleared.  Sums
bring two denominators to their lcm (a gcd, two exact divisions and the scalings, all on the
sheet); `normalize` divides num and den by their common gcd, so that a QPoly whose denominator
is 1 is exactly an integer polynomial.
"""

from __future__ import annotations

from .integer import Z, batch, gcd_all, products
from .poly import Poly
from .rational import Q


class QPoly:
    __slots__ = ("num", "den", "_q")

    def __init__(self, num: Poly, den: Z):
        if not isinstance(num, Poly) or not isinstance(den, Z):
            raise TypeError("QPoly is an integer Poly over a Sketchpad integer")
        if den.sign <= 0:
            raise ValueError("a QPoly's denominator must be positive")
        self.num, self.den = num, den
        self._q = None  # the reduced coefficients {k: Q}, once `reduced` computed them

    @classmethod
    def of(cls, p) -> QPoly:
        """A Poly (denominator 1) or a QPoly, as a QPoly."""
        return p if isinstance(p, QPoly) else cls(p, p.ctx.const(1, "one"))

    # reading ------------------------------------------------------------------------------
    @property
    def ctx(self):
        return self.num.ctx

    @property
    def var(self) -> str:
        return self.num.var

    @var.setter
    def var(self, v: str) -> None:
        self.num.var = v

    @property
    def is_zero(self) -> bool:
        return self.num.is_zero

    @property
    def degree(self) -> int:
        return self.num.degree

    @property
    def is_integral(self) -> bool:
        return self.den.is_one

    @property
    def terms(self) -> dict:
        """{exponent: Q} in lowest terms (computed by `reduced`)."""
        return self.reduced()

    def at(self, k: int) -> Q:
        c = self.reduced().get(k)
        return c if c is not None else Q(self.ctx.const(0, "zero"))

    def reduced(self) -> dict:
        """Each coefficient num_k / den in lowest terms: all gcds in one batch, all divisions in one."""
        if self._q is None:
            ks = list(self.num.terms)
            if self.den.is_one:
                self._q = {k: Q(self.num.terms[k]) for k in ks}
            else:
                gs = batch([("gcd", self.num.terms[k], self.den) for k in ks])
                divs = batch([op for k, g in zip(ks, gs) for op in (("//", self.num.terms[k], g), ("//", self.den, g))])
                self._q = {k: _q_reduced(divs[2 * i][0], divs[2 * i + 1][0]) for i, k in enumerate(ks)}
        return self._q

    # arithmetic -----------------------------------------------------------------------------
    def __add__(self, other) -> QPoly:
        return self._combine(QPoly.of(other), subtract=False)

    def __sub__(self, other) -> QPoly:
        return self._combine(QPoly.of(other), subtract=True)

    def _combine(self, o: QPoly, subtract: bool) -> QPoly:
        if self.den.is_one and o.den.is_one:
            return QPoly(self.num - o.num if subtract else self.num + o.num, self.den)
        # the lcm of the denominators: l = a*(b/g) = b*(a/g) with g = gcd(a, b)
        a, b = self.den, o.den
        if a.is_one or b.is_one:
            ma, mb = b, a
        else:
            g = a.gcd(b)
            (ma, _), (mb, _) = batch([("//", b, g), ("//", a, g)]) if not g.is_one else ((b, None), (a, None))
        n1, n2 = len(self.num.terms), len(o.num.terms)
        pr = products(
            [(c, ma) for c in self.num.terms.values()] + [(c, mb) for c in o.num.terms.values()] + [(a, ma)]
        )  # both scalings and the lcm in one batch
        left = self.num._new(dict(zip(self.num.terms, pr[:n1])))
        right = o.num._new(dict(zip(o.num.terms, pr[n1 : n1 + n2])))
        return QPoly(left - right if subtract else left + right, pr[-1])

    def __neg__(self) -> QPoly:
        return QPoly(-self.num, self.den)

    def __mul__(self, other) -> QPoly:
        o = QPoly.of(other)
        num = self.num * o.num
        den = products([(self.den, o.den)])[0]
        return QPoly(num, den)

    def __pow__(self, n: int) -> QPoly:
        p = self.normalize()  # keep the numbers small before they are raised
        return QPoly(p.num**n, p.den**n if not p.den.is_one else p.den)

    def divide_by_constant(self, c) -> QPoly:
        """self / c for a nonzero constant c (a degree-0 Poly or QPoly)."""
        c = QPoly.of(c)
        cn, cd = c.num.at(0), c.den
        if cn.sign < 0:
            cn, cd = batch([("neg", cn), ("neg", cd)])
        # (num/den) / (cn/cd) = (num*cd) / (den*cn)
        return QPoly(self.num.scale(cd), products([(self.den, cn)])[0])

    def normalize(self) -> QPoly:
        """num and den divided by gcd(content(num), den): the lowest common denominator."""
        if self.den.is_one or self.num.is_zero:
            return self if self.den.is_one else QPoly(self.num, self.ctx.const(1, "one"))
        g = gcd_all([*self.num.terms.values(), self.den])
        if g.is_one:
            return self
        qr = batch([("//", c, g) for c in self.num.terms.values()] + [("//", self.den, g)])
        return QPoly(self.num._new(dict(zip(self.num.terms, (q for q, _ in qr)))), qr[-1][0])

    # content over Q ---------------------------------------------------------------------------
    def primitive(self) -> tuple[Q, Poly]:
        """(content, primitive integer part): self = content * part, part with lc > 0."""
        p = self.normalize()
        c, part = p.num.primitive()
        return _q_reduced(c, p.den), part  # normalized: gcd(c, den) = 1 already

    # text ------------------------------------------------------------------------------------
    def __str__(self) -> str:
        return format_qpoly(self)

    def __repr__(self) -> str:
        return f"QPoly({self})"


def _q_reduced(num: Z, den: Z) -> Q:
    """A Q from a numerator and a positive denominator already known to be coprime (no gcd)."""
    q = Q(num)
    q.den = den
    return q


def format_qpoly(p: QPoly) -> str:
    """Like format_poly, with coefficients in lowest terms: '1/2*x^2 + x + 1/2'."""
    if p.is_zero:
        return "0"
    out = []
    var = p.var
    for k, c in sorted(p.reduced().items(), key=lambda kc: -kc[0]):
        mag = str(c).lstrip("-")
        mono = "" if k == 0 else (var if k == 1 else f"{var}^{k}")
        body = (mono if mag == "1" else f"{mag}*{mono}") if mono else mag
        sign = c.sign < 0
        out.append((("-" if sign else "") if not out else ("- " if sign else "+ ")) + body)
    return " ".join(out)
