"""The runtime's tight loops for long batches, compiled (numba).

chains.py follows many rows with numpy passes (each pass cheap, but a level of a product's sum
takes some twenty of them over every column).  Here each scan's chain is walked column by
column, exactly as `chains._walk` does, in machine code: one pass that reads each column's kind,
looks up the step the stepper gave that (kind, state) and moves on, picking the steps to write
as it goes (`follow_scans`).  With it: a level's symbol pairs and their histogram
(`pair_codes`, for patterns.Pattern.many) and the write path's layout of new rows (`compact`,
`lay_out`, `look_up`, for placing.py).  None of them decides a symbol: they copy stepper output
rows, columns and table bits (tests/test_compiled.py holds them equal to a naive walker and to
the numpy ways).  The runtime loads this module on its first long batch (chains.long_enough):
numba's import and the cached machine code cost some 0.4 s once a process; short batches never
pay it.
"""

from __future__ import annotations

import gc

import numpy as np
from numba import njit

# numba's import leaves some 80,000 long-lived objects (its type system) that every later full
# collection would walk (+45 ms each, measured): frozen, the collector skips them.  Garbage is
# collected first, so that no dead cycle is frozen; what is alive now is frozen with them (still
# freed by reference counting, only never searched for cycles).
gc.collect()
gc.freeze()

_SIGNATURE = (
    "void(int32[::1], int64[::1], int64[::1], int64[::1], int16[::1], int32[::1], boolean[::1], boolean[::1],"
    " int64[:, ::1], boolean[::1], boolean[::1], boolean[::1],"
    " int32[:, ::1], boolean[:, ::1], boolean[:, ::1], int64[::1], int16[::1], int32[::1],"
    " int32[::1], int32[::1], int64[::1], int64[::1], int32[::1], int32[::1], int64[::1], int64[::1], int64[::1])"
)


def pack(classes: np.ndarray, rows: np.ndarray, has_sym: np.ndarray, has_flag: np.ndarray) -> np.ndarray:
    """One int64 per (kind, state) for follow_scans: the stepper output row (bits 0-31), has a
    symbol (32), has a flag (33), the class as a byte (40-47): one load a column, not four."""
    out = rows.astype(np.int64) & 0xFFFFFFFF
    out |= has_sym.astype(np.int64) << 32
    out |= has_flag.astype(np.int64) << 33
    out |= (classes.astype(np.int64) & 0xFF) << 40
    return out


@njit(inline="always")
def _unpack(p):
    """A packed (kind, state) entry (`pack`): (row, has a symbol, has a flag, class)."""
    return np.int32(p & 0xFFFFFFFF), (p >> 32) & 1, (p >> 33) & 1, np.int64(np.int8((p >> 40) & 0xFF))


@njit(_SIGNATURE, cache=True, nogil=True)
def follow_scans(
    kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag,
    packed, take_sym, take_flag, pad,
    followed, sym_mask, flag_mask, last, term, end_rows,
    sym_rows, sym_cols, sym_counts, sym_tops, flag_rows, flag_cols, flag_counts, flag_tops, totals,
):  # fmt: skip
    """Scan u has widths[u] columns; column j >= 1 has kind kinds[kstart[u] + j - 1] + koff[u]
    (a row of the packed tables: `pack`); column 0 is presented under its real state only
    (first_*).  last[u] is the last followed column, term[u] the class read there (>= 0: the scan
    ran out of columns), end_rows[u] the stepper output row of the step there.  For the scans
    with pad[u], each followed column j: followed[u, j] the stepper output row of its step,
    sym_mask and flag_mask whether that step has a symbol / a flag (other slots are left as they
    were).  For the other scans with take_sym[u] (likewise flags): the steps with a symbol, end to
    end, their rows (sym_rows) and columns (sym_cols), how many (sym_counts[u]) and one past the
    last such column (sym_tops[u]; 0 and 0 for the others); totals: how many in all (the
    end-to-end arrays hold a slot per followed column and one more)."""
    ms, mf = 0, 0
    for u in range(widths.shape[0]):
        k0, w, off = kstart[u] - 1, widths[u], koff[u]
        ms0, mf0 = ms, mf
        r, cur, j = first_rows[u], np.int64(first_cls[u]), 0
        bs, bf = np.int64(first_sym[u]), np.int64(first_flag[u])
        if pad[u]:  # (two loops, each short: one loop doing both runs at half the speed, measured)
            while True:
                followed[u, j], sym_mask[u, j], flag_mask[u, j] = r, bs, bf
                if cur < 0 or j + 1 >= w:
                    break
                j += 1
                r, bs, bf, cur = _unpack(packed[kinds[k0 + j] + off, cur])
        else:
            while True:  # (no branch on the masks: a carry row's flags are scattered)
                sym_rows[ms], sym_cols[ms], flag_rows[mf], flag_cols[mf] = r, j, r, j
                ms += bs
                mf += bf
                if cur < 0 or j + 1 >= w:
                    break
                j += 1
                r, bs, bf, cur = _unpack(packed[kinds[k0 + j] + off, cur])
            ms, mf = ms if take_sym[u] else ms0, mf if take_flag[u] else mf0
        last[u], term[u], end_rows[u] = j, cur, r
        sym_counts[u], flag_counts[u] = ms - ms0, mf - mf0
        sym_tops[u] = sym_cols[ms - 1] + 1 if ms > ms0 else 0
        flag_tops[u] = flag_cols[mf - 1] + 1 if mf > mf0 else 0
    totals[0], totals[1] = ms, mf


def follow_into(kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag, tables, takes, pad, L):
    """follow_scans with its outputs made here: (followed, sym_mask, flag_mask, last, term,
    end_rows, (sym_rows, sym_cols, sym_counts, sym_tops), (flag_rows, ...)); tables: (classes,
    rows, has_sym, has_flag), each kind x state.  (The padded arrays cost only the rows of the
    scans with pad: np.zeros' pages are touched when written.)"""
    U = len(widths)
    followed = np.zeros((U, L), dtype=np.int32)
    sym_mask = np.zeros((U, L), dtype=bool)
    flag_mask = np.zeros((U, L), dtype=bool)
    last, term, end_rows = np.empty(U, dtype=np.int64), np.empty(U, dtype=np.int16), np.empty(U, dtype=np.int32)
    room = int(widths.sum()) + 1
    picked = [(np.empty(room, np.int32), np.empty(room, np.int32), np.empty(U, np.int64), np.empty(U, np.int64))]
    picked.append(tuple(np.empty_like(a) for a in picked[0]))
    totals = np.zeros(2, dtype=np.int64)
    follow_scans(
        kinds, kstart, widths, koff, first_cls, first_rows, first_sym, first_flag, pack(*tables), *takes, pad,
        followed, sym_mask, flag_mask, last, term, end_rows, *picked[0], *picked[1], totals,
    )  # fmt: skip
    picked = [(r[:m], c[:m], n, t) for (r, c, n, t), m in zip(picked, totals.tolist())]
    return followed, sym_mask, flag_mask, last, term, end_rows, picked[0], picked[1]


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


@njit(["void(int32[::1], int16[::1], int32[::1])", "void(uint8[::1], int32[::1], uint8[::1])"], cache=True, nogil=True)
def look_up(table, idx, out):
    """out[t] = table[idx[t]] (a small table read along a long array: no intp copy of idx): a
    level's kinds from its pairs, a write's symbols from its stepper output rows."""
    for t in range(idx.shape[0]):
        out[t] = table[idx[t]]


def pairs_of(sym, scans: list, base: int, total: int):
    """pair_codes for carry-select scans (Pattern.many): (pairs, seen); the scans' index arrays
    end to end a few million columns at a time (a 10,000-digit product's level: not 400 MB)."""
    pairs = np.empty(total, dtype=np.int16)
    seen = np.zeros(base * base, dtype=np.int64)
    widths = np.array([p.limit - p.start for p in scans], dtype=np.int64)
    ends = np.cumsum(widths)
    lo = 0
    while lo < len(scans):
        hi = max(int(np.searchsorted(ends, ends[lo] - widths[lo] + CHUNK, side="right")), lo + 1)
        part, at = scans[lo:hi], int(ends[lo] - widths[lo])
        _pairs_into(sym, part, base, widths[lo:hi], pairs[at : int(ends[hi - 1])], seen)
        lo = hi
    return pairs, seen


CHUNK = 1 << 22  # columns of one pair_codes call


def _pairs_into(sym, scans, base, widths, pairs, seen) -> None:
    xs = [p.x.ids for p in scans]
    # (concatenated even when one: rows show read-only arrays, which the signatures do not take)
    xcat, xlen = np.concatenate(xs), np.array([len(a) for a in xs], dtype=np.int64)
    if scans[0].y is not None:
        ys = [p.y.ids for p in scans]
        ycat, ylen = np.concatenate(ys), np.array([len(a) for a in ys], dtype=np.int64)
        yfixed = np.zeros(len(scans), dtype=np.uint8)
    else:
        ycat, ylen = np.zeros(0, dtype=np.int32), np.full(len(scans), -1, dtype=np.int64)
        yfixed = np.array([p.fixed.code if p.fixed is not None else sym[-1] for p in scans], dtype=np.uint8)
    starts = np.array([p.start for p in scans], dtype=np.int64)
    pair_codes(
        sym, np.ascontiguousarray(xcat, dtype=np.int32), np.cumsum(xlen) - xlen, xlen,
        np.ascontiguousarray(ycat, dtype=np.int32), np.cumsum(np.maximum(ylen, 0)) - np.maximum(ylen, 0), ylen,
        yfixed, starts, widths, base, pairs, seen,
    )  # fmt: skip


def taken(table: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """table[idx] by `look_up`, as a new array of the table's type."""
    out = np.empty(len(idx), dtype=table.dtype)
    look_up(table, idx, out)
    return out


@njit("int64(int32[:, ::1], boolean[:, ::1], int32[::1], int32[::1], int64[::1], int64[::1])", cache=True)
def compact(rows, mask, out_rows, out_cols, counts, tops):
    """The steps where mask holds, row by row: out_rows their stepper output rows, out_cols their
    columns; counts[s] and tops[s] (one past the last such column) of each row.  Returns how
    many.  (Without branches: a scattered mask, a carry row's flags, would mispredict half of
    them; out_rows and out_cols hold mask.size slots.)"""
    m = 0
    for s in range(mask.shape[0]):
        m0, top = m, 0
        for j in range(mask.shape[1]):
            out_rows[m], out_cols[m] = rows[s, j], j
            b = mask[s, j]
            m += b
            top = j + 1 if b else top
        counts[s] = m - m0
        tops[s] = top
    return m


_LAY_OUT = (
    "void(int64[::1], int32[::1], int64[::1], int64[::1], int64[::1], int64[::1], int32[::1], int32[::1],"
    " int64[::1], int32[::1], int64[::1])"
)


@njit(_LAY_OUT, cache=True)
def lay_out(rows, old, old_at, old_len, los, tops, cells, cols, at, out, out_at):
    """Each listed row's new index array, end to end in `out` from out_at[k]: what the row showed
    before (old[old_at[k]:][:old_len[k]]), blanks (-1) up to column los[k] + tops[k], and its new
    cells, cells[i] in column los[k] + cols[i] for i from at[s] on (s = rows[k]) up to at[s + 1]."""
    for k in range(rows.shape[0]):
        s, o, lo = rows[k], out_at[k], los[k]
        out[o : o + old_len[k]] = old[old_at[k] : old_at[k] + old_len[k]]
        out[o + old_len[k] : o + lo] = -1
        out[o + lo : o + lo + tops[k]] = -1
        for i in range(at[s], at[s + 1]):
            out[o + lo + cols[i]] = cells[i]


# numba sets up its dispatch on the first call of any compiled function (~10 ms, measured): here, at
# import, with the other once-a-process costs, not inside the first long batch.
look_up(np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int16), np.empty(1, dtype=np.int32))
