"""Job: lean/Sketchpad/TableProc.lean, the witnesses of Compare.lean's and Signed.lean's
procedures (issue 11, lean2a): for every view, an input whose run presents it."""

from __future__ import annotations

from . import LEAN
from .lean_text import _cells, _snum_lean, witness_header, witness_list
from .witnesses import proc_witnesses

OUT = LEAN / "Sketchpad" / "TableProc.lean"


def generate_proc() -> str:
    W = proc_witnesses()
    L = witness_header("lean2a", "generate_proc")

    def emit(name: str, doc: str, typ: str, fmt) -> None:
        wanted, wit = W[name]
        L.extend(witness_list(name, doc, typ, wanted, lambda v: fmt(wit[v])))

    two = lambda i: f"{_cells(i[0])}, {_cells(i[1])}"  # noqa: E731
    one = lambda i: _cells(i[0])  # noqa: E731
    emit(
        "CMP",
        "For every comparison view (`V_CMPEQ ++ V_CMPLT ++ V_CMPGT`), two digit rows whose `compareP` run presents it.",
        "List Cell × List Cell",
        two,
    )
    emit("ZT", "For every `ZT` view, a digit row whose `zeroP` run presents it.", "List Cell", one)
    emit("INC", "For every `INC` view, a digit row whose `incP .INC` run presents it.", "List Cell", one)
    emit(
        "ADD2P",
        "For every view of `V_ADD2 ++ V_INC`, a digit row with an odd units digit whose `incP .ADD2` run presents it.",
        "List Cell",
        one,
    )
    emit(
        "SUBGE",
        "For every `SUB` view of `subGE`, digit rows `xs`, `ys` with `ys ≤ xs` whose subtraction presents it.",
        "List Cell × List Cell",
        two,
    )
    pair = lambda i: f"{_snum_lean(i[0])}, {_snum_lean(i[1])}"  # noqa: E731
    emit(
        "SGNADD",
        "For every `SGN+` view, two signed numbers whose `sgnAddP .SGNADD` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    emit(
        "SGNSUB",
        "For every `SGN-` view, two signed numbers whose `sgnAddP .SGNSUB` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    emit("SGNMUL", "For every `SGN*` view, two signed numbers whose `sgnMulP` run presents it.", "SNumL × SNumL", pair)
    emit(
        "NEG",
        "For every `NEG` view, a signed number whose `negP` run presents it.",
        "SNumL",
        lambda i: _snum_lean(i[0]),
    )
    emit(
        "MULADD",
        "For every `ADD` view of `mulAddOK`, digit rows whose long multiplication (`mulP`, Python's order) "
        "presents it.",
        "List Cell × List Cell",
        two,
    )
    L.append("end Sketchpad")
    L.append("")
    text = "\n".join(L)
    return text.replace("SNumL", "(Cell × List Cell)")
