"""Record the symbolic test corpus (tests/data/symbolic_corpus.json) from SymPy's own tests.

    python scripts/symbolic_corpus.py            # rewrites tests/data/symbolic_corpus.json

Sources (the installed SymPy's test files, named in every entry):
    sympy/polys/tests/test_factortools.py, sympy/polys/tests/test_polytools.py,
    sympy/polys/tests/test_polyroots.py

Every expression in those files (right-hand sides of assignments and call arguments) is
evaluated with x a SymPy symbol (and the other names the tests use bound to SymPy objects);
what evaluates to a univariate polynomial in x with integer coefficients, degree 1..30 and
coefficients of at most 40 digits is recorded as data: its dense coefficient list (highest
first, as decimal strings), the file, the test function and the line.  Duplicates (up to sign)
are kept once.  Nothing is copied as code; SymPy stays the judge at test time.
"""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import sys

import sympy
from sympy.polys.rings import PolyElement

FILES = ["test_factortools.py", "test_polytools.py", "test_polyroots.py"]
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "symbolic_corpus.json")
MAX_DEGREE, MAX_DIGITS = 30, 40


def candidates(path: str):
    tree = ast.parse(open(path).read())
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            exprs = []
            if isinstance(node, ast.Assign):
                exprs.append(node.value)
            elif isinstance(node, ast.Call):
                exprs += list(node.args)
            for e in exprs:
                yield fn.name, e.lineno, ast.unparse(e)


class _Slow(Exception):
    pass


def _alarm(signum, frame):
    raise _Slow()


def evaluate(src: str):
    """The coefficient list, or None (not a fitting polynomial, an error, or over a second)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(1)
    try:
        return _evaluate(src)
    except _Slow:
        return None
    finally:
        signal.alarm(0)


def _evaluate(src: str):
    x = sympy.Symbol("x")
    env = {"x": x, "X": x, "I": sympy.I, "sqrt": sympy.sqrt, "Rational": sympy.Rational, "S": sympy.S}
    try:
        v = eval(compile(src, "<corpus>", "eval"), {"__builtins__": {}}, env)  # noqa: S307
        if isinstance(v, PolyElement):
            v = v.as_expr()
        v = sympy.sympify(v)
        if v.free_symbols != {x}:
            return None
        p = sympy.Poly(sympy.expand(v), x)
        if p.get_domain() != sympy.ZZ or not (1 <= p.degree() <= MAX_DEGREE):
            return None
        cs = [int(c) for c in p.all_coeffs()]
        if max(len(str(abs(c))) for c in cs) > MAX_DIGITS:
            return None
        return cs
    except Exception:
        return None


def main() -> int:
    base = os.path.join(os.path.dirname(sympy.__file__), "polys", "tests")
    seen, out = set(), []
    for name in FILES:
        for fn, line, src in candidates(os.path.join(base, name)):
            if len(src) > 2000 or re.search(r"\*\*\s*\(?\s*\d{3,}", src):
                continue  # long or huge powers: not a polynomial for this corpus
            cs = evaluate(src)
            if cs is None:
                continue
            key = tuple(cs) if cs[0] > 0 else tuple(-c for c in cs)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                {
                    "source": f"sympy/polys/tests/{name}::{fn} line {line}",
                    "coefficients": [str(c) for c in cs],
                }
            )
    data = {
        "about": "univariate integer polynomials from SymPy's test files (sympy " + sympy.__version__ + "), "
        "recorded by scripts/symbolic_corpus.py; coefficients highest degree first",
        "polynomials": out,
    }
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"{len(out)} polynomials -> {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
