"""Parser for univariate polynomial expressions: integers, one single-letter variable,
+ - * / ^ (or **), parentheses, and implicit multiplication ("3x^2", "2(x+1)", "(x+1)(x-1)").

Division is by a nonzero constant only, which makes rational coefficients: "1/2x^2 + x + 1/2"
(a number after '/' binds first, then the implicit product: (1/2)*x^2), "x^2/3 - 3/4",
"(2/3)x + 1".  Such input parses to a QPoly (an integer polynomial over one denominator);
input without a division, or whose denominators cancel, is a plain Poly as before.

The expression is expanded while it is parsed, so every coefficient operation already runs on
the sheet.  Every rejection is an InputError that names the problem and, where it helps, the
column.
"""

from __future__ import annotations

import re

from ..digits import to_int
from ..errors import InputError
from .poly import Poly
from .qpoly import QPoly

MAX_CHARS = 20_000
MAX_EXPONENT_DIGITS = 6
_FUNCS = {"sqrt", "sin", "cos", "tan", "exp", "log", "ln", "abs", "gcd", "isqrt"}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)|(?P<name>[A-Za-z_]+)"
    r"|(?P<op>\*\*|[-+*/^()=]))"
)


def _tokens(text: str):
    pos, out = 0, []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            ch = text[pos:].lstrip()[0]
            col = pos + (len(text[pos:]) - len(text[pos:].lstrip())) + 1
            raise InputError(f"unexpected character {ch!r} at column {col}")
        kind = m.lastgroup
        tok = m.group(kind)
        col = m.start(kind) + 1
        if kind == "num" and not tok.isdigit():
            raise InputError(
                f"not an integer: {tok!r} at column {col} (coefficients and exponents must be whole numbers)"
            )
        if kind == "op" and tok == "**":
            tok = "^"
        out.append((kind, tok, col))
        pos = m.end()
    return out


class _PolyParser:
    def __init__(self, ctx, text: str):
        self.ctx = ctx
        self.toks = _tokens(text)
        self.i = 0
        self.var: str | None = None

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None, None)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def one(self) -> Poly:
        return Poly.const(self.ctx.const(1, "one"), self.var or "x")

    def parse(self) -> Poly:
        if not self.toks:
            raise InputError("empty expression")
        p = self.expr()
        kind, tok, col = self.peek()
        if kind is not None:
            if tok == ")":
                raise InputError(f"unbalanced ')' at column {col}")
            if tok == "=":
                raise InputError(f"'=' at column {col}: an equation is only accepted by solve")
            raise InputError(f"unexpected {tok!r} at column {col}")
        p.var = self.var or "x"
        return p

    def expr(self) -> Poly:
        p = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            q = self.term()
            p = _lift(p, q, op)
        return p

    def _starts_factor(self) -> bool:
        kind, tok, _ = self.peek()
        return kind == "name" or tok == "("

    def term(self) -> Poly:
        p = self.unary()
        while True:
            kind, tok, col = self.peek()
            if tok == "*":
                self.take()
                p = _lift(p, self.unary(), "*")
            elif tok == "/":
                self.take()
                d = self.unary()
                if d.degree >= 1:
                    raise InputError(
                        f"division by a polynomial at column {col} is not supported "
                        f"(the result would not be a polynomial; only division by a nonzero number is)"
                    )
                if d.is_zero:
                    raise InputError(f"division by zero at column {col}")
                p = QPoly.of(p).divide_by_constant(d)
            elif self._starts_factor():  # implicit multiplication: 3x, 2(x+1), (x+1)(x-1)
                p = _lift(p, self.power(), "*")
            elif kind == "num":
                raise InputError(f"a number at column {col} follows without an operator: write '*' between them")
            else:
                return p

    def unary(self) -> Poly:
        tok = self.peek()[1]
        if tok == "-":
            self.take()
            return -self.unary()
        if tok == "+":
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Poly:
        base = self.atom()
        if self.peek()[1] != "^":
            return base
        _, _, col = self.take()
        n = self.exponent(col)
        if self.peek()[1] == "^":
            raise InputError(f"chained exponent at column {self.peek()[2]}: add parentheses, e.g. (x^2)^3")
        return base**n

    def exponent(self, col) -> int:
        kind, tok, c = self.peek()
        paren = tok == "("
        if paren:
            self.take()
            kind, tok, c = self.peek()
        if tok == "-":
            raise InputError(f"negative exponent at column {c}: only whole exponents >= 0 are allowed")
        if kind == "name":
            raise InputError(
                f"symbolic exponents are not supported: the exponent at column {c} contains {tok!r} "
                f"(exponents must be whole numbers)"
            )
        if kind != "num":
            raise InputError(f"'^' at column {col} needs a whole-number exponent")
        self.take()
        if len(tok.lstrip("0")) > MAX_EXPONENT_DIGITS:
            raise InputError(f"the exponent at column {c} is too large")
        if paren:
            if self.peek()[1] == "/":
                raise InputError(f"non-integer exponent at column {c}: exponents must be whole numbers")
            if self.peek()[1] != ")":
                raise InputError(f"the exponent at column {c} must be a single whole number")
            self.take()
        return int(tok)  # a structural count, not a coefficient

    def atom(self) -> Poly:
        kind, tok, col = self.take()
        if kind == "num":
            return Poly.const(self.ctx.lit(to_int(tok), "a coefficient of the input"), self.var or "x")
        if kind == "name":
            if len(tok) > 1:
                if tok.lower() in _FUNCS or self.peek()[1] == "(":
                    raise InputError(f"functions such as {tok!r} (column {col}) are not supported in polynomials")
                raise InputError(
                    f"{tok!r} at column {col}: use a single-letter variable "
                    f"(multivariate polynomials are not supported)"
                )
            if self.var is None:
                self.var = tok
            elif tok != self.var:
                raise InputError(f"multivariate polynomials are not supported: found {self.var!r} and {tok!r}")
            return Poly.monomial(self.ctx.const(1, "one"), 1, tok)
        if tok == "(":
            if self.peek()[1] == ")":
                raise InputError(f"empty parentheses at column {col}")
            p = self.expr()
            if self.peek()[1] != ")":
                raise InputError(f"missing ')' for the '(' at column {col}")
            self.take()
            return p
        if kind is None:
            raise InputError("the expression ends too early")
        raise InputError(f"unexpected {tok!r} at column {col}")


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


def _check_text(text) -> str:
    if not isinstance(text, str):
        raise InputError("the expression must be a string")
    if len(text) > MAX_CHARS:
        raise InputError(f"the expression has {len(text):,} characters; the limit is {MAX_CHARS:,}")
    if not text.strip():
        raise InputError("empty expression")
    return text


def parse_poly(ctx, text: str) -> Poly:
    """An expression -> its expanded polynomial (every coefficient computed on the sheet)."""
    return _finish(_PolyParser(ctx, _check_text(text)).parse())


def parse_equation(ctx, text: str) -> Poly:
    """'lhs = rhs' -> lhs - rhs; a plain expression is taken as '= 0'."""
    text = _check_text(text)
    if text.count("=") > 1:
        raise InputError("an equation has at most one '='")
    if "=" not in text:
        return parse_poly(ctx, text)
    lhs, rhs = text.split("=")
    if not lhs.strip() or not rhs.strip():
        raise InputError("both sides of '=' must be expressions")
    pl, pr = _PolyParser(ctx, lhs), _PolyParser(ctx, rhs)
    a = pl.parse()
    pr.var = pl.var
    b = pr.parse()
    p = _lift(a, b, "-")
    p.var = pr.var or pl.var or "x"
    return _finish(p)
