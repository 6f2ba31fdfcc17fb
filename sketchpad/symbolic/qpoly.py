"""QPoly: a polynomial with rational coefficients, kept as num / den: an integer polynomial over
one positive integer denominator (the least common multiple of the coefficients' denominators).

Every rational polynomial is one of these, so everything else (factoring, roots) keeps working
on integer polynomials: the numerator IS the polynomial with its denominators cleared.  Sums
bring two denominators to their lcm (a gcd, two exact divisions and the scalings, all on the
sheet); `normalize` divides num and den by their common gcd, so that a QPoly whose denominator
is 1 is exactly an integer polynomial.
"""

from __future__ import annotations

from .grammar import Parser, check_text
from .integer import Z, batch, gcd_all, products
from .poly import Poly, context_for, expect_context
from .rational import Q


class QPoly:
    """A polynomial with rational coefficients: an integer Poly `num` over a positive Z `den`.

    Read one from text with QPoly.parse("1/2x^2 + x + 1/2"); QPoly(num, den) builds one from
    numbers that already live in a Context (den defaults to 1)."""

    __slots__ = ("num", "den", "_q")

    def __init__(self, num: Poly, den: Z | None = None):
        if isinstance(num, str):
            raise TypeError(
                f"QPoly(num, den) takes an integer Poly and a Sketchpad integer, not the text {num!r}: "
                f"read a polynomial from text with QPoly.parse({num!r})"
            )
        if den is None and isinstance(num, Poly):
            den = num.ctx.const(1, "one")
        if not isinstance(num, Poly) or not isinstance(den, Z):
            raise TypeError(
                f"QPoly(num, den) takes an integer Poly and a Sketchpad integer (Z), "
                f"not {type(num).__name__} and {type(den).__name__}"
            )
        if den.sign <= 0:
            raise ValueError("a QPoly's denominator must be positive")
        self.num, self.den = num, den
        self._q = None  # the reduced coefficients {k: Q}, once `reduced` computed them

    @classmethod
    def of(cls, p) -> QPoly:
        """A Poly (denominator 1) or a QPoly, as a QPoly."""
        if isinstance(p, QPoly):
            return p
        if not isinstance(p, Poly):
            raise TypeError(f"cannot use a {type(p).__name__} as a polynomial: lift a number with Poly.const")
        return cls(p, p.ctx.const(1, "one"))

    @classmethod
    def parse(cls, text: str, stepper=None, *, context=None) -> QPoly:
        """The polynomial written in `text`, with rational coefficients: "1/2x^2 + x + 1/2".

        The grammar is parse_poly's (implicit products, "^" or "**", division by a nonzero
        number).  Every coefficient is computed by `stepper` in a new Context: None is the
        certified shipped model, exactly as sketchpad.solve; "reference" is the reference
        stepper.  Pass `context=` instead to compute in an existing Context.  The result is
        always a QPoly in lowest terms (den 1 when the coefficients are integers)."""
        text = check_text(text, "QPoly.parse's text")
        return cls.of(parse_poly(context_for(stepper, context, "QPoly.parse"), text))

    # reading ------------------------------------------------------------------------------
    @property
    def ctx(self):
        """The Context whose stepper computes every coefficient."""
        return self.num.ctx

    @property
    def var(self) -> str:
        """The name of the variable ("x")."""
        return self.num.var

    @var.setter
    def var(self, v: str) -> None:
        self.num.var = v

    @property
    def is_zero(self) -> bool:
        """Whether this is the zero polynomial."""
        return self.num.is_zero

    @property
    def degree(self) -> int:
        """The degree (-1 for the zero polynomial)."""
        return self.num.degree

    @property
    def is_integral(self) -> bool:
        """Whether the denominator is 1 (after normalize: whether the coefficients are integers)."""
        return self.den.is_one

    @property
    def terms(self) -> dict:
        """{exponent: Q} in lowest terms (computed by `reduced`)."""
        return self.reduced()

    def at(self, k: int) -> Q:
        """The coefficient of x^k in lowest terms (0 when absent)."""
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
        """self + other (a Poly or a QPoly)."""
        return self._combine(QPoly.of(other), subtract=False)

    def __sub__(self, other) -> QPoly:
        """self - other (a Poly or a QPoly)."""
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
        """self * other (a Poly or a QPoly)."""
        o = QPoly.of(other)
        num = self.num * o.num
        den = products([(self.den, o.den)])[0]
        return QPoly(num, den)

    def __pow__(self, n: int) -> QPoly:
        """self ** n for a Python int n >= 0."""
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


def _lift(p, q, op: str):
    """p op q, as integer polynomials while both are, else over Q (QPoly)."""
    if isinstance(p, QPoly) or isinstance(q, QPoly):
        p, q = QPoly.of(p), QPoly.of(q)
    return p + q if op == "+" else p - q if op == "-" else p * q


def _finish(p):
    """The lowest common denominator; a QPoly whose denominator is 1 is a plain Poly.  The reduced
    coefficients are computed here, so that the result is complete before it is displayed."""
    if not isinstance(p, QPoly):
        return p
    p = p.normalize()
    if p.den.is_one:
        return p.num
    p.reduced()
    return p


class RationalRing:
    """How parse_poly builds values: integer Polys while they are, QPolys after a division."""

    const = staticmethod(Poly.const)

    @staticmethod
    def variable(ctx, var: str) -> Poly:
        return Poly.monomial(ctx.const(1, "one"), 1, var)

    lift = staticmethod(_lift)

    @staticmethod
    def divide(p, d, col: int) -> QPoly:
        return QPoly.of(p).divide_by_constant(d)


def parse_poly(ctx, text: str):
    """The polynomial written in `text`, computed in Context `ctx`: a Poly, or a QPoly when
    coefficients are rational ("1/2x + 1"; a QPoly whose denominators cancel is a Poly).

    Integers, one single-letter variable, + - * / ^ (or **), parentheses and implicit products
    ("3x^2", "2(x+1)", "(x+1)(x-1)"); division by a nonzero number only.  Every rejection is an
    InputError with the column.  Without a Context at hand use Poly.parse or QPoly.parse."""
    expect_context(ctx, "parse_poly(ctx, text)")
    return _finish(Parser(ctx, check_text(text), RationalRing).parse())


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
