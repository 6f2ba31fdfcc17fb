"""The Lean generators (derive/leangen/): every generated file of lean/, one job of
`python -m derive` each (lean-table, lean-table-proc, ...; the Lean project never retypes the
specification).

* table       Sketchpad/Table.lean: the reference stepper and the view set V, from
              sketchpad/reference.py and sketchpad/data/views.jsonl (refusing to run if they
              disagree), and the witnesses of the ADD, SUB and MUL views;
* table_proc  Sketchpad/TableProc.lean: witnesses of Compare.lean's and Signed.lean's procedures;
* table_div   Sketchpad/TableDiv.lean: witnesses of division and gcd;
* table_sqrt  Sketchpad/TableSqrt.lean: witnesses of the square root;
* golden      Sketchpad/Golden*.lean: every golden trace of web/golden/ as a theorem;
* corpus      Sketchpad/Corpus.lean: a seeded random corpus solved by the shipped Python, each
              trace a theorem like a golden one (the differential corpus).

They share the Lean printer (leangen.lean_text), the Lean runtime mirrored in Python
(leangen.mirror) and the witness search (leangen.witnesses), re-exported here for the Lean tests
and lean/probes.py.  Lean re-checks every witness and every golden trace with its kernel, so a
wrong mirror makes the Lean check fail rather than prove anything.
"""

from __future__ import annotations

from .leangen import corpus, golden, table, table_div, table_proc, table_sqrt
from .leangen.lean_text import (
    CELL,
    CELL_ORDER,
    OP,
    OP_ORDER,
    cell_q,
    cells_lean,
    lean_ident,
    step_lean,
    view_key,
    view_lean,
)
from .leangen.mirror import (
    drv_canon,
    drv_compare,
    drv_divide,
    drv_eval,
    drv_eval_all,
    drv_gcd_loop,
    drv_increment,
    drv_last_sym,
    drv_mul,
    drv_negate,
    drv_qdigit,
    drv_rdigit,
    drv_row_of,
    drv_rows,
    drv_scan,
    drv_signed_add,
    drv_signed_divmod,
    drv_signed_gcd,
    drv_signed_isqrt,
    drv_signed_mul,
    drv_sqrt,
    drv_value,
    drv_zero_test,
    lean_trace,
    mul_row_trace,
    rows_trace,
)
from .leangen.witnesses import (
    _mul_add,
    _sub_div,
    _sub_ge,
    div_witnesses,
    find_mul_witnesses,
    find_row_witnesses,
    proc_witnesses,
    sqrt_views,
    sqrt_witnesses,
)

OUT, generate = table.OUT, table.generate
PROC_OUT, generate_proc = table_proc.OUT, table_proc.generate_proc
DIV_OUT, generate_div = table_div.OUT, table_div.generate_div
SQRT_OUT, generate_sqrt = table_sqrt.OUT, table_sqrt.generate_sqrt

# (job name, the files it writes: path -> text, the stale files on disk it would remove)
JOBS = [
    ("table", lambda: {OUT: generate()}, lambda made: []),
    ("table_proc", lambda: {PROC_OUT: generate_proc()}, lambda made: []),
    ("table_div", lambda: {DIV_OUT: generate_div()}, lambda made: []),
    ("table_sqrt", lambda: {SQRT_OUT: generate_sqrt()}, lambda made: []),
    ("golden", golden.files, golden.extras),
    ("corpus", corpus.files, lambda made: []),
]
# Every generated Lean file and the function that writes its text (the single-file jobs).
GENERATED = [(OUT, generate), (PROC_OUT, generate_proc), (DIV_OUT, generate_div), (SQRT_OUT, generate_sqrt)]

__all__ = [
    "CELL",
    "CELL_ORDER",
    "GENERATED",
    "JOBS",
    "OP",
    "OP_ORDER",
    "cell_q",
    "cells_lean",
    "div_witnesses",
    "drv_canon",
    "drv_compare",
    "drv_divide",
    "drv_eval",
    "drv_eval_all",
    "drv_gcd_loop",
    "drv_increment",
    "drv_last_sym",
    "drv_mul",
    "drv_negate",
    "drv_qdigit",
    "drv_rdigit",
    "drv_row_of",
    "drv_rows",
    "drv_scan",
    "drv_signed_add",
    "drv_signed_divmod",
    "drv_signed_gcd",
    "drv_signed_isqrt",
    "drv_signed_mul",
    "drv_sqrt",
    "drv_value",
    "drv_zero_test",
    "find_mul_witnesses",
    "find_row_witnesses",
    "lean_ident",
    "lean_trace",
    "mul_row_trace",
    "proc_witnesses",
    "rows_trace",
    "sqrt_views",
    "sqrt_witnesses",
    "step_lean",
    "view_key",
    "view_lean",
    "_mul_add",
    "_sub_div",
    "_sub_ge",
]


def jobs() -> list[tuple[str, object, object]]:
    """(name, files: () -> {path: text}, extras: made -> [stale path]) for each Lean job."""
    return [(f"lean-{name.replace('_', '-')}", make, extras) for name, make, extras in JOBS]
