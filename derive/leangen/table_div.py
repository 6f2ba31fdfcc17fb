"""Job: lean/Sketchpad/TableDiv.lean, the witnesses of division and gcd (issue 11, lean2b)."""

from __future__ import annotations

from . import LEAN
from .lean_text import _cells, _snum_lean, witness_header, witness_list
from .witnesses import div_witnesses

OUT = LEAN / "Sketchpad" / "TableDiv.lean"


def generate_div() -> str:
    """The text of Sketchpad/TableDiv.lean: witnesses of the views of division and gcd."""
    W = div_witnesses()
    L = witness_header("lean2b", "generate_div")

    def emit(name: str, doc: str, typ: str, fmt) -> None:
        wanted, wit = W[name]
        L.extend(witness_list(name, doc, typ, wanted, lambda v: fmt(wit[v])))

    two = lambda i: f"{_cells(i[0])}, {_cells(i[1])}"  # noqa: E731
    pair = lambda i: f"{_snum_lean(i[0])}, {_snum_lean(i[1])}"  # noqa: E731
    emit(
        "DIV",
        "For every view of `V_DIV` (the `SUB` views of `subDiv`, then `V_DQ`), a digit row and a divisor "
        "(top digit not 0) whose long division `divP` presents it.",
        "List Cell × List Cell",
        two,
    )
    emit(
        "SDIV",
        "For every `ZT`, `SGN/` and `INC` view and the `SUB` view `(9, _, _)`, two signed numbers whose "
        "`divmodP` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    emit(
        "GCD",
        "For every `ABS` and `ZT` view, two signed numbers whose `gcdP` run presents it.",
        "SNumL × SNumL",
        pair,
    )
    L.append("end Sketchpad")
    L.append("")
    return "\n".join(L).replace("SNumL", "(Cell × List Cell)")
