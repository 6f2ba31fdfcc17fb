"""The expression language: integers, + - * // %, unary minus, parentheses, sqrt(n), gcd(a, b).

The grammar (EBNF; docs/expressions.md says the same with examples):

    expression = sum ;
    sum        = product , { ( "+" | "-" ) , product } ;
    product    = unary , { ( "*" | "//" | "%" ) , unary } ;
    unary      = { "+" | "-" } , primary ;
    primary    = number | call | "(" , sum , ")" ;
    call       = function , "(" , [ sum , { "," , sum } , [ "," ] ] , ")" ;
    function   = "sqrt" | "isqrt" | "gcd" ;
    number     = digit , { digit } ;               (ASCII 0-9 only, any length up to the limit)

Between tokens: spaces, tabs and form feeds; a line break inside parentheses; a backslash at
the end of a line; a `#` comment to the end of the line.  Whitespace around the whole text is
ignored (any character Python's str.isspace accepts).  A line break outside parentheses ends
the expression: only blank lines and comments may follow.  At most MAX_NESTING parentheses
may be open at once and an expression has at most `Limits.max_operations` parts (numbers,
operators, calls), so the tree and the recursion are bounded: at most three Python frames per
open parenthesis (600 at the deepest, well within Python's default limit of 1,000); the
operators and signs of one level are read in loops, whatever their number.

One small recursive-descent parser, mirrored function for function by web/expr.js.  Every refusal is an
ExprError (an InputError) whose message names the problem and whose `column` (1-based, in code
points of the text as typed) says where, so the page and the CLI can point at it.  Words that
Python would accept (`2 ** 3`, `x < y`, `not x`, `f(x)`) are refused with a message that says
what is unsupported.  web/golden/expr-vectors.json holds the two parsers equal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .digits import to_int
from .errors import InputError

FUNCTIONS = {"sqrt": 1, "isqrt": 1, "gcd": 2}
# Operators the language refuses, and the words it refuses them with (the page says the same).
FORBIDDEN = {
    "/": "'/' is not supported: use // for integer division",
    "**": "'**' (power) is not supported",
    "@": "'@' is not supported",
    "<<": "'<<' is not supported",
    ">>": "'>>' is not supported",
    "&": "'&' is not supported",
    "|": "'|' is not supported",
    "^": "'^' is not supported",
}
MAX_NESTING = 200  # open parentheses at once (Python's tokenizer allowed as many)
EDGE_SPACE = "".join(c for c in map(chr, range(0x3001)) if c.isspace())  # stripped around the text

_BINARY = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2}  # operator -> precedence
_TWO_CHAR = ("**", "//", "<<", ">>", "<=", ">=", "==", "!=")
_ONE_CHAR = "+-*/%(),<>=@&|^~;:[]{}!."
_COMPARE = ("<", ">", "<=", ">=", "==", "!=")
_DIGITS = "0123456789"
_NAME_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
_NAME_REST = _NAME_START + _DIGITS
_NUMBER_REST = _NAME_REST + "."  # what a typed number runs on with (1.5, 1e5, 0x10, 1_000)
# Python words in an operand's place, refused with what they are.
_WORDS = {
    "not": "not is not supported",
    "lambda": "lambda expressions are not supported",
    "None": "not an integer: None",
    "True": "not an integer: True",
    "False": "not an integer: False",
}
# ... and in an operator's place.
_OPERATOR_WORDS = {
    "and": "'and'/'or' are not supported",
    "or": "'and'/'or' are not supported",
    "is": "comparisons are not supported",
    "in": "comparisons are not supported",
    "not": "comparisons are not supported",
    "if": "conditional expressions are not supported",
    "for": "generator expressions are not supported",
}


class ExprError(InputError):
    """A refused expression; `column` is 1-based in code points of the text typed, or None."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message)
        self.column = column


@dataclass(frozen=True)
class Limits:
    max_digits: int = 20_000  # any number: operand, intermediate or result
    max_quadratic_digits: int = 8_000  # operands of *, //, %, sqrt, gcd (work grows as n^2) ...
    max_chars: int = 200_000  # the whole expression
    max_operations: int = 500
    # ... and each operation's own limit: what the shipped model solves within 60 s and 4 GB on
    # the 2-core build machine (benchmarks/bench_long.py --limits, docs/long.md)
    quadratic_digits: tuple = (("*", 8_000), ("//", 3_000), ("%", 3_000), ("sqrt", 3_000), ("gcd", 2_000))

    def limit_for(self, op: str) -> int:
        """The most digits an operand of `op` may have (a quadratic operation)."""
        return min(self.max_quadratic_digits, dict(self.quadratic_digits).get(op, self.max_quadratic_digits))


# A parsed expression is a small tree of tuples:
#   ("num", digits, negative) | ("neg", e) | ("bin", op, e1, e2) | ("call", name, [args])
# A token is (kind, value, index): kind "num" | "name" | "op" | "newline" | "end".


def _char_name(ch: str) -> str:
    """'$' (U+0024) for printable ASCII, else only the code point (both languages agree)."""
    code = f"U+{ord(ch):04X}"
    return f"'{ch}' ({code})" if "!" <= ch <= "~" else code


class _Lexer:
    """Hands out one token at a time, so errors come in the order of the text."""

    def __init__(self, text: str, start: int, end: int, limits: Limits):
        self.s, self.i, self.end, self.limits = text, start, end, limits
        self.opened: list[int] = []  # where each open parenthesis is
        self.seen = False  # a token has been handed out (a line break before one is blank)

    def fail(self, message: str, at: int):
        raise ExprError(f"syntax error at column {at + 1}: {message}", at + 1)

    def skip(self) -> None:
        """Past whitespace, comments, continuations and blank line breaks."""
        s, end = self.s, self.end
        while self.i < end:
            ch = s[self.i]
            if ch in " \t\f":
                self.i += 1
            elif ch == "#":
                while self.i < end and s[self.i] not in "\r\n":
                    self.i += 1
            elif ch == "\\" and self.i + 1 < end and s[self.i + 1] in "\r\n":
                self.i += 3 if s[self.i + 1 : self.i + 3] == "\r\n" else 2
            elif ch in "\r\n" and (self.opened or not self.seen):
                self.i += 1
            else:
                return

    def next(self) -> tuple:
        self.skip()
        s, i, end = self.s, self.i, self.end
        if i >= end:
            return ("end", "", end)
        self.seen = True
        ch = s[i]
        if ch in "\r\n":  # outside parentheses: the expression ends here, or it is an error
            self.seen = False  # look ahead over blank lines and comments
            self.skip()
            blank = self.i >= end
            self.seen, self.i = True, i
            return ("end", "", end) if blank else ("newline", "", i)
        if ch in _DIGITS or (ch == "." and i + 1 < end and s[i + 1] in _DIGITS):
            j = i + 1
            while j < end and s[j] in _NUMBER_REST:
                j += 1
            self.i = j
            return ("num", self.number(s[i:j], i), i)
        if ch in _NAME_START:
            j = i + 1
            while j < end and (s[j] in _NAME_REST or (s[j] == "." and j + 1 < end and s[j + 1] in _NAME_START)):
                j += 1
            self.i = j
            return ("name", s[i:j], i)
        if ch in "'\"":
            j = i + 1
            while j < end and s[j] != ch and s[j] not in "\r\n":
                j += 2 if s[j] == "\\" else 1
            if j >= end or s[j] != ch:
                self.fail("unterminated string", i)
            raise ExprError(f"not an integer: {s[i : j + 1][:40]}", i + 1)
        op = s[i : i + 2] if s[i : i + 2] in _TWO_CHAR else ch
        if op not in _TWO_CHAR and op not in _ONE_CHAR:
            self.fail(f"invalid character {_char_name(ch)}", i)
        if op == "(":
            self.opened.append(i)
            if len(self.opened) > MAX_NESTING:
                self.fail("too many nested parentheses", i)
        elif op == ")" and self.opened:
            self.opened.pop()
        self.i = i + len(op)
        return ("op", op, i)

    def number(self, tok: str, at: int) -> str:
        if not all(c in _DIGITS for c in tok):
            if "." in tok or "e" in tok.lower():
                raise ExprError(f"not an integer: {tok[:40]!r} (only whole numbers are allowed)", at + 1)
            kind = "a decimal integer (no 0x/0b/0o)" if tok[:2] in ("0x", "0b", "0o") else "a decimal integer"
            raise ExprError(f"not {kind}: {tok[:40]!r}", at + 1)
        if len(tok) > self.limits.max_digits:
            raise ExprError(f"a number has {len(tok):,} digits; the limit is {self.limits.max_digits:,}", at + 1)
        return tok.lstrip("0") or "0"


class _Parser:
    def __init__(self, lexer: _Lexer, limits: Limits):
        self.lex, self.limits = lexer, limits
        self.tok = lexer.next()
        self.parts = 0
        self.calls: list[str] = []  # the functions whose arguments are being read

    def advance(self) -> tuple:
        tok, self.tok = self.tok, self.lex.next()
        return tok

    def is_op(self, *ops: str) -> bool:
        return self.tok[0] == "op" and self.tok[1] in ops

    def part(self, at: int) -> None:
        self.parts += 1
        if self.parts > self.limits.max_operations:
            raise ExprError(f"the expression has more than {self.limits.max_operations} parts", at + 1)

    def expected(self, what: str):
        kind, value, at = self.tok
        if kind == "end" and self.lex.opened:
            self.lex.fail("'(' was never closed", self.lex.opened[-1])
        found = {"end": "the end", "newline": "a line break", "num": "a number"}.get(kind, f"'{value}'")
        self.lex.fail(f"expected {what}, found {found}", at)

    def sum(self) -> tuple:
        """sum and product: operands and operators in one loop (no frame per operator)."""
        out, ops = [self.unary()], []
        while True:
            kind, value, at = self.tok
            if kind == "op" and value in _BINARY:
                pass
            elif kind == "op" and value in FORBIDDEN:
                raise ExprError(FORBIDDEN[value], at + 1)
            elif kind == "op" and value in _COMPARE:
                raise ExprError("comparisons are not supported", at + 1)
            elif kind == "name" and value in _OPERATOR_WORDS:
                raise ExprError(_OPERATOR_WORDS[value], at + 1)
            else:
                break
            self.advance()
            self.part(at)
            while ops and _BINARY[ops[-1]] >= _BINARY[value]:
                right, left = out.pop(), out.pop()
                out.append(("bin", ops.pop(), left, right))
            ops.append(value)
            out.append(self.unary())
        while ops:
            right, left = out.pop(), out.pop()
            out.append(("bin", ops.pop(), left, right))
        return out[0]

    def unary(self) -> tuple:
        signs = []
        while self.is_op("+", "-"):
            signs.append(self.tok[1])
            self.part(self.advance()[2])
        node = self.name() if self.tok[0] == "name" else self.primary()  # a frame less for calls
        for sign in reversed(signs):
            if sign == "-":  # a negative literal is input, not work
                node = ("num", node[1], not node[2]) if node[0] == "num" else ("neg", node)
        return node

    def primary(self) -> tuple:
        kind, value, at = self.tok
        if kind == "num":
            self.advance()
            self.part(at)
            return ("num", value, False)
        if kind == "op" and value == "(":
            self.advance()
            node = self.sum()
            if not self.is_op(")"):
                self.expected("an operator or ')'")
            self.advance()
            return node
        if kind == "op" and value == "~":
            raise ExprError("~ is not supported", at + 1)
        if kind == "op" and value in "[]{}":
            raise ExprError(f"'{value}' is not supported: group with ( and )", at + 1)
        self.expected("a number")

    def name(self) -> tuple:
        _, value, at = self.advance()
        if value in _WORDS:
            raise ExprError(_WORDS[value], at + 1)
        if self.is_op("=") and self.calls:
            raise ExprError(f"{self.calls[-1]}() takes no keyword arguments", at + 1)
        if not self.is_op("("):
            raise ExprError(f"unknown name {value!r}", at + 1)
        if value not in FUNCTIONS:
            raise ExprError(f"unknown function {value!r} (allowed: sqrt, gcd)", at + 1)
        self.part(at)
        self.advance()
        self.calls.append(value)
        args = []
        while not self.is_op(")"):
            args.append(self.sum())
            if self.is_op(","):
                self.advance()
            elif not self.is_op(")"):
                self.expected("an operator, ',' or ')'")
        self.advance()
        self.calls.pop()
        want = FUNCTIONS[value]
        if len(args) != want:
            raise ExprError(f"{value}() takes {want} argument{'s' if want > 1 else ''}, got {len(args)}", at + 1)
        return ("call", "sqrt" if value == "isqrt" else value, args)


def parse(text: str, limits: Limits = Limits()) -> tuple:
    """The tree of `text`, or an ExprError saying what is wrong and at which column."""
    if not isinstance(text, str):
        raise InputError("the expression must be a string")
    if len(text) > limits.max_chars:
        raise ExprError(f"the expression has {len(text):,} characters; the limit is {limits.max_chars:,}")
    start, end = 0, len(text)
    while start < end and text[start] in EDGE_SPACE:
        start += 1
    while end > start and text[end - 1] in EDGE_SPACE:
        end -= 1
    if start == end:
        raise ExprError("empty expression")
    if "\x00" in text:
        raise ExprError("the expression contains a NUL character", text.index("\x00") + 1)
    p = _Parser(_Lexer(text, start, end, limits), limits)
    tree = p.sum()
    if p.is_op(")"):
        p.lex.fail("unmatched ')'", p.tok[2])
    if p.tok[0] != "end":
        p.expected("an operator")
    return tree


def caret_lines(text: str, column: int, width: int = 72) -> str:
    """Two lines for a terminal: the text around `column` (1-based) and a caret under it."""
    line = "".join(" " if c in EDGE_SPACE or c < " " else c for c in text)
    start = max(0, min(column - 1 - width // 2, len(line) - width))
    head, tail = ("..." if start else ""), ("..." if start + width < len(line) else "")
    return f"  {head}{line[start : start + width]}{tail}\n  {' ' * (len(head) + column - 1 - start)}^"


def evaluate_python(tree: tuple) -> int:
    """The same tree evaluated with Python's integers (for tests and benchmarks only)."""
    kind = tree[0]
    if kind == "num":
        v = to_int(tree[1])
        return -v if tree[2] else v
    if kind == "neg":
        return -evaluate_python(tree[1])
    if kind == "bin":
        a, b = evaluate_python(tree[2]), evaluate_python(tree[3])
        op = tree[1]
        return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a // b if op == "//" else a % b
    if kind == "call":
        args = [evaluate_python(a) for a in tree[2]]
        return math.isqrt(args[0]) if tree[1] == "sqrt" else math.gcd(*args)
    raise ValueError(kind)
