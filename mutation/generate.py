"""Mutants generated from a source file, for the full run (mutation/harness.py --full).

Every comparison, arithmetic and boolean operator token, and every True/False/None and small
integer constant, is replaced by its usual mutation, one token per mutant (the classic
operator set of mutmut and cosmic-ray).  A mutant is the line it changes: the original line
(unique in the file, or it is left out) and the line with that token replaced.
"""

from __future__ import annotations

import io
import re
import tokenize
import warnings
from pathlib import Path

ANNOTATION = re.compile(r"^\s*\w+: [^=]*(#.*)?$|^\s*\w+: .*=")
SWAPS = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "+": "-",
    "-": "+",
    "*": "/",
    "//": "/",
    "%": "//",
    "and": "or",
    "or": "and",
    "not": "",
    "is": "is not",
    "in": "not in",
    "True": "False",
    "False": "True",
    "None": "0",
    "0": "1",
    "1": "2",
    "2": "3",
}


def mutants(path: Path, root: Path, tests: list) -> list[dict]:
    """[{name, guard, file, original, replacement, tests}] for every mutable token of `path`."""
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    rel = path.resolve().relative_to(root).as_posix()
    out, docstring_rows = [], set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING:
            docstring_rows.update(range(tok.start[0], tok.end[0] + 1))
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        new = SWAPS.get(tok.string)
        kind_ok = tok.type == tokenize.OP or (tok.type in (tokenize.NAME, tokenize.NUMBER) and tok.string in SWAPS)
        if new is None or not kind_ok or tok.start[0] != tok.end[0]:
            continue
        row, col = tok.start
        line = lines[row - 1]
        if line.lstrip().startswith(("import", "from", "def ", "class ", "@")) or text.count(line) != 1:
            continue
        if ANNOTATION.match(line) or "->" in line:
            continue  # a type annotation (with `from __future__ import annotations`: never evaluated)
        if tok.string == "-" and line[:col].rstrip().endswith(("(", "[", ",", "=", "return")):
            continue  # a sign, not a subtraction
        if tok.string in ("in", "is") and line[col + len(tok.string) :].startswith(" not"):
            continue
        if tok.string == "*" and line[:col].rstrip().endswith(("(", ",")):
            continue  # an unpacking star
        mutated = line[:col] + new + line[col + len(tok.string) :]
        try:  # a mutant must be Python (`for x not in y` is not)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(text.replace(line, mutated, 1), rel, "exec", dont_inherit=True)
        except SyntaxError:
            continue
        if row in docstring_rows and tok.type != tokenize.OP:
            continue
        out.append(
            {
                "name": f"{rel}:{row}:{col + 1} {tok.string!r} -> {new!r}",
                "guard": "generated",
                "file": rel,
                "original": line,
                "replacement": mutated,
                "tests": list(tests),
            }
        )
    return out
