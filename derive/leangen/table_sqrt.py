"""Job: lean/Sketchpad/TableSqrt.lean, the witnesses of the square root (issue 11, lean2b)."""

from __future__ import annotations

from . import LEAN
from .lean_text import _snum_lean, witness_header, witness_list
from .witnesses import sqrt_witnesses

OUT = LEAN / "Sketchpad" / "TableSqrt.lean"


def generate_sqrt() -> str:
    """The text of Sketchpad/TableSqrt.lean: witnesses of the square root's views."""
    wanted, wit = sqrt_witnesses()["SQRT"]
    doc = "For every view of `V_SQRT`, a signed number (`+`, or `-0`) whose `isqrtP` run presents it."
    L = witness_header("lean2b", "generate_sqrt")
    L += witness_list("SQRT", doc, "(Cell × List Cell)", wanted, lambda v: _snum_lean(wit[v][0]))
    L += ["end Sketchpad", ""]
    return "\n".join(L)
