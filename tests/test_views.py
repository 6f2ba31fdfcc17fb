"""The view set V is exact: every witness presents its view, random long runs stay inside V,
the committed export is what the enumeration gives, and the counts match their derivation."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sketchpad import reference_step, solve, views
from sketchpad.symbols import View

V = views.load()
VSET = views.view_set()


def test_count_and_derivation_per_operation():
    # The README derives each figure by hand; here the derivation meets the enumeration.
    D = 10
    derived = {
        "ADD": (D + 1) * (D + 1) * 2,  # a, b in digits+blank; carry in {blank, 1}
        "SUB": (D + 1) * (D + 1) * 2,  # the same, with borrow (a shorter than b in trials)
        "CMP=": (D + 1) ** 2,
        "CMP<": (D + 1) ** 2,
        "CMP>": (D + 1) ** 2,
        "MUL": (D + 1) * sum(max(1, b) for b in range(D)),  # carry into a column is < b
        "ZT": D + 1,
        "INC": D + 1,
        "ADD2": 5,  # ADD2 only meets odd units digits
        "DQ": 9 + 10,  # no borrow: count 0..8; borrow: count 0..9
        "ODD": 1,
        "NEG": 2,
        "ABS": 2,
        "SGN+": 4 + 2 * 3,
        "SGN-": 4 + 2 * 3,  # 4 sign pairs; differing pairs x 3 comparisons
        "SGN*": 4,
        "SGN/": 8,
    }
    assert views.counts_by_op(VSET) == derived
    assert len(VSET) == sum(derived.values()) == 1436


def test_export_is_the_reference_on_every_view():
    for d in V:
        assert d["step"] == reference_step(d["view"])


def test_every_witness_presents_its_view():
    by_witness = {}
    for d in V:
        by_witness.setdefault(d["witness"], []).append(d["view"])
    for expr, vs in by_witness.items():
        presented = solve(expr, "reference", parallel=False).views
        missing = [v for v in vs if v not in presented]
        assert not missing, (expr, missing)


def big(n):
    return st.integers(1, n).flatmap(lambda k: st.integers(0, 10**k)).flatmap(lambda v: st.sampled_from([v, -v]))


@pytest.mark.parametrize("parallel", [True, False])
@given(a=big(400), b=big(400), c=big(40), d=big(40))
def test_random_long_runs_present_only_views_in_V(parallel, a, b, c, d):
    exprs = [f"{a} + {b}", f"{a} - {b}", f"{c} * {d}", f"gcd({c}, {d})", f"sqrt({abs(a)})", f"-({c} - {d})"]
    if d:
        exprs.append(f"{a} // {d}")
    for e in exprs:
        outside = solve(e, "reference", parallel=parallel).views - VSET
        assert not outside, (e, outside)


def test_cli_export_round_trips(tmp_path):
    from sketchpad.cli import main

    out = tmp_path / "v.jsonl"
    assert main(["views", "--export", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 1436
    first = json.loads(lines[0])
    assert set(first) == {"view", "step", "witness"}
    assert View(*first["view"]) in VSET
