"""The golden traces (web/golden/, derive/golden.py) say what they must; their freshness is
tests/test_derived.py's."""

from __future__ import annotations

import json

from derive import golden
from sketchpad.procedures import Num  # noqa: F401  (the core imports cleanly)
from sketchpad.views import view_set


def test_golden_traces_cover_every_procedure_both_modes_and_only_views_of_V():
    fresh = golden.generate()
    traces = [json.loads(t) for name, t in fresh.items() if name.startswith("trace-")]
    assert {t["mode"] for t in traces} == {"parallel", "sequential"}
    ops = {k.split(" ")[0] for t in traces for b in t["batches"] for k in b["views"]}
    assert ops >= {
        "ADD",
        "SUB",
        "CMP=",
        "CMP<",
        "CMP>",
        "MUL",
        "ZT",
        "INC",
        "ADD2",
        "DQ",
        "ODD",
        "NEG",
        "ABS",
        "SGN+",
        "SGN-",
        "SGN*",
        "SGN/",
    }
    V = {v.key() for v in view_set()}
    used = {k for t in traces for b in t["batches"] for k in b["views"]}
    assert used <= V
    assert any("error" in t for t in traces) and any(t["expr"].startswith("9" * 1000) for t in traces)
    assert sum(len(t) for t in fresh.values()) < 4_000_000  # kept small enough to commit


def test_a_trace_records_what_the_runtime_did():
    t = golden.trace("-25 + 9", parallel=False)
    assert t["result"] == "-16"
    assert t["counters"]["batches"] == len(t["batches"])
    assert t["counters"]["forward_passes"] == sum(len(b["views"]) for b in t["batches"])
    assert t["batches"][0]["views"] == ["SGN+ -+_"] and t["batches"][0]["steps"] == ["__ CMP"]
    last = t["worksheet"][0]["rows"][-1]
    assert (last["name"], last["text"], last["origins"]) == ("|a|-|b|", "16", "ss")
    assert t["worksheet"][0]["rows"][2]["sign"] == "-"  # the result sign, written by a step
    assert golden.trace("1 // 0")["error"] == "division by zero"
