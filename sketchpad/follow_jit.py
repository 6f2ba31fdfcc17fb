"""Following a batch's carry-select scans as one compiled loop (numba), for long batches.

chains.py follows many rows with numpy passes (each pass cheap, but a level of a product's sum
takes some twenty of them over every column).  Here each scan's chain is walked column by
column, exactly as `chains._walk` does, in machine code: one pass that reads each column's kind,
looks up the step the stepper gave that (kind, state) and moves on.  It decides nothing about
symbols: it copies stepper output rows and the tables' flags (tests/test_chains.py holds it
equal to the numpy ways).  carry_select.py loads this module on the first long batch (numba's
import and the cached machine code cost some 0.3 s once a process; short batches never pay).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_SIGNATURE = (
    "void(int32[::1], int64[::1], int64[::1], int64[::1], int16[::1], int32[::1], boolean[::1], boolean[::1],"
    " int8[:, ::1], int32[:, ::1], boolean[:, ::1], boolean[:, ::1],"
    " int32[:, ::1], boolean[:, ::1], boolean[:, ::1], int64[::1], int16[::1])"
)


@njit(_SIGNATURE, cache=True, nogil=True)
def follow_scans(
    kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag,
    classes, rows, has_sym, has_flag,
    followed, sym_mask, flag_mask, last, term,
):  # fmt: skip
    """Scan u has widths[u] columns; column j >= 1 has kind kinds[kstart[u] + j - 1] + koff[u]
    (a row of the tables); column 0 is presented under its real state only (first_*).  For each
    followed column j of scan u: followed[u, j] the stepper output row of its step, sym_mask and
    flag_mask whether that step has a symbol / a flag.  last[u] the last followed column,
    term[u] the class read there (>= 0: the scan ran out of columns).  Unfollowed slots of the
    outputs are left as they were (zero / False)."""
    for u in range(widths.shape[0]):
        k0, w, off = kstart[u] - 1, widths[u], koff[u]
        followed[u, 0] = first_rows[u]
        sym_mask[u, 0] = first_sym[u]
        flag_mask[u, 0] = first_flag[u]
        cur = first_cls[u]
        j = 0
        while cur >= 0 and j + 1 < w:
            j += 1
            k = kinds[k0 + j] + off
            followed[u, j] = rows[k, cur]
            sym_mask[u, j] = has_sym[k, cur]
            flag_mask[u, j] = has_flag[k, cur]
            cur = classes[k, cur]
        last[u] = j
        term[u] = cur


def follow_into(kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag, tables, L: int):
    """follow_scans with its outputs made here: (followed, sym_mask, flag_mask, last, term)."""
    U = len(widths)
    followed = np.zeros((U, L), dtype=np.int32)
    sym_mask = np.zeros((U, L), dtype=bool)
    flag_mask = np.zeros((U, L), dtype=bool)
    last = np.empty(U, dtype=np.int64)
    term = np.empty(U, dtype=np.int16)
    follow_scans(
        kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag, *tables,
        followed, sym_mask, flag_mask, last, term,
    )  # fmt: skip
    return followed, sym_mask, flag_mask, last, term
