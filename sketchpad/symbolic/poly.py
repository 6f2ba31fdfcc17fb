"""Univariate polynomials with Z coefficients, stored sparsely ({exponent: nonzero Z}).

Exponents are structural Python ints (they count, they are not coefficients).  A coefficient
that becomes zero is dropped by reading it, so "zero" never needs to be computed.
"""

from __future__ import annotations

from ..errors import InputError
from .context import Context
from .grammar import Parser, check_text
from .integer import Z, batch, gcd_all, products, square_and_multiply, sums


class Poly:
    """A polynomial with integer coefficients, every coefficient a Z of one Context.

    Read one from text with Poly.parse("x^2 - 1") (QPoly.parse for rational coefficients);
    Poly(ctx, {exponent: Z}, var) builds one from numbers that already live in `ctx`."""

    __slots__ = ("ctx", "terms", "var")

    def __init__(self, ctx, terms: dict | None = None, var: str = "x"):
        if isinstance(ctx, str):
            raise TypeError(
                f"Poly(ctx, terms, var) takes a Context first, not the text {ctx!r}: "
                f"read a polynomial from text with Poly.parse({ctx!r})"
            )
        expect_context(ctx, "Poly(ctx, terms, var)")
        if terms is not None and not isinstance(terms, dict):
            raise TypeError(f"Poly's terms must be a dict {{exponent: Z}}, not {type(terms).__name__}")
        if not isinstance(var, str):
            raise TypeError(f"Poly's variable must be a str such as 'x', not {type(var).__name__}")
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
    def parse(cls, text: str, stepper=None, *, context=None) -> Poly:
        """The integer polynomial written in `text`: "3x^2 - 12", "(x+1)^3", "x**2 + 2*x".

        The grammar is parse_poly's.  Every coefficient is computed by `stepper` in a new
        Context: None is the certified shipped model, exactly as sketchpad.solve; "reference"
        is the reference stepper.  Pass `context=` instead to compute in an existing Context.
        A division must be exact ("(2x+2)/2"); rational coefficients need QPoly.parse."""
        text = check_text(text, "Poly.parse's text")
        return Parser(context_for(stepper, context, "Poly.parse"), text, IntegerRing).parse()

    @classmethod
    def const(cls, c: Z, var: str = "x") -> Poly:
        """The constant polynomial c."""
        if not isinstance(c, Z):
            raise TypeError(f"Poly.const takes a Sketchpad integer (Z, from ctx.lit), not {type(c).__name__}")
        return cls(c.ctx, {0: c}, var)

    @classmethod
    def monomial(cls, c: Z, k: int, var: str = "x") -> Poly:
        """c * x^k."""
        if not isinstance(c, Z) or type(k) is not int or k < 0:
            raise TypeError("Poly.monomial takes a Sketchpad integer (Z) and a Python int exponent >= 0")
        return cls(c.ctx, {k: c}, var)

    def _new(self, terms: dict) -> Poly:
        return Poly(self.ctx, terms, self.var)

    # reading ------------------------------------------------------------------------------
    @property
    def is_zero(self) -> bool:
        """Whether this is the zero polynomial."""
        return not self.terms

    @property
    def degree(self) -> int:
        """The degree (-1 for the zero polynomial)."""
        return max(self.terms) if self.terms else -1

    @property
    def lc(self) -> Z:
        """The leading coefficient."""
        return self.terms[self.degree]

    @property
    def low(self) -> int:
        """The lowest exponent present (x^low divides the polynomial)."""
        return min(self.terms)

    def coeff(self, k: int) -> Z | None:
        """The coefficient of x^k, None when absent."""
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

    # Each method below hands its independent coefficient operations to the runtime together
    # (integer.batch): one batch of forward passes per round serves all coefficients.
    def __add__(self, other: Poly) -> Poly:
        """self + other, another Poly of the same Context."""
        self._same_kind(other, "add")
        both = [k for k in other.terms if k in self.terms]
        terms = dict(self.terms)
        terms.update(other.terms)
        terms.update(zip(both, batch([("+", self.terms[k], other.terms[k]) for k in both])))
        return self._new(terms)

    def __neg__(self) -> Poly:
        """-self."""
        return self._new(dict(zip(self.terms, batch([("neg", c) for c in self.terms.values()]))))

    def __sub__(self, other: Poly) -> Poly:
        """self - other, another Poly of the same Context."""
        self._same_kind(other, "subtract")
        return self._minus(other.terms)

    def _minus(self, sub: dict) -> Poly:
        """self - sum_k sub[k] x^k, in one batch (a '-' where both have a term, else a 'neg')."""
        keys = list(sub)
        ops = [("-", self.terms[k], sub[k]) if k in self.terms else ("neg", sub[k]) for k in keys]
        terms = dict(self.terms)
        terms.update(zip(keys, batch(ops)))
        return self._new(terms)

    def __mul__(self, other: Poly) -> Poly:
        """self * other: another Poly of the same Context, or a Z (a scaling)."""
        if isinstance(other, Z):
            return self.scale(other)
        self._same_kind(other, "multiply")
        self.ctx.check_degree(self.degree + other.degree)
        keys = [(i + j, a, b) for i, a in self.terms.items() for j, b in other.terms.items()]
        acc: dict[int, list] = {}
        for (k, _, _), v in zip(keys, products([(a, b) for _, a, b in keys])):  # all products: one batch
            acc.setdefault(k, []).append(v)
        return self._new(dict(zip(acc, sums(list(acc.values())))))  # then one batch per tree level

    def scale(self, c: Z) -> Poly:
        """Every coefficient times c (one batch)."""
        if c.is_one:  # reading: multiplying by one is no work
            return self
        return self._new(dict(zip(self.terms, products([(a, c) for a in self.terms.values()]))))

    def shift(self, k: int) -> Poly:
        """Multiply (k > 0) or divide exactly (k < 0) by x^|k|: only exponents move."""
        return self._new({e + k: c for e, c in self.terms.items()})

    def __pow__(self, n: int) -> Poly:
        """self ** n for a Python int n >= 0 (square and multiply)."""
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
        """d/dx self."""
        ks = [k for k in self.terms if k > 0]
        pairs = [(self.terms[k], self.ctx.const(k, "an exponent (derivative)")) for k in ks]
        return self._new({k - 1: v for k, v in zip(ks, products(pairs))})

    # division over Z ----------------------------------------------------------------------
    def _sub_scaled(self, d: Poly, t: Z, k: int) -> Poly:
        """self - t * x^k * d: the products in one batch, the differences in another."""
        return self._minus(dict(zip((e + k for e in d.terms), products([(c, t) for c in d.terms.values()]))))

    def divmod_exact(self, d: Poly):
        """Divide by d over Z: (q, r) when each leading division is exact, else None.

        When d is primitive and divides self over Q, every step is exact (Gauss's lemma),
        so None means 'd does not divide self'."""
        if d.is_zero:
            raise ZeroDivisionError("division by the zero polynomial")
        q: dict = {}
        r = self
        while not r.is_zero and r.degree >= d.degree:
            if d.lc.is_one:  # reading: a division by one is no work (a monic divisor)
                t = r.lc
            else:
                t, rem = divmod(r.lc, d.lc)
                if not rem.is_zero:
                    return None
            k = r.degree - d.degree
            q[k] = t
            r = r._sub_scaled(d, t, k)
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
            # both scalings in one batch, then the differences in one more
            n = len(r.terms)
            pr = products([(c, d.lc) for c in r.terms.values()] + [(c, r.lc) for c in d.terms.values()])
            r = r._new(dict(zip(r.terms, pr[:n])))._minus(dict(zip((e + k for e in d.terms), pr[n:])))
        return r

    # content -------------------------------------------------------------------------------
    def content(self) -> Z:
        """gcd of the coefficients (a tree of batched gcds), with the sign of the leading one."""
        g = gcd_all([self.terms[k] for k in sorted(self.terms, reverse=True)])
        return -g if self.lc.sign < 0 else g

    def primitive(self) -> tuple[Z, Poly]:
        """(content, primitive part): self = content * part."""
        c = self.content()
        if c.is_one:
            return c, self
        return c, self.exact_div_scalar(c)

    def exact_div_scalar(self, c: Z) -> Poly:
        """Every coefficient divided by c, all divisions in one batch; each must be exact."""
        qr = batch([("//", a, c) for a in self.terms.values()])
        if any(not r.is_zero for _, r in qr):
            raise ArithmeticError(f"{c} does not divide every coefficient of {self}")
        return self._new(dict(zip(self.terms, (q for q, _ in qr))))

    def gcd(self, other: Poly) -> Poly:
        """Primitive gcd with positive leading coefficient (primitive remainder sequence)."""
        a, b = self.primitive()[1], other.primitive()[1]
        if a.degree < b.degree:
            a, b = b, a
        while not b.is_zero:
            r = a.prem(b)
            a, b = b, (r.primitive()[1] if not r.is_zero else r)
        return a.primitive()[1]

    # evaluation: x^1..x^n for every point by repeated doubling (log2 n batches), then the
    # terms c_k x^k in one batch and their sum as a batched tree: about 2 log2 n + 1 batches
    # for any number of points, where Horner's rule takes 2n one-operation batches per point.
    def eval_int(self, x: Z) -> Z:
        """self(x)."""
        return self.eval_many([x])[0]

    def eval_many(self, xs: list) -> list:
        """[self(x) for x in xs], all points together."""
        if self.degree <= 0:
            return [self.at(0) for _ in xs]
        pw = powers(list(xs), self.degree)
        terms = [[(c, pw[i][k]) if k else None for k, c in self.terms.items()] for i in range(len(xs))]
        flat = [t for ts in terms for t in ts if t is not None]
        prod = iter(products(flat))
        return sums([[next(prod) if t is not None else self.terms[0] for t in ts] for ts in terms])

    def eval_homogeneous(self, p: Z, q: Z) -> Z:
        """q^n * self(p/q): zero exactly when p/q is a root; integers only."""
        return self.eval_homogeneous_many([(p, q)])[0]

    def eval_homogeneous_many(self, pts: list) -> list:
        """[q^n self(p/q) for (p, q) in pts] = sum_k c_k p^k q^(n-k), all points together."""
        n = self.degree
        if n <= 0:
            return [self.at(0) for _ in pts]
        pw = powers([p for p, _ in pts] + [q for _, q in pts], n)
        m = len(pts)
        # c_k * p^k, then * q^(n-k): two batches (a power 0 is no factor at all)
        first = [[(c, pw[i][k]) if k else None for k, c in self.terms.items()] for i in range(m)]
        flat = iter(products([t for ts in first for t in ts if t is not None]))
        first = [[next(flat) if t is not None else self.terms[0] for t in ts] for ts in first]
        second = [
            [(v, pw[m + i][n - k]) if k < n else None for k, v in zip(self.terms, ts)] for i, ts in enumerate(first)
        ]
        flat = iter(products([t for ts in second for t in ts if t is not None]))
        second = [[next(flat) if t is not None else v for t, v in zip(ts, first[i])] for i, ts in enumerate(second)]
        return sums(second)

    # text ------------------------------------------------------------------------------------
    def __str__(self) -> str:
        return format_poly(self)

    def __repr__(self) -> str:
        return f"Poly({self})"


def expect_context(ctx, who: str) -> None:
    """A one-line TypeError unless ctx is a Context (never a silent zero from a wrong argument)."""
    if not isinstance(ctx, Context):
        raise TypeError(f"{who} takes a Context first (Context(stepper)), not {type(ctx).__name__}")


def context_for(stepper, context, who: str) -> Context:
    """`context` when given (then stepper must be None), else a new Context(stepper)."""
    if context is None:
        return Context(stepper)
    if stepper is not None:
        raise TypeError(f"{who}: pass a stepper or a context, not both (the context has its stepper)")
    expect_context(context, f"{who}'s context=")
    return context


class IntegerRing:
    """How Poly.parse builds values: integer Polys only; a division must be exact."""

    const = staticmethod(Poly.const)

    @staticmethod
    def variable(ctx, var: str) -> Poly:
        return Poly.monomial(ctx.const(1, "one"), 1, var)

    @staticmethod
    def lift(p: Poly, q: Poly, op: str) -> Poly:
        return p + q if op == "+" else p - q if op == "-" else p * q

    @staticmethod
    def divide(p: Poly, d: Poly, col: int) -> Poly:
        c = d.at(0)
        qr = batch([("//", a, c) for a in p.terms.values()])
        if any(not r.is_zero for _, r in qr):
            raise InputError(f"the division at column {col} leaves rational coefficients: read them with QPoly.parse")
        return p._new(dict(zip(p.terms, (q for q, _ in qr))))


def powers(xs: list, n: int) -> list:
    """[[None, x, x^2, ..., x^n] for x in xs]: x^(h+j) = x^h * x^j for j = 1..h at each level,
    all points in one batch per level (log2 n levels)."""
    pw = [[None, x] for x in xs]
    have = 1
    while have < n:
        top = min(2 * have, n)
        new = products([(p[have], p[j - have]) for p in pw for j in range(have + 1, top + 1)])
        w = top - have
        for i, p in enumerate(pw):
            p += new[i * w : (i + 1) * w]
        have = top
    return pw


# modular helpers, batched: what modular arithmetic (Hensel lifting, tests mod p) builds on
def each(m, k: int) -> list:
    """A modulus per item: m itself when it is a list (one per problem), else m k times (the
    modular helpers take either, so problems modulo different primes advance side by side)."""
    return list(m) if isinstance(m, list) else [m] * k


def mods(values: list, m) -> list:
    """[v mod m for v in values], one batch (m a Z, or a list: one modulus per value)."""
    return [r for _, r in batch([("//", v, q) for v, q in zip(values, each(m, len(values)))])]


def mod_eval_many(pairs: list, m: Z) -> list:
    """[g(x) mod m for (g, x) in pairs]: coefficients and powers reduced mod m as they are made
    (numbers stay below m^2), every pair in the same batches: about 3 log2(n) + 4 of them."""
    if not pairs:
        return []
    distinct = list({id(g): g for g, _ in pairs}.values())  # each polynomial reduced once
    red = iter(mods([c for g in distinct for c in g.terms.values()], m))
    reduced = {id(g): dict(zip(g.terms, red)) for g in distinct}
    cs = [reduced[id(g)] for g, _ in pairs]
    n = max(g.degree for g, _ in pairs)
    pw = [[None, x] for _, x in pairs]
    have = 1
    while have < n:  # x^(h+j) = x^h * x^j mod m, all pairs together
        top = min(2 * have, n)
        new = mods(products([(q[have], q[j - have]) for q in pw for j in range(have + 1, top + 1)]), m)
        w = top - have
        for i, q in enumerate(pw):
            q += new[i * w : (i + 1) * w]
        have = top
    flat = [(c, pw[i][k]) for i, ci in enumerate(cs) for k, c in ci.items() if k]
    prod = iter(mods(products(flat), m))
    groups = [[next(prod) if k else c for k, c in ci.items()] or [m.ctx.const(0, "zero")] for ci in cs]
    return mods(sums(groups), m)


def minus_many(items: list) -> list:
    """[g - sum_k sub[k] x^k for (g, sub)], every difference of every polynomial in one batch."""
    ops = [("-", g.terms[k], v) if k in g.terms else ("neg", v) for g, sub in items for k, v in sub.items()]
    res = iter(batch(ops))
    out = []
    for g, sub in items:
        terms = dict(g.terms)
        terms.update((k, next(res)) for k in sub)
        out.append(g._new(terms))
    return out


def reduce_all(polys: list) -> list:
    """[g mod P for (g, P)], every coefficient of every polynomial in one batch of divisions."""
    qr = iter(batch([("//", c, P) for g, P in polys for c in g.terms.values()]))
    return [g._new({k: next(qr)[1] for k in g.terms}) for g, _ in polys]


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
