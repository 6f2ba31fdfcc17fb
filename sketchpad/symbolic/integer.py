"""Z: an integer whose every operation runs as a Sketchpad procedure.

Z refuses to mix with bare Python ints (and floats, bools): a coefficient can only meet another
number of the same context, so no arithmetic on coefficients can happen outside the
procedures by accident.  Reading a computed value (its sign, whether it is zero, its digits)
is allowed; computing with it is not.  There is deliberately no __int__/__index__/__bool__.
"""

from __future__ import annotations


def _refuse(op: str, other) -> TypeError:
    return TypeError(
        f"cannot {op} a Sketchpad number and a bare {type(other).__name__} ({other!r}): every "
        f"coefficient must come from the same Context (use ctx.lit(value, why) to bring a "
        f"constant in, so the audit records it)"
    )


class Z:
    __slots__ = ("ctx", "_v")

    def __init__(self, ctx, value: int):
        self.ctx = ctx
        self._v = value

    def _other(self, op: str, other) -> Z:
        if isinstance(other, Z):
            if other.ctx is not self.ctx:
                raise TypeError(f"cannot {op} numbers from two different contexts (the audit would be split)")
            return other
        if isinstance(other, (int, float, complex)):
            raise _refuse(op, other)
        return NotImplemented

    # reading ------------------------------------------------------------------------------
    @property
    def value(self) -> int:
        """The computed value, for display and reading only."""
        return self._v

    @property
    def sign(self) -> int:
        return (self._v > 0) - (self._v < 0)

    @property
    def is_zero(self) -> bool:
        return self._v == 0

    @property
    def is_one(self) -> bool:
        return self._v == 1

    @property
    def digits(self) -> int:
        from ..digits import to_digits

        return len(to_digits(self._v))

    def __str__(self) -> str:
        from ..digits import to_digits

        return ("-" if self._v < 0 else "") + to_digits(self._v)

    def __repr__(self) -> str:
        return f"Z({self})"

    def __hash__(self):
        return hash(self._v)

    def __bool__(self):
        raise TypeError("a Sketchpad number has no truth value: use .is_zero or .sign")

    # computing (each one procedure run) ------------------------------------------------------
    def __add__(self, other):
        o = self._other("add", other)
        return o if o is NotImplemented else self.ctx._wrap(self.ctx.arith.add(self._v, o._v))

    def __sub__(self, other):
        o = self._other("subtract", other)
        return o if o is NotImplemented else self.ctx._wrap(self.ctx.arith.sub(self._v, o._v))

    def __mul__(self, other):
        o = self._other("multiply", other)
        return o if o is NotImplemented else self.ctx._wrap(self.ctx.arith.mul(self._v, o._v))

    def __divmod__(self, other):
        o = self._other("divide", other)
        if o is NotImplemented:
            return o
        q, r = self.ctx.arith.divmod(self._v, o._v)
        return self.ctx._wrap(q), self.ctx._wrap(r)

    def __floordiv__(self, other):
        r = self.__divmod__(other)
        return r if r is NotImplemented else r[0]

    def __mod__(self, other):
        r = self.__divmod__(other)
        return r if r is NotImplemented else r[1]

    def __radd__(self, other):
        raise _refuse("add", other)

    __rsub__ = __rmul__ = __rfloordiv__ = __rmod__ = __rdivmod__ = __radd__

    def __truediv__(self, other):
        raise TypeError("Z has no '/': use divmod, exact_div, or the rational type Q")

    __rtruediv__ = __truediv__

    def __neg__(self):
        return self.ctx._wrap(self.ctx.arith.neg(self._v))

    def __abs__(self):
        return -self if self._v < 0 else self

    def __pow__(self, k):
        """Power by a structural exponent (a Python int that counts, never a coefficient)."""
        if type(k) is not int or k < 0:
            raise TypeError("the exponent of a Sketchpad number must be a non-negative Python int")
        return square_and_multiply(self, k, lambda: self.ctx.const(1, "one"))

    def exact_div(self, other) -> Z:
        q, r = divmod(self, other)
        if not r.is_zero:
            raise ArithmeticError(f"{self} is not divisible by {other}")
        return q

    def divides(self, other) -> bool:
        """Whether self divides other (one division on the sheet)."""
        return divmod(other, self)[1].is_zero

    def gcd(self, other) -> Z:
        o = self._other("take the gcd of", other)
        return self.ctx._wrap(self.ctx.arith.gcd(self._v, o._v))

    def isqrt(self) -> Z:
        return self.ctx._wrap(self.ctx.arith.isqrt(self._v))

    # comparisons: an ordering is the sign of a computed difference ------------------------------
    def cmp(self, other) -> int:
        o = self._other("compare", other)
        if o is NotImplemented:
            raise TypeError(f"cannot compare a Sketchpad number with {type(other).__name__}")
        return (self - o).sign

    def __eq__(self, other):
        if isinstance(other, (Z, int, float, complex)):
            return self.cmp(other) == 0
        return NotImplemented

    def __lt__(self, other):
        return self.cmp(other) < 0

    def __le__(self, other):
        return self.cmp(other) <= 0

    def __gt__(self, other):
        return self.cmp(other) > 0

    def __ge__(self, other):
        return self.cmp(other) >= 0


def square_and_multiply(base, n: int, one):
    """base ** n with about 2 log2(n) multiplications of the type's own `*`; `one()` for n = 0."""
    result = None
    while n:
        if n & 1:
            result = base if result is None else result * base
        n >>= 1
        if n:
            base = base * base
    return result if result is not None else one()
