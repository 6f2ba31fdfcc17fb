"""Z: an integer whose every operation runs as a Sketchpad procedure.

Z refuses to mix with bare Python ints (and floats, bools): a coefficient can only meet another
number of the same context, so no arithmetic on coefficients can happen outside the
procedures by accident.  Reading a computed value (its sign, whether it is zero, its digits)
is allowed; computing with it is not.  There is deliberately no __int__/__index__/__bool__.
"""

from __future__ import annotations

from ..digits import to_digits


def _refuse(op: str, other) -> TypeError:
    return TypeError(
        f"cannot {op} a Sketchpad number and a bare {type(other).__name__} ({other!r}): every "
        f"coefficient must come from the same Context (use ctx.lit(value, why) to bring a "
        f"constant in, so the audit records it)"
    )


class Z:
    """An integer of one Context; every operation on it runs as a Sketchpad procedure (bring one in
    with ctx.lit(value, why)).  Z refuses bare Python numbers."""

    __slots__ = ("ctx", "_v")

    def __init__(self, ctx, value: int):
        if type(value) is not int:
            raise TypeError(
                f"Z(ctx, value) takes a Python int value, not {type(value).__name__}: use ctx.lit(value, why)"
            )
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
        """-1, 0 or 1 (reading the computed value)."""
        return (self._v > 0) - (self._v < 0)

    @property
    def is_zero(self) -> bool:
        """Whether the value is 0."""
        return self._v == 0

    @property
    def is_one(self) -> bool:
        """Whether the value is 1."""
        return self._v == 1

    @property
    def digits(self) -> int:
        """The number of decimal digits of |value|."""
        return len(to_digits(self._v))

    def __str__(self) -> str:
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
        if o is NotImplemented:
            return o
        a, b = longer_first(self, o)
        return self.ctx._wrap(self.ctx.arith.mul(a._v, b._v))

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
        """self / other, which must divide exactly (an ArithmeticError otherwise)."""
        q, r = divmod(self, other)
        if not r.is_zero:
            raise ArithmeticError(f"{self} is not divisible by {other}")
        return q

    def divides(self, other) -> bool:
        """Whether self divides other (one division on the sheet)."""
        return divmod(other, self)[1].is_zero

    def gcd(self, other) -> Z:
        """gcd(self, other) >= 0, one procedure run."""
        o = self._other("take the gcd of", other)
        return self.ctx._wrap(self.ctx.arith.gcd(self._v, o._v))

    def isqrt(self) -> Z:
        """The integer square root, one procedure run."""
        return self.ctx._wrap(self.ctx.arith.isqrt(self._v))

    # comparisons: an ordering is the sign of a computed difference ------------------------------
    def cmp(self, other) -> int:
        """-1, 0 or 1: the sign of the computed difference self - other."""
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


# batches: independent operations of one context run together (Arithmetic.many), so one
# runtime batch per round serves all of them ---------------------------------------------------
def batch(ops: list) -> list:
    """Run independent operations `(op, Z[, Z])` together; results in order (a '//' gives (q, r)).

    op is one of Arithmetic's: "+", "-", "*", "//", "neg", "sqrt", "gcd"."""
    if not ops:
        return []
    ctx = ops[0][1].ctx
    for o in ops:
        for z in o[1:]:
            if not isinstance(z, Z):
                raise _refuse(o[0], z)
            if z.ctx is not ctx:
                raise TypeError("cannot batch numbers from two different contexts (the audit would be split)")
    ops = [("*", *longer_first(*o[1:])) if o[0] == "*" else o for o in ops]
    plain = [(o[0], *(z._v for z in o[1:])) for o in ops]
    out = ctx.arith.many(plain) if ctx.batching else [ctx.arith.many([o])[0] for o in plain]
    return [tuple(ctx._wrap(v) for v in r) if isinstance(r, tuple) else ctx._wrap(r) for r in out]


def longer_first(a: Z, b: Z) -> tuple:
    """The factors of a product with the longer one first: the procedure makes one partial row
    per digit of the second, so a short multiplier means fewer rows and fewer batches (reading
    lengths only; the product is the same)."""
    return (b, a) if abs(a._v).bit_length() < abs(b._v).bit_length() else (a, b)


def products(pairs: list) -> list:
    """[a * b for each pair], in one batch; a factor 1 is no work (reading, as in Poly.scale)."""
    todo = [i for i, (a, b) in enumerate(pairs) if not (a.is_one or b.is_one)]
    out = [b if a.is_one else a for a, b in pairs]
    for i, v in zip(todo, batch([("*", *pairs[i]) for i in todo])):
        out[i] = v
    return out


def sums(groups: list) -> list:
    """The sum of each non-empty list of Z: pairwise trees, one batch per level for all lists
    together (depth log2 of the longest list instead of its length)."""
    groups = [list(g) for g in groups]
    while any(len(g) > 1 for g in groups):
        pairs = [(i, j) for i, g in enumerate(groups) for j in range(0, len(g) - 1, 2)]
        added = iter(batch([("+", groups[i][j], groups[i][j + 1]) for i, j in pairs]))
        groups = [
            [next(added) if j + 1 < len(g) else g[j] for j in range(0, len(g), 2)] if len(g) > 1 else g for g in groups
        ]
    return [g[0] for g in groups]


def product_all(values: list, one) -> Z:
    """The product of the values as a tree of batched multiplications; `one()` when empty."""
    level = list(values)
    if not level:
        return one()
    while len(level) > 1:
        nxt = products([(level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)])
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0]


def gcd_all(values: list) -> Z:
    """gcd of the values (>= 0): a tree of batched gcds, stopping after a level that reaches 1."""
    level = list(values)
    if len(level) == 1:
        return abs(level[0])
    while len(level) > 1:
        nxt = batch([("gcd", level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)])
        if len(level) % 2:
            nxt.append(level[-1])
        if any(g.is_one for g in nxt):  # reading: the gcd is 1 already
            return next(g for g in nxt if g.is_one)
        level = nxt
    return abs(level[0])


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
