"""The expression grammar: Python's own evaluation is the key for what an expression means, the
JavaScript parser must say exactly what the Python parser says (tree, or message and column),
and the command line takes a leading '-' and points at the column of a syntax error."""

from __future__ import annotations

import doctest
import inspect
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive import expr_vectors
from sketchpad.cli import main
from sketchpad.expr import EDGE_SPACE, MAX_NESTING, ExprError, caret_lines, evaluate_python, parse

ROOT = Path(__file__).resolve().parents[1]
node_missing = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

SPACE = st.sampled_from(["", "", " ", "  ", "\t", "\f"])
SPACE_IN_PARENS = st.sampled_from(["", " ", "\n", "\r\n ", " # a comment\n", "\\\n"])


@st.composite
def expressions(draw, depth=0):
    """(text for sketchpad, the same for Python's eval): well-formed, any mix of the grammar."""
    kinds = ["num", "num", "bin", "bin", "sign", "paren", "call"] if depth < 4 else ["num"]
    kind = draw(st.sampled_from(kinds))
    if kind == "num":
        n = draw(st.integers(0, 10**25))
        return draw(st.sampled_from(["", "0", "00"])) + str(n), str(n)  # eval refuses leading zeros
    if kind == "bin":
        (a, pa), (b, pb) = draw(expressions(depth + 1)), draw(expressions(depth + 1))
        op, s1, s2 = draw(st.sampled_from(["+", "-", "*", "//", "%"])), draw(SPACE), draw(SPACE)
        return f"{a}{s1}{op}{s2}{b}", f"{pa} {op} {pb}"
    if kind == "sign":
        (a, pa), sign = draw(expressions(depth + 1)), draw(st.sampled_from(["-", "+"]))
        return f"{sign}{draw(SPACE)}{a}", f"{sign}{pa}"
    if kind == "paren":
        a, pa = draw(expressions(depth + 1))
        return f"({draw(SPACE_IN_PARENS)}{a}{draw(SPACE_IN_PARENS)})", f"({pa})"
    name = draw(st.sampled_from(["sqrt", "isqrt", "gcd"]))
    args = [draw(expressions(depth + 1)) for _ in range(2 if name == "gcd" else 1)]
    comma = draw(st.sampled_from([",", ", ", f",{draw(SPACE_IN_PARENS)}"]))
    trailing = draw(st.sampled_from(["", ","]))
    text = f"{name}{draw(SPACE)}({comma.join(a for a, _ in args)}{trailing})"
    return text, f"{name}({', '.join(p for _, p in args)})"


def _python_value(text: str):
    """Python's own evaluation of the restricted string, or the kind of exception it raises."""
    try:
        return eval(text, {"__builtins__": {}, "sqrt": math.isqrt, "isqrt": math.isqrt, "gcd": math.gcd})
    except (ZeroDivisionError, ValueError) as e:
        return type(e)


def _our_value(text: str):
    try:
        return evaluate_python(parse(text))
    except (ZeroDivisionError, ValueError) as e:
        return type(e)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions())
def test_well_formed_expressions_mean_what_python_says(pair):
    text, python_text = pair
    assert _our_value(text) == _python_value(python_text), (text, python_text)


ODD = list("0123456789+-*/%()[]{},.;:=<>!~&|^@#\\'\"xeE_ \t\n\r\f\v") + [
    "\xa0",
    "\u200b",
    "\u3000",
    "\uff11",
    "\u0663",
    "\U0001f600",
    "\x00",
    "\ud800",
    "sqrt",
    "gcd",
    "not",
    "and",
    "NaN",
    "**",
    "//",
]


@st.composite
def mutations(draw):
    """A well-formed expression with one to three edits: a character inserted, deleted or replaced."""
    text = draw(expressions())[0]
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(ODD))
        if edit == "insert":
            text = text[:at] + piece + text[at:]
        elif edit == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    return text


@pytest.fixture(scope="module")
def javascript():
    """web/expr.js behind a pipe: one expression in, its vector out."""
    proc = subprocess.Popen(
        ["node", str(ROOT / "web" / "tests" / "expr-oracle.mjs")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )

    def ask(text: str) -> dict:
        proc.stdin.write(json.dumps(text) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    yield ask
    proc.stdin.close()
    proc.wait(timeout=60)


@node_missing
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutations(), expressions().map(lambda p: p[0])))
def test_javascript_says_what_python_says_about_any_mutation(javascript, text):
    assert javascript(text) == expr_vectors.vector(text)


@node_missing
def test_javascript_agrees_on_huge_inputs(javascript):
    for text in [
        "(" * 100_000 + "1",
        "-" * 199_999 + "1",
        "1+" * 99_999 + "1",
        "1" + " " * 199_000 + "+ 2",
        "# " + "x" * 199_000 + "\n1",
        "9" * 20 + "\u3000" * 150_000,
    ]:
        assert javascript(text) == expr_vectors.vector(text), text[:20]


def test_edge_space_is_every_character_python_strips():
    assert EDGE_SPACE == "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())


def test_huge_inputs_are_refused_or_parsed_without_recursion():
    assert parse("9" * 20_000) == ("num", "9" * 20_000, False)
    assert parse("1" + " " * 199_000 + "+ 2")[0] == "bin"
    for text, message in [
        ("(" * 199_999 + "1", "too many nested parentheses"),
        ("-" * 199_999 + "1", "more than 500 parts"),
        ("1+" * 99_999 + "1", "more than 500 parts"),
        ("sqrt(" * 1000 + "1" + ")" * 1000, "too many nested parentheses"),
    ]:
        with pytest.raises(ExprError, match=message):
            parse(text)


def test_the_deepest_nesting_needs_three_frames_a_parenthesis():
    """600 Python frames at the deepest nesting: within the default limit of 1,000 with room."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 3 * MAX_NESTING + 30)
    try:
        assert parse("(" * (MAX_NESTING - 1) + "-(1)" + ")" * (MAX_NESTING - 1)) == ("num", "1", True)
        assert parse("sqrt(" * MAX_NESTING + "1" + ")" * MAX_NESTING)[0] == "call"
    finally:
        sys.setrecursionlimit(limit)


def test_the_caret_points_at_the_column():
    assert caret_lines("12345678 +", 11) == "  12345678 +\n            ^"
    long = "1 + " * 50 + "("
    lines = caret_lines(long, len(long), width=20).split("\n")
    assert lines[0].startswith("  ...") and lines[1].index("^") == lines[0].index("(")


LEADING_MINUS = [("-7//2", "-4"), ("-sqrt(16)", "-4"), ("-(3+4)*2", "-14"), ("-gcd(4,6)", "-2")]


@pytest.mark.parametrize("expr,answer", LEADING_MINUS)
def test_solve_takes_an_expression_that_starts_with_minus(expr, answer, capsys):
    assert main(["solve", expr, "--stepper", "reference"]) == 0
    assert capsys.readouterr().out.strip() == answer
    assert main(["solve", "--stepper", "reference", "--", expr]) == 0
    assert capsys.readouterr().out.strip() == answer


def test_solve_options_are_still_options(capsys):
    assert main(["solve", "-7//2", "--stepper", "reference", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "-4"
    with pytest.raises(SystemExit) as e:
        main(["solve", "1", "--stepper", "reference", "--jsn"])
    assert e.value.code == 2 and "unrecognized arguments: --jsn" in capsys.readouterr().err


def test_solve_points_at_the_column_of_a_syntax_error():
    r = subprocess.run(
        [sys.executable, "-m", "sketchpad", "solve", "--stepper", "reference", "12345678 +"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "  12345678 +",
        "            ^",
        "sketchpad: error: syntax error at column 11: expected a number, found the end",
    ]


def test_the_docs_page_examples_run():
    """docs/expressions.md: its doctests pass (tests/test_readme.py runs its console example)."""
    text = (ROOT / "docs" / "expressions.md").read_text()
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        test = doctest.DocTestParser().get_doctest(block, {}, "docs/expressions.md", None, 0)
        result = doctest.DocTestRunner().run(test)
        assert result.failed == 0 and result.attempted >= 6
