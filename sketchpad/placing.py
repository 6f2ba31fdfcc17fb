"""Where the cells of one masked write go (Sheet.write_masked, issue 22): which followed steps are
written, row by row, and each row's new index array once the cells exist.  It makes no cell and
writes no symbol: the write path in sheet.py makes the cells from what `masked` gathered from the
batch's steps, then `lay_out` shows them on their rows.  Long batches take the compiled loops
(compiled.py), short ones numpy; the same order and the same arrays either way."""

from __future__ import annotations

import numpy as np

from .chains import blanks, gather, long_enough


class Masked:
    """The steps to write, in row order: their stepper output rows, and their columns (cols) or
    their flat indices in the mask (flat); per row of the mask, how many (counts) and one past its
    last written column (tops)."""

    __slots__ = ("rows", "cols", "counts", "tops", "flat")

    def __init__(self, rows, cols, counts, tops, flat=None):
        self.rows, self.cols, self.counts, self.tops, self.flat = rows, cols, counts, tops, flat


def masked(rows: np.ndarray, mask: np.ndarray) -> Masked:
    """rows[s, j] wherever mask[s, j], row by row."""
    S, L = mask.shape
    if long_enough(mask.size):
        from . import compiled  # lazy: numba's import costs ~0.4 s once a process; short batches never pay it

        out_rows, out_cols = np.empty(mask.size, dtype=np.int32), np.empty(mask.size, dtype=np.int32)
        counts, tops = np.empty(S, dtype=np.int64), np.empty(S, dtype=np.int64)
        m = compiled.compact(rows, mask, out_rows, out_cols, counts, tops)
        return Masked(out_rows[:m], out_cols[:m], counts, tops)
    flat = np.flatnonzero(mask)
    if len(flat) == 0:
        return Masked(flat.astype(np.int32), None, np.zeros(S, dtype=np.int64), np.zeros(S, dtype=np.int64), flat)
    bounds = np.searchsorted(flat, np.arange(S + 1) * L)  # each row's run of `flat` (sorted)
    counts = np.diff(bounds)
    tops = np.where(counts > 0, flat[np.maximum(bounds[1:] - 1, 0)] % L + 1, 0)
    return Masked(gather(rows, flat), None, counts, tops, flat)


def codes(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """table[rows]: the written field's code of each step (table: one per stepper output row)."""
    if not long_enough(len(rows)):
        return gather(table, rows)
    from . import compiled  # lazy: as in `masked`

    return compiled.taken(np.ascontiguousarray(table, dtype=np.uint8), rows)


def lay_out(targets: list, starts, mask: np.ndarray, got: Masked, cells: np.ndarray) -> None:
    """Show the new cells (cells[i]: the cell made for got.rows[i]) on their rows: row targets[s]
    gets them in columns starts[s] + j, blank where mask[s, j] does not hold.  A row that ends
    below its new cells gets one new array (those of one call are views of one read-only array:
    a row that changes copies its own, Row.own); one that shows cells there keeps them, and
    may not already show a cell where a new one goes."""
    S, L = mask.shape
    at = np.concatenate(([0], np.cumsum(got.counts)))  # row s's cells: cells[at[s] : at[s + 1]]
    starts = np.asarray(starts).tolist()
    fresh, over = [], []  # rows that end below their new cells (the usual case); rows that do not
    for s, (row, lo, k) in enumerate(zip(targets, starts, got.tops.tolist())):
        if row is not None and k:
            (fresh if len(row.ids) <= lo else over).append(s)
    placed = None
    if got.cols is not None:  # (compiled: the columns of the cells, no mask)
        if fresh:
            _lay_out_compiled(targets, starts, got, cells, at, fresh)
    elif fresh or over:
        placed = np.full(S * L, -1, dtype=np.int32)
        placed[got.flat] = cells
        placed = placed.reshape(S, L)
        for s in fresh:
            row, lo, k = targets[s], starts[s], int(got.tops[s])
            row.ids = np.concatenate((row.ids, blanks(lo - len(row.ids)), placed[s, :k]))
    for s in over:
        row, lo, k = targets[s], starts[s], int(got.tops[s])
        if placed is not None:
            new = placed[s, :k]
        else:
            new = np.full(k, -1, dtype=np.int32)
            new[got.cols[at[s] : at[s + 1]]] = cells[at[s] : at[s + 1]]
        hi = lo + k
        if hi > len(row.ids):
            row._widen(hi)
        if (row.ids[lo:hi] >= 0).any():
            raise ValueError("write_masked writes new cells only")
        row.own().ids[lo:hi] = new


def _lay_out_compiled(targets, starts, got, cells, at, fresh) -> None:
    from . import compiled  # lazy: as in `masked` (loaded already: got.cols came from a compiled loop)

    ks = np.array(fresh, dtype=np.int64)
    olds = [targets[s].ids for s in fresh]
    old_len = np.array([len(a) for a in olds], dtype=np.int64)
    los = np.array([starts[s] for s in fresh], dtype=np.int64)
    sizes = los + got.tops[ks]
    out_at = np.cumsum(sizes) - sizes
    out = np.empty(int(sizes.sum()), dtype=np.int32)
    old = np.concatenate(olds).astype(np.int32, copy=False) if olds else np.zeros(0, dtype=np.int32)
    compiled.lay_out(
        ks, old, np.cumsum(old_len) - old_len, old_len, los, got.tops[ks],
        cells.astype(np.int32, copy=False), got.cols, at.astype(np.int64), out, out_at,
    )  # fmt: skip
    out.flags.writeable = False  # shown by its rows: one that changes copies its own (Row.own)
    for s, o, n in zip(fresh, out_at.tolist(), sizes.tolist()):
        targets[s].ids = out[o : o + n]
