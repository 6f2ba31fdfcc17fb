"""The expression language: integers, + - * // %, unary minus, parentheses, sqrt(n), gcd(a, b).

Parsed with Python's `ast` under an allow-list (never `eval`).  Integer literals are cut out
before parsing, so operands of any length pass through as digit strings and Python's own
4,300-digit conversion limit never applies.  Every rejection is an InputError with a message
that names the problem.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .errors import InputError

FUNCTIONS = {"sqrt": 1, "isqrt": 1, "gcd": 2}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
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
_FORBIDDEN_OPS = {
    ast.Div: FORBIDDEN["/"],
    ast.Pow: FORBIDDEN["**"],
    ast.MatMult: FORBIDDEN["@"],
    ast.LShift: FORBIDDEN["<<"],
    ast.RShift: FORBIDDEN[">>"],
    ast.BitAnd: FORBIDDEN["&"],
    ast.BitOr: FORBIDDEN["|"],
    ast.BitXor: FORBIDDEN["^"],
}
_TOKEN = re.compile(r"(?<![A-Za-z_0-9])(?:[0-9][0-9A-Za-z_.]*|\.[0-9][0-9A-Za-z_.]*)")
_LITERAL = "_sketchpad_literal_"


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


def parse(text: str, limits: Limits = Limits()) -> tuple:
    if not isinstance(text, str):
        raise InputError("the expression must be a string")
    literals: list[str] = []
    cuts: list[tuple[int, int, int]] = []  # (start in stripped text, length there, length typed)
    grown = [0]

    def cut(m: re.Match) -> str:
        tok = m.group(0)
        if not tok.isdigit() or not tok.isascii():
            kind = "a decimal integer" if tok[:2] not in ("0x", "0b", "0o") else "a decimal integer (no 0x/0b/0o)"
            if "." in tok or "e" in tok.lower():
                raise InputError(f"not an integer: {tok[:40]!r} (only whole numbers are allowed)")
            raise InputError(f"not {kind}: {tok[:40]!r}")
        if len(tok) > limits.max_digits:
            raise InputError(f"a number has {len(tok):,} digits; the limit is {limits.max_digits:,}")
        literals.append(tok)
        name = f"{_LITERAL}{len(literals) - 1}"
        cuts.append((m.start() + grown[0], len(name), len(tok)))
        grown[0] += len(name) - len(tok)  # how much longer the stripped text has become
        return name

    def typed_column(pos: int) -> int:
        """A 0-based position in the stripped text -> the same place in the text as typed."""
        shift = 0
        for start, n_here, n_typed in cuts:
            if pos < start + n_here:
                return pos - shift if pos < start else start - shift
            shift += n_here - n_typed
        return pos - shift

    def typed(msg: str) -> str:
        """Messages show numbers as typed, never the placeholder names."""
        return re.sub(rf"{_LITERAL}(\d+)", lambda m: literals[int(m.group(1))], msg)

    stripped = _TOKEN.sub(cut, text)
    if len(text) > limits.max_chars:
        raise InputError(f"the expression has {len(text):,} characters; the limit is {limits.max_chars:,}")
    if not stripped.strip():
        raise InputError("empty expression")
    if "\x00" in stripped:
        raise InputError("the expression contains a NUL character")
    lead = len(stripped) - len(stripped.lstrip())
    try:
        tree = ast.parse(stripped.strip(), mode="eval")
    except SyntaxError as e:
        col = ""
        if e.offset and e.lineno:
            lines = stripped.strip().split("\n")
            pos = lead + sum(len(x) + 1 for x in lines[: e.lineno - 1]) + e.offset - 1
            col = f" at column {typed_column(pos) + 1}"
        raise InputError(typed(f"syntax error{col}: {e.msg}")) from None
    except (RecursionError, MemoryError):
        raise InputError("the expression is nested too deeply") from None
    count = [0]

    def walk(node) -> tuple:
        count[0] += 1
        if count[0] > limits.max_operations:
            raise InputError(f"the expression has more than {limits.max_operations} parts")
        if isinstance(node, ast.Name):
            if node.id.startswith(_LITERAL):
                return ("num", literals[int(node.id[len(_LITERAL) :])].lstrip("0") or "0", False)
            raise InputError(f"unknown name {node.id!r}")
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.UAdd):
                return walk(node.operand)
            if isinstance(node.op, ast.USub):
                inner = walk(node.operand)
                if inner[0] == "num":  # a negative literal is input, not work
                    return ("num", inner[1], not inner[2])
                return ("neg", inner)
            raise InputError(f"{'not' if isinstance(node.op, ast.Not) else '~'} is not supported")
        if isinstance(node, ast.BinOp):
            op = type(node.op)
            if op in _FORBIDDEN_OPS:
                raise InputError(_FORBIDDEN_OPS[op])
            return ("bin", _BINOPS[op], walk(node.left), walk(node.right))
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
                raise InputError(f"unknown function {name!r} (allowed: sqrt, gcd)")
            if node.keywords:
                raise InputError(f"{node.func.id}() takes no keyword arguments")
            want = FUNCTIONS[node.func.id]
            if len(node.args) != want:
                raise InputError(
                    f"{node.func.id}() takes {want} argument{'s' if want > 1 else ''}, got {len(node.args)}"
                )
            if any(isinstance(a, ast.Starred) for a in node.args):
                raise InputError("argument unpacking is not supported")
            name = "sqrt" if node.func.id == "isqrt" else node.func.id
            return ("call", name, [walk(a) for a in node.args])
        if isinstance(node, ast.Constant):
            raise InputError(f"not an integer: {node.value!r}")
        if isinstance(node, ast.Compare):
            raise InputError("comparisons are not supported")
        if isinstance(node, (ast.BoolOp,)):
            raise InputError("'and'/'or' are not supported")
        raise InputError(f"{type(node).__name__.lower()} expressions are not supported")

    try:
        return walk(tree.body)
    except InputError as e:
        raise InputError(typed(str(e))) from None


def evaluate_python(tree: tuple) -> int:
    """The same tree evaluated with Python's integers (for tests and benchmarks only)."""
    import math

    from .digits import to_int

    kind = tree[0]
    if kind == "num":
        v = to_int(tree[1])
        return -v if tree[2] else v
    if kind == "neg":
        return -evaluate_python(tree[1])
    if kind == "bin":
        a, b = evaluate_python(tree[2]), evaluate_python(tree[3])
        return (
            {"+": a + b, "-": a - b, "*": a * b}.get(tree[1])
            if tree[1] in "+-*"
            else (a // b if tree[1] == "//" else a % b)
        )
    if kind == "call":
        args = [evaluate_python(a) for a in tree[2]]
        return math.isqrt(args[0]) if tree[1] == "sqrt" else math.gcd(*args)
    raise ValueError(kind)
