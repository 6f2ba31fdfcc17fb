"""The SymPy-judged corpus (tests/data/symbolic_corpus.json, recorded from SymPy's own test files
by scripts/symbolic_corpus.py): every factorisation equals SymPy's factor_list up to units and
order and is proven, and every root of solve is checked by exact substitution."""

from __future__ import annotations

import json
import os

import pytest
import sympy

from sketchpad.symbolic import factor, solve

from symbolic_helpers import X, _sympy_text, assert_factors_match

DATA = os.path.join(os.path.dirname(__file__), "data", "symbolic_corpus.json")
CORPUS = json.load(open(DATA))["polynomials"]


def _text(cs: list[str]) -> str:
    n = len(cs) - 1
    return " + ".join(f"({c})*x^{n - k}" for k, c in enumerate(cs) if c != "0")


def _expr(cs: list[str]):
    n = len(cs) - 1
    return sum(int(c) * X ** (n - k) for k, c in enumerate(cs))


def test_corpus_has_the_cases_of_issue_14():
    keys = {tuple(int(c) for c in p["coefficients"]) for p in CORPUS}
    keys |= {tuple(-c for c in k) for k in keys}
    assert 150 <= len(CORPUS) <= 250
    for want in (
        [1] + [0] * 26 + [1],  # x^27 + 1
        [1] + [0] * 26 + [-1],  # x^27 - 1
        [1, 0, 1, 0, 0, 0, -1, 0, 1, 0, -1, 0, 0, 0, 1, 0, 1],  # the two degree-16 cyclotomic tests
        [1, 0, 1, 0, 0, 0, -1, 0, -1, 0, -1, 0, 0, 0, 1, 0, 1],
        [1080, 5184, 2099, 744, 2736, -648, 129, 0, -324],  # big coefficients, two quartics
    ):
        assert tuple(want) in keys, want
    assert any(len(p["coefficients"]) == 26 and len(p["coefficients"][0]) >= 38 for p in CORPUS)


@pytest.mark.parametrize("entry", CORPUS, ids=[f"{i}:{p['source'].split('::')[1]}" for i, p in enumerate(CORPUS)])
def test_corpus_factor_and_solve(entry):
    cs = entry["coefficients"]
    expr = _expr(cs)
    text = _text(cs)
    r = factor(text, "reference")
    assert r.proven, entry["source"]
    assert_factors_match(r, expr)
    s = solve(text, "reference")
    assert [(str(g), m) for g, m in s.unsolved] == [(str(g), m) for g, m in r.factors if g.degree >= 3]
    assert all(u.proven and "proven irreducible" in u.reason for u in s.unsolved)
    found = 0
    for root in s.roots:
        v = sympy.sympify(_sympy_text(root))
        assert sympy.expand(expr.subs(X, v)) == 0, (entry["source"], str(root))
        found += root.multiplicity
    assert found + sum(g.degree * m for g, m in s.unsolved) == len(cs) - 1
