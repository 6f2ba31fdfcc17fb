"""Parser for univariate polynomial expressions: integers, one single-letter variable,
+ - * / ^ (or **), parentheses, and implicit multiplication ("3x^2", "2(x+1)", "(x+1)(x-1)").

Division is by a nonzero constant only, which makes rational coefficients: "1/2x^2 + x + 1/2"
(a number after '/' binds first, then the implicit product: (1/2)*x^2), "x^2/3 - 3/4",
"(2/3)x + 1".  Such input parses to a QPoly (an integer polynomial over one denominator);
input without a division, or whose denominators cancel, is a plain Poly as before.

The expression is expanded while it is parsed, so every coefficient operation already runs on
the sheet.  Every rejection is an InputError that names the problem and, where it helps, the
column.

This module knows the grammar only: what a constant, the variable, a sum or a division by a
constant becomes is the `ring`'s job (Poly.parse's integer ring in poly.py, the ring of
parse_poly and QPoly.parse in qpoly.py), so that Poly and QPoly can both offer `.parse` without
an import loop.
"""

from __future__ import annotations

import re

from ..digits import to_int
from ..errors import InputError


class ArgumentTypeError(InputError, TypeError):
    """A wrong argument type: a TypeError for Python callers, and still one line with exit code
    2 (HTTP 4xx) where the CLI and the server catch InputError."""


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


class Parser:
    """Recursive descent over the tokens of `text`; `ring` builds the values: ring.const(z, var),
    ring.variable(ctx, var), ring.lift(p, q, op) for + - *, ring.divide(p, d, col)."""

    def __init__(self, ctx, text: str, ring):
        self.ctx = ctx
        self.ring = ring
        self.toks = _tokens(text)
        self.i = 0
        self.var: str | None = None

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None, None)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def parse(self):
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

    def expr(self):
        p = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            q = self.term()
            p = self.ring.lift(p, q, op)
        return p

    def _starts_factor(self) -> bool:
        kind, tok, _ = self.peek()
        return kind == "name" or tok == "("

    def term(self):
        p = self.unary()
        while True:
            kind, tok, col = self.peek()
            if tok == "*":
                self.take()
                p = self.ring.lift(p, self.unary(), "*")
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
                p = self.ring.divide(p, d, col)
            elif self._starts_factor():  # implicit multiplication: 3x, 2(x+1), (x+1)(x-1)
                p = self.ring.lift(p, self.power(), "*")
            elif kind == "num":
                raise InputError(f"a number at column {col} follows without an operator: write '*' between them")
            else:
                return p

    def unary(self):
        tok = self.peek()[1]
        if tok == "-":
            self.take()
            return -self.unary()
        if tok == "+":
            self.take()
            return self.unary()
        return self.power()

    def power(self):
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

    def atom(self):
        kind, tok, col = self.take()
        if kind == "num":
            return self.ring.const(self.ctx.lit(to_int(tok), "a coefficient of the input"), self.var or "x")
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
            return self.ring.variable(self.ctx, tok)
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


def check_text(text, who: str = "the expression") -> str:
    """The text of an expression, or a one-line error: not a str, too long, or empty."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f'{who} must be a str such as "x^2 - 1", not {type(text).__name__}')
    if len(text) > MAX_CHARS:
        raise InputError(f"the expression has {len(text):,} characters; the limit is {MAX_CHARS:,}")
    if not text.strip():
        raise InputError("empty expression")
    return text
