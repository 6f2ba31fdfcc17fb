"""What one quotient or root digit's speculative batch presents (procedures.py runs it).

All trial subtractions of one digit are one batch: every view any trial's columns could see
(the digits of a trial's difference are not known before the batch), and the DQ views that
count them.  Presented as a block whose distinct views are found per kind of column, without
listing the presented ones (parts.py).
"""

from __future__ import annotations

import numpy as np

from .codes import OP, SYM, distinct_sorted, view_code, views_of
from .parts import Presented
from .patterns import codes_of
from .sheet import Row
from .symbols import BLANK, DIGITS, DQ, SUB

# Parallel quotient and root digits: what one digit's trials can present.
BORROWS = (BLANK, "1")
DQ_STATES = tuple(
    (bo, cnt) for cnt in (BLANK,) + tuple("123456789") for bo in BORROWS if not (bo == BLANK and cnt == "9")
)  # (borrow, count so far): the 19 DQ views of V
ADD2_DIGITS = tuple("13579")  # ADD2 reads the units digit of an odd number
_DQ_CODES = np.array([view_code(DQ, bo, cnt, BLANK) for bo, cnt in DQ_STATES], dtype=np.int32)
_TOP_CODES = np.array([view_code(SUB, BLANK, BLANK, c) for c in BORROWS], dtype=np.int32)


def digits_and(sym: str) -> tuple:
    return tuple(DIGITS) if sym in DIGITS else tuple(DIGITS) + (sym,)


def trial_probes(r: Row, y: Row, count: tuple, free_y: int = 0) -> Presented:
    """Every view the trial subtractions of one digit could present, and the DQ views.

    Trial 1 subtracts y from r; trial j subtracts from trial j-1's difference, whose digits
    are not known before the batch: so column i (0 <= i < W = max(width r, width y)) is
    presented with every digit x (and r's own symbol there, when it is not a digit), under
    every borrow (none in column 0), and column W as (SUB, _, _, borrow).  y is fixed (a
    division's divisor), except in its lowest `free_y` columns, which are presented with every
    digit too (a square root's odd number grows by 2 per trial).  Then every DQ view (borrow,
    count so far); `count` = (row, column) of the digit being counted.  Order: column, then y,
    then borrow, then x.  A probe's position names only the cells that hold its symbols now
    (the page highlights those): a hypothetical digit has none."""
    W = max(r.width(), y.width())
    if W <= 64 and not free_y:  # a division's digit of a few columns: in plain Python
        return _few_columns(r, y, count, W)
    xs, ys = r.syms(0, W).astype(np.int32), y.syms(0, W).astype(np.int32)
    lo = min(free_y, W)
    free = [_trial_block(xs[i : i + 1], _every_y(ys[i]), i) for i in range(lo)]
    fx, fy = xs[lo:], ys[lo:]
    # Columns lo.. each present (SUB, x, y_i, borrow) for every digit x (and x_i when it is not
    # a digit): their distinct views are those of one column of each (y_i, non-digit x_i) kind.
    parts = list(free)
    if lo == 0 and W:
        parts.append(_column0(int(fx[0]), int(fy[0])))  # column 0: no borrow into it
        fx, fy = fx[1:], fy[1:]
    odd = xs[lo:] > 9  # columns whose x is not a digit (a wrong stepper's): one more view each
    n_odd = int(np.count_nonzero(odd))
    if len(fx) and n_odd == 0:  # every x a digit (the usual case): a kind per distinct y
        parts += [_kind_block(k) for k in (np.flatnonzero(np.bincount(fy)) * 256 + 255).tolist()]
    elif len(fx):
        kinds = distinct_sorted(fy * 256 + np.where(fx > 9, fx, 255)).tolist()
        parts += [_kind_block(k) for k in kinds]
    distinct = np.concatenate(parts + [_TOP_CODES, _DQ_CODES])
    size = sum(len(f) for f in free) + 20 * (W - lo) + 2 * n_odd - (10 + int(odd[0]) if lo == 0 and W else 0) + 21

    def codes():
        blocks = [_trial_block(xs[i : i + 1], _every_y(ys[i]), i) for i in range(lo)]
        return np.concatenate(blocks + [_trial_block(xs[lo:], ys[lo:, None], lo), _TOP_CODES, _DQ_CODES])

    return Presented(distinct, size, codes, lambda: _trial_where(r, y, count, free_y, W))


def _few_columns(r: Row, y: Row, count: tuple, W: int) -> Presented:
    """trial_probes for a short row and a fixed y, its columns' kinds found in plain Python."""
    xl, yl = codes_of(r, 0, W), codes_of(y, 0, W)
    parts = []
    if W:
        parts.append(_column0(xl[0], yl[0]))
    kinds = {b * 256 + (a if a > 9 else 255) for a, b in zip(xl[1:], yl[1:])}
    parts += [_kind_block(k) for k in sorted(kinds)]
    distinct = np.concatenate(parts + [_TOP_CODES, _DQ_CODES])
    size = sum(20 + 2 * (a > 9) for a in xl) - (10 + (xl[0] > 9) if W else 0) + 21

    def codes():
        xs, ys = np.array(xl, dtype=np.int32), np.array(yl, dtype=np.int32)
        return np.concatenate([_trial_block(xs, ys[:, None], 0), _TOP_CODES, _DQ_CODES])

    return Presented(distinct, size, codes, lambda: _trial_where(r, y, count, 0, W))


def _column0(x: int, y: int) -> np.ndarray:
    """The views of column 0 (no borrow into it) with y there and x (read when not a digit)."""
    key = (x if x > 9 else -1, y)
    got = _COLUMN0.get(key)
    if got is None:
        got = _COLUMN0[key] = _trial_block(np.array([x], dtype=np.int32), np.array([[y]], dtype=np.int32), 0)
    return got


_COLUMN0: dict = {}


def _every_y(y: int) -> np.ndarray:
    """Every digit, then y itself when it is not a digit (a free column of the odd number)."""
    return np.append(np.arange(10, dtype=np.int32), y)[None, : 11 if y > 9 else 10]


_KIND_BLOCKS: dict = {}


def _kind_block(kind: int) -> np.ndarray:
    """The views of a column of one kind (y * 256 + its non-digit x, or 255) past column 0."""
    got = _KIND_BLOCKS.get(kind)
    if got is None:
        got = _KIND_BLOCKS[kind] = _trial_block(
            np.array([kind % 256 if kind % 256 != 255 else 0]), np.array([[kind // 256]]), 1
        )
    return got


def _trial_block(xs: np.ndarray, ys: np.ndarray, lo: int) -> np.ndarray:
    """SUB views of columns lo, lo+1, ...: column m under every y of ys[m] (in order), every
    borrow (none in column 0), every digit x and then xs[m] when it is not a digit."""
    m, k = ys.shape
    x = np.empty((m, k, 2, 11), dtype=np.int32)
    x[..., :10] = np.arange(10)
    x[..., 10] = xs[:, None, None]
    borrow = np.array([SYM[BLANK], SYM["1"]], dtype=np.int32)
    grid = views_of(OP[SUB], x, ys[:, :, None, None], borrow[None, None, :, None])
    keep = np.ones((m, k, 2, 11), dtype=bool)
    keep[..., 10] = xs[:, None, None] > 9  # r's own symbol, when it is not a digit
    if lo == 0 and m:
        keep[0, :, 1, :] = False  # no borrow into column 0
    return grid[keep]


def _trial_where(r: Row, y: Row, count: tuple, free_y: int, W: int) -> list:
    out = []
    for i in range(W):
        yi, xi = y.sym(i), r.sym(i)
        here = ((r, i), (y, i), None)
        only_y = (None, (y, i), None)
        for yy in digits_and(yi) if i < free_y else (yi,):
            w_x, w = (here, only_y) if yy == yi else (((r, i), None, None), None)
            for _c in (BLANK,) if i == 0 else BORROWS:
                out += [w_x if x == xi else w for x in DIGITS]
                if xi not in DIGITS:
                    out.append(w_x)
    out += [((r, W), (y, W), None)] * 2
    row, col = count
    out += [(None, (row, col), None) if cnt == row.sym(col) else None for _, cnt in DQ_STATES]
    return out
