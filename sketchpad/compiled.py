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

import gc

import numpy as np
from numba import njit

# numba's import leaves some 80,000 long-lived objects (its type system) that every later full
# collection would walk (+45 ms each, measured): frozen, the collector skips them.  (Everything
# alive now is frozen with them: still freed by reference counting, only not searched for cycles.)
gc.freeze()

_SIGNATURE = (
    "void(int32[::1], int64[::1], int64[::1], int64[::1], int16[::1], int32[::1], boolean[::1], boolean[::1],"
    " int8[:, ::1], int32[:, ::1], boolean[:, ::1], boolean[:, ::1], boolean[::1], boolean[::1],"
    " int32[:, ::1], boolean[:, ::1], boolean[:, ::1], int64[::1], int16[::1],"
    " int32[::1], int64[::1], int64[::1], int32[::1], int64[::1], int64[::1], int64[::1])"
)


@njit(_SIGNATURE, cache=True, nogil=True)
def follow_scans(
    kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag,
    classes, rows, has_sym, has_flag, take_sym, take_flag,
    followed, sym_mask, flag_mask, last, term,
    sym_rows, sym_counts, sym_tops, flag_rows, flag_counts, flag_tops, totals,
):  # fmt: skip
    """Scan u has widths[u] columns; column j >= 1 has kind kinds[kstart[u] + j - 1] + koff[u]
    (a row of the tables); column 0 is presented under its real state only (first_*).  For each
    followed column j of scan u: followed[u, j] the stepper output row of its step, sym_mask and
    flag_mask whether that step has a symbol / a flag.  last[u] the last followed column,
    term[u] the class read there (>= 0: the scan ran out of columns).  Unfollowed slots of the
    outputs are left as they were (zero / False).  And for the scans with take_sym[u] (likewise
    flags): the rows of the steps with a symbol, end to end in sym_rows, how many (sym_counts[u])
    and one past the last such column (sym_tops[u]; 0 and 0 for the others); totals: how many
    in all (sym_rows and flag_rows hold one slot per followed column and one more)."""
    ms, mf = 0, 0
    for u in range(widths.shape[0]):
        k0, w, off, ts, tf = kstart[u] - 1, widths[u], koff[u], take_sym[u], take_flag[u]
        ms0, mf0, tops, topf = ms, mf, 0, 0
        r, bs, bf, cur, j = first_rows[u], first_sym[u], first_flag[u], first_cls[u], 0
        while True:
            followed[u, j], sym_mask[u, j], flag_mask[u, j] = r, bs, bf
            if ts:  # (no branch on the mask: a carry row's flags are scattered)
                sym_rows[ms] = r
                ms += bs
                tops = j + 1 if bs else tops
            if tf:
                flag_rows[mf] = r
                mf += bf
                topf = j + 1 if bf else topf
            if cur < 0 or j + 1 >= w:
                break
            j += 1
            k = kinds[k0 + j] + off
            r, bs, bf, cur = rows[k, cur], has_sym[k, cur], has_flag[k, cur], classes[k, cur]
        last[u], term[u] = j, cur
        sym_counts[u], sym_tops[u], flag_counts[u], flag_tops[u] = ms - ms0, tops, mf - mf0, topf
    totals[0], totals[1] = ms, mf


def follow_into(kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag, tables, takes, L: int):
    """follow_scans with its outputs made here: (followed, sym_mask, flag_mask, last, term,
    (sym_rows, sym_counts, sym_tops), (flag_rows, flag_counts, flag_tops))."""
    U = len(widths)
    followed = np.zeros((U, L), dtype=np.int32)
    sym_mask = np.zeros((U, L), dtype=bool)
    flag_mask = np.zeros((U, L), dtype=bool)
    last = np.empty(U, dtype=np.int64)
    term = np.empty(U, dtype=np.int16)
    room = int(widths.sum()) + 1
    picked = [(np.empty(room, dtype=np.int32), np.empty(U, dtype=np.int64), np.empty(U, dtype=np.int64)) for _ in takes]
    totals = np.zeros(2, dtype=np.int64)
    follow_scans(
        kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag, *tables, *takes,
        followed, sym_mask, flag_mask, last, term, *picked[0], *picked[1], totals,
    )  # fmt: skip
    picked = [(r[:m], c, t) for (r, c, t), m in zip(picked, totals.tolist())]
    return followed, sym_mask, flag_mask, last, term, picked[0], picked[1]


_PAIRS = (
    "void(uint8[::1], int32[::1], int64[::1], int64[::1], int32[::1], int64[::1], int64[::1], uint8[::1],"
    " int64[::1], int64[::1], int64, int16[::1], int64[::1])"
)


@njit(_PAIRS, cache=True, nogil=True)
def pair_codes(sym, xcat, xoff, xlen, ycat, yoff, ylen, yfixed, starts, widths, base, pairs, seen):
    """The (x, y) symbol pair of every column of every scan, end to end: scan u reads columns
    starts[u].. starts[u] + widths[u] - 1 of its x row (cell indices xcat[xoff[u]:][:xlen[u]]) and
    of its y row (likewise; ylen[u] < 0: no y row, the fixed symbol yfixed[u]); a column past a
    row, or a never-written cell (-1), reads the blank at sym[-1].  pairs[t] = x * base + y;
    seen[p] counts the columns showing pair p, but for each scan's first column (presented under
    its real state only: not a kind of its own)."""
    blank = sym[sym.shape[0] - 1]
    t = 0
    for u in range(widths.shape[0]):
        lo, nx, ny, w, xo, yo, fixed = starts[u], xlen[u], ylen[u], widths[u], xoff[u], yoff[u], yfixed[u]
        for j in range(w):
            c = lo + j
            a = sym[xcat[xo + c]] if 0 <= c < nx else blank  # (index -1 wraps round to the blank)
            if ny < 0:
                b = fixed
            else:
                b = sym[ycat[yo + c]] if 0 <= c < ny else blank
            p = a * base + b
            pairs[t] = p
            seen[p] += 1
            t += 1
        if w > 0:
            seen[pairs[t - w]] -= 1


@njit("void(int32[::1], int16[::1], int32[::1])", cache=True, nogil=True)
def look_up(table, idx, out):
    """out[t] = table[idx[t]] (a small table read along a long array: no intp copy of idx)."""
    for t in range(idx.shape[0]):
        out[t] = table[idx[t]]


def pairs_of(sym, scans: list, base: int, total: int):
    """pair_codes for carry-select scans (Pattern.many): (pairs, seen)."""
    xs = [p.x.ids for p in scans]
    xcat, xlen = np.concatenate(xs) if len(xs) > 1 else xs[0], np.array([len(a) for a in xs], dtype=np.int64)
    if scans[0].y is not None:
        ys = [p.y.ids for p in scans]
        ycat, ylen = np.concatenate(ys) if len(ys) > 1 else ys[0], np.array([len(a) for a in ys], dtype=np.int64)
        yfixed = np.zeros(len(scans), dtype=np.uint8)
    else:
        ycat, ylen = np.zeros(0, dtype=np.int32), np.full(len(scans), -1, dtype=np.int64)
        yfixed = np.array([p.fixed.code if p.fixed is not None else sym[-1] for p in scans], dtype=np.uint8)
    pairs = np.empty(total, dtype=np.int16)
    seen = np.zeros(base * base, dtype=np.int64)
    starts = np.array([p.start for p in scans], dtype=np.int64)
    widths = np.array([p.limit - p.start for p in scans], dtype=np.int64)
    pair_codes(
        sym, np.ascontiguousarray(xcat, dtype=np.int32), np.cumsum(xlen) - xlen, xlen,
        np.ascontiguousarray(ycat, dtype=np.int32), np.cumsum(np.maximum(ylen, 0)) - np.maximum(ylen, 0), ylen,
        yfixed, starts, widths, base, pairs, seen,
    )  # fmt: skip
    return pairs, seen


def kinds_of(where: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    out = np.empty(len(pairs), dtype=np.int32)
    look_up(where, pairs, out)
    return out


@njit("int64(int32[:, ::1], boolean[:, ::1], int32[::1], int64[::1], int64[::1])", cache=True)
def compact(rows, mask, out_rows, counts, tops):
    """The steps where mask holds, row by row: out_rows their stepper output rows; counts[s] and
    tops[s] (one past the last such column) of each row.  Returns how many.  (Without branches:
    a scattered mask, a carry row's flags, would mispredict half of them; out_rows holds
    mask.size slots.)"""
    m = 0
    for s in range(mask.shape[0]):
        m0, top = m, 0
        for j in range(mask.shape[1]):
            out_rows[m] = rows[s, j]
            b = mask[s, j]
            m += b
            top = j + 1 if b else top
        counts[s] = m - m0
        tops[s] = top
    return m


@njit("void(uint8[::1], int32[::1], uint8[::1])", cache=True)
def codes_at(table, rows, out):
    """out[i] = table[rows[i]] (a small table read along a long array: no intp copy of rows)."""
    for i in range(rows.shape[0]):
        out[i] = table[rows[i]]


_LAY_OUT = (
    "void(boolean[:, ::1], int64[::1], int32[::1], int64[::1], int64[::1], int64[::1], int64[::1], int32[::1],"
    " int64[::1], int32[::1], int64[::1])"
)


@njit(_LAY_OUT, cache=True)
def lay_out(mask, rows, old, old_at, old_len, los, tops, cells, at, out, out_at):
    """Each listed row's new index array, end to end in `out` from out_at[k]: what the row showed
    before (old[old_at[k]:][:old_len[k]]), blanks (-1) up to column los[k], then its new cells
    in columns los[k] .. los[k] + tops[k] - 1: cells[at[s]], cells[at[s] + 1], ... where row
    s = rows[k] of the mask holds, -1 elsewhere (cells holds one slot more: read, never shown)."""
    for k in range(rows.shape[0]):
        s, o, lo, c = rows[k], out_at[k], los[k], at[rows[k]]
        for j in range(old_len[k]):
            out[o + j] = old[old_at[k] + j]
        for j in range(old_len[k], lo):
            out[o + j] = -1
        for j in range(tops[k]):
            b = mask[s, j]
            v = cells[c]
            out[o + lo + j] = v if b else -1
            c += b


# numba sets up its dispatch on the first call of any compiled function (~10 ms, measured): here, at
# import, with the other once-a-process costs, not inside the first long batch.
look_up(np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int16), np.empty(1, dtype=np.int32))
