"""Q: a rational p/q of two Z numbers, kept in lowest terms with q > 0 by model gcds and
divisions.  Q mixes with Z (a Z is q = 1) but, like Z, refuses bare Python numbers."""

from __future__ import annotations

from .integer import Z, _refuse, batch, products


class Q:
    """A rational num/den of two Z of one Context, in lowest terms with den > 0."""

    __slots__ = ("num", "den")

    def __init__(self, num: Z, den: Z | None = None):
        if not isinstance(num, Z) or (den is not None and not isinstance(den, Z)):
            raise TypeError("Q is built from Sketchpad numbers (Z), not bare Python values")
        if den is None:
            self.num, self.den = num, num.ctx.const(1, "one")
            return
        if den.is_zero:
            raise ZeroDivisionError("rational with zero denominator")
        if den.sign < 0:
            num, den = batch([("neg", num), ("neg", den)])
        if not den.is_one:  # reading: a denominator 1 needs no reduction
            g = num.gcd(den)
            if not g.is_one:
                (num, r1), (den, r2) = batch([("//", num, g), ("//", den, g)])  # one batch
                if not (r1.is_zero and r2.is_zero):
                    raise ArithmeticError(f"gcd {g} does not divide {num} and {den}")
        self.num, self.den = num, den

    @property
    def ctx(self):
        """The Context of the numerator and denominator."""
        return self.num.ctx

    @staticmethod
    def _of(x) -> Q:
        if isinstance(x, Q):
            return x
        if isinstance(x, Z):
            return Q(x)
        if isinstance(x, (int, float, complex)):
            raise _refuse("combine", x)
        return NotImplemented

    # reading ------------------------------------------------------------------------------
    @property
    def sign(self) -> int:
        """-1, 0 or 1."""
        return self.num.sign

    @property
    def is_zero(self) -> bool:
        """Whether the value is 0."""
        return self.num.is_zero

    @property
    def is_one(self) -> bool:
        """Whether the value is 1."""
        return self.num.is_one and self.den.is_one

    @property
    def is_integer(self) -> bool:
        """Whether the denominator is 1."""
        return self.den.is_one

    def __str__(self) -> str:
        return str(self.num) if self.is_integer else f"{self.num}/{self.den}"

    def __repr__(self) -> str:
        return f"Q({self})"

    def __bool__(self):
        raise TypeError("a Sketchpad number has no truth value: use .is_zero or .sign")

    def __hash__(self):
        return hash((self.num.value, self.den.value))

    # computing ----------------------------------------------------------------------------
    def __add__(self, other):
        o = Q._of(other)
        if o is NotImplemented:
            return o
        if self.den.is_one and o.den.is_one:
            return Q(self.num + o.num)
        a, b, d = products([(self.num, o.den), (o.num, self.den), (self.den, o.den)])  # one batch
        return Q(a + b, d)

    __radd__ = __add__

    def __neg__(self):
        return Q(-self.num, self.den)

    def __sub__(self, other):
        o = Q._of(other)
        return o if o is NotImplemented else self + (-o)

    def __rsub__(self, other):
        o = Q._of(other)
        return o if o is NotImplemented else o + (-self)

    def __mul__(self, other):
        o = Q._of(other)
        if o is NotImplemented:
            return o
        return Q(*products([(self.num, o.num), (self.den, o.den)]))

    __rmul__ = __mul__

    def inverse(self) -> Q:
        """1 / self (a ZeroDivisionError for 0)."""
        if self.is_zero:
            raise ZeroDivisionError("division by zero")
        return Q(self.den, self.num)

    def __truediv__(self, other):
        o = Q._of(other)
        return o if o is NotImplemented else self * o.inverse()

    def __rtruediv__(self, other):
        o = Q._of(other)
        return o if o is NotImplemented else o * self.inverse()

    def __eq__(self, other):
        if isinstance(other, (Q, Z, int, float, complex)):
            return (self - Q._of(other)).is_zero
        return NotImplemented

    def __lt__(self, other):
        return (self - Q._of(other)).sign < 0

    def __gt__(self, other):
        return (self - Q._of(other)).sign > 0
