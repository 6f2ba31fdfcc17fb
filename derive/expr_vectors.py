"""Shared vectors of the expression language: inputs -> tree, or error message and column
(and the caret lines the CLI and the page draw under it).

Generated from the Python parser (sketchpad/expr.py), the one source of truth; the JavaScript
parser (web/expr.js) must give the same for every input (web/tests/expr.test.mjs), and
tests/test_derived.py checks the committed file is not stale.

    python -m derive expr-vectors            # writes web/golden/expr-vectors.json
    python -m derive --check expr-vectors    # exit 1 if the committed file is stale

Every case runs under `max_digits=20` (so the digit limit is reached with short numbers).
"""

from __future__ import annotations

import json
from pathlib import Path

from sketchpad.expr import ExprError, Limits, caret_lines, parse
from sketchpad.web import ROOT as WEB_ROOT

OUT = WEB_ROOT / "golden" / "expr-vectors.json"
MAX_DIGITS = 20

# Accepted spellings: the same tree in both parsers.
ACCEPTED = [
    "1 + 2",
    "007 * -0",
    "-(-5)",
    "--5",
    "+-3",
    "-(1 + 2)",
    "2*-3",
    "- 2 * 3",
    "1 - 2 - 3",
    "8 // 4 // 2",
    "1 + 2 * 3 % 4",
    "(1 + 2) * 3",
    "gcd(1, 2,)",
    "sqrt (4)",
    "isqrt(9)",
    "gcd(-8, 12) // sqrt(16) % 3",
    "(1 +\n 2)",
    "1 # a comment",
    "1 +\\\n 2",
    "\t 12 ",
    "-(-(-(7)))",
    "+(+(+7))",
    "-sqrt(4)",
    "-gcd(4, 6) * -(2)",
    "0" * 18 + "12",
    "-7//2",
    "-7 // 2",
    "-(7) % -2 - -1",
    "12345678 + 1",
    "1 * 2 + 3 * 4 - 5 // 6 % 7",
    "\xa0 1 + 2 \u3000",
    "\n1\n",
    "# a comment first\n1",
    "1 # a comment\n# and another",
    "(1 # inside\n + 2)",
    "(1\r\n+2)",
    "1 +\\\r\n 2",
    "\f1\f+\f2",
    "gcd(gcd(1, 2), sqrt(gcd(3, 4)))",
    "(" * 200 + "1" + ")" * 200,
    "-" * 499 + "1",
    "1" + " + 1" * 249,
    "9" * MAX_DIGITS,
]
# Refusals: the same message and column in both parsers.
REFUSED = [
    "",
    "   ",
    "\u3000\n",
    "1 +",
    "12345678 +",
    "-",
    "(",
    ")",
    "()",
    "(1",
    "1)",
    "(1 + 2",
    "1 + 2)",
    "(1 + 2))",
    "1 2",
    "1 +* 2",
    "gcd(1 2)",
    "gcd(1,",
    "gcd(,)",
    "sqrt()",
    "sqrt(4",
    "1 +\n 2",
    "1\n2",
    "1\n# comment\n2",
    "1 \\ 2",
    "1 $ 2",
    "1 ? 2",
    "1.5",
    "1e5",
    "0x10",
    "1_000",
    "2x",
    ".5",
    "1 + 2.",
    "NaN",
    "nan + 1",
    "1 + inf",
    "\uff11\uff12 + 1",
    "\u0663 + 1",
    "1\u0663",
    "\u200b1",
    "1\xa0+ 2",
    "1 +\v 2",
    "1 + \U0001f600",
    "\ud800",
    "1 / 2",
    "2 ** 3",
    "1 @ 2",
    "1 << 2",
    "1 >> 2",
    "1 & 2",
    "1 | 2",
    "1 ^ 2",
    "~1",
    "not 1",
    "1 < 2",
    "1 == 1",
    "1 >= 2",
    "1 and 2",
    "1 or 2",
    "1 is 2",
    "1 not in 2",
    "1 if 2 else 3",
    "x",
    "x + 1",
    "sqrt",
    "sqrt + 1",
    "f(1)",
    "pow(2, 3)",
    "__import__('os')",
    "os.system('ls')",
    "a.b",
    "sqrt(1, 2)",
    "gcd(1)",
    "gcd(1, 2, 3)",
    "sqrt(x=4)",
    "gcd(a=4, b=2)",
    "gcd(*[1, 2])",
    "x = 1",
    "1 = 2",
    "1; 2",
    "[1]",
    "{1}",
    "a[1]",
    "(1, 2)",
    "(1)(2)",
    "sqrt(4)(5)",
    "'a'",
    "'12' + 3",
    '"unterminated',
    "lambda: 1",
    "None",
    "True + 1",
    "...",
    "1 + \x00",
    "(" * 201 + "1" + ")" * 201,
    "-(" * 201 + "1" + ")" * 201,
    "-" * 500 + "1",
    "1" + " + 1" * 250,
    "1" * 25 + " + 1",
    "9" * (MAX_DIGITS + 1),
]


def vector(expr: str) -> dict:
    """What the Python parser says about `expr`: its tree, or its error and column."""
    try:
        tree = parse(expr, Limits(max_digits=MAX_DIGITS))
    except ExprError as e:
        if e.column is None:
            return {"expr": expr, "error": str(e), "column": None}
        return {"expr": expr, "error": str(e), "column": e.column, "caret": caret_lines(expr, e.column)}
    return {"expr": expr, "tree": _lists(tree)}


def _lists(t):
    return [_lists(x) if isinstance(x, (tuple, list)) else x for x in t]


def generate() -> str:
    for e in ACCEPTED:
        if "tree" not in vector(e):
            raise AssertionError(f"{e[:40]!r} should be accepted: {vector(e)['error']}")
    for e in REFUSED:
        if "error" not in vector(e):
            raise AssertionError(f"{e[:40]!r} should be refused")
    items = [vector(e) for e in ACCEPTED + REFUSED]
    return "[\n" + ",\n".join(json.dumps(x, separators=(",", ":")) for x in items) + "\n]\n"


def files() -> dict[Path, str]:
    return {OUT: generate()}
