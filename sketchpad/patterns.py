"""The views a carry-select scan presents, as a pattern (issue 22): its first column under its real
state, every other column under every state of its family.  A column's views depend only on its
two symbols, so a pattern holds the distinct symbol pairs of its columns ("kinds") and one grid
kind x state -> view code; scans that read the same cells share one pattern (cells_key,
same_cells).  scans.py builds, asks and follows them."""

from __future__ import annotations

import numpy as np

from .chains import BIG, gather, long_enough
from .codes import BLANK_CODE, NSYM, OP, SYM, SYMBOLS, code4, views_of
from .sheet import Row


class Pattern:
    """The views of columns start..limit-1 of a row: the first column under (op, first carry),
    every other under every state.  Column j >= 1 presents (state, x, y) for each state, so the
    distinct views are the distinct (x, y) symbol pairs of the columns ("kinds") under every
    state: kind[j-1] is column j's kind, grid[kind, k] its view code under states[k]."""

    __slots__ = ("first", "kind", "grid", "w", "n")

    def __init__(self, op: str, x: Row, y: Row | None, fixed, first_carry: int, start: int, limit: int, states):
        self.w, self.n = limit - start, len(states)
        if self.w <= 64 and start >= 0:  # short: in plain Python
            a = codes_of(x, start, limit)
            b = (
                codes_of(y, start, limit)
                if y is not None
                else [fixed.code if fixed is not None else BLANK_CODE] * self.w
            )
            self.first = code4(OP[op], a[0], b[0], first_carry)
            kinds: dict = {}
            self.kind = np.array([kinds.setdefault(p, len(kinds)) for p in zip(a[1:], b[1:])], np.int32)
            bases = _state_list(states)
            if len(SYMBOLS) == NSYM:  # a view code is its (x, y) part plus its state's part
                grid = [(ka * NSYM + kb) * NSYM + sb for ka, kb in kinds for sb in bases]
            else:
                grid = [code4(OP[o], ka, kb, SYM[c]) for ka, kb in kinds for o, c in states]
            self.grid = np.array(grid, dtype=np.int32).reshape(len(kinds), len(states))
            return
        a = x.syms(start, limit)
        if y is not None:
            b = y.syms(start, limit)
        else:
            b = np.empty(limit - start, dtype=np.uint8)
            b.fill(fixed.code if fixed is not None else BLANK_CODE)
        self.first = code4(OP[op], int(a[0]), int(b[0]), first_carry)
        base = NSYM if len(SYMBOLS) == NSYM else 256  # every symbol below NSYM unless a wrong stepper's
        pairs = a[1:].astype(np.int32) * base + b[1:]
        if base == NSYM and len(pairs) > 64:
            seen = np.bincount(pairs, minlength=NSYM * NSYM)
            kinds = np.flatnonzero(seen)
            where = np.empty(NSYM * NSYM, dtype=np.int32)
            where[kinds] = np.arange(len(kinds), dtype=np.int32)
            self.kind = where[pairs]
        else:
            kinds, kind = np.unique(pairs, return_inverse=True)
            self.kind = kind.astype(np.int32).reshape(-1)
        so, sc = state_codes(states)
        self.grid = views_of(so, (kinds // base)[:, None], (kinds % base)[:, None], sc)

    @classmethod
    def many(cls, scans: list) -> None:
        """The patterns of many long scans of one operation, one family and one store at once
        (a level of a product's sum): one gather of all their columns' symbols, one histogram
        of their kinds, and one grid that every one of them shares (scan._pattern is set)."""
        p0 = scans[0]
        sym, base = p0.x.store.sym, NSYM
        widths = np.array([p.limit - p.start for p in scans])
        ends = np.cumsum(widths)
        heads = ends - widths
        total = int(ends[-1])
        if long_enough(total):  # one compiled pass (compiled.py)
            from . import compiled  # lazy: numba's import costs ~0.4 s once a process; short batches never pay it

            pairs, seen = compiled.pairs_of(sym, scans, base, total)
            look_up = compiled.taken
        else:
            a = _syms_of(sym, [p.x for p in scans], scans, total)
            if p0.y is not None:
                b = _syms_of(sym, [p.y for p in scans], scans, total)
            else:
                fixed = [p.fixed.code if p.fixed is not None else BLANK_CODE for p in scans]
                b = np.repeat(np.array(fixed, dtype=np.uint8), widths)
            # intp: bincount and np.take copy other indices as intp (above BIG, int16: base * base < 2**15)
            pairs = a.astype(np.intp if len(a) <= BIG else np.int16)
            pairs *= base
            pairs += b
            seen = np.bincount(pairs, minlength=base * base)
            # a scan's first column is presented under its real state only: not a kind of its own
            np.subtract.at(seen, pairs[heads], 1)
            look_up = gather
        kinds = np.flatnonzero(seen)
        where = np.zeros(base * base, dtype=np.int32)
        where[kinds] = np.arange(len(kinds), dtype=np.int32)
        kind = look_up(where, pairs)
        so, sc = state_codes(p0.states)
        grid = views_of(so, (kinds // base)[:, None], (kinds % base)[:, None], sc)
        carries = np.array([p.first_carry for p in scans], dtype=np.int32)
        hp = pairs[heads].astype(np.int32)
        firsts = views_of(OP[p0.op], hp // base, hp % base, carries).tolist()
        for k, p in enumerate(scans):
            pat = object.__new__(cls)
            pat.first, pat.grid, pat.w, pat.n = firsts[k], grid, int(widths[k]), len(p0.states)
            pat.kind = kind[heads[k] + 1 : ends[k]]
            p._pattern = pat

    def distinct(self) -> np.ndarray:
        return np.concatenate([np.array([self.first], dtype=np.int32), self.grid.ravel()])

    def codes(self) -> np.ndarray:
        """Every presented view code, in order: the first column, then column by column."""
        return np.concatenate([np.array([self.first], dtype=np.int32), self.grid[self.kind].ravel()])

    def size(self) -> int:
        return 1 + (self.w - 1) * self.n


def cells_key(row: Row | None, p, many: bool):
    """What a scan reads of a row, as a key: the cells of its columns (scans that read the same
    cells present the same views: a product's sums of two rows of the same two digits), or the
    row itself for short scans and lone ones."""
    if row is None or not many or p.limit - p.start <= 64:
        return id(row)
    ids, lo = row.ids, max(p.start, 0)
    n = max(0, min(p.limit, len(ids)) - lo)  # a fingerprint (distinct_all compares the cells)
    return (id(row.store), n) + ((ids.item(lo), ids.item(lo + n // 2), ids.item(lo + n - 1)) if n else ())


def same_cells(p, q) -> bool:
    """Whether two scans with one key read the same cells (their fingerprints matched)."""
    lo = max(p.start, 0)  # one key: the same start and limit (columns below 0 read blank in both)
    for a, b in ((p.x, q.x), (p.y, q.y)):
        if a is b or (a is not None and b is not None and a.ids is b.ids):  # (rows that show one array)
            continue
        if a is None or b is None or not _equal(a.ids[lo : p.limit], b.ids[lo : q.limit]):
            return False
    return True


def _equal(u: np.ndarray, v: np.ndarray) -> bool:
    """Two index slices equal (no padding: a shorter row reads blanks where the other has cells)."""
    return len(u) == len(v) and bool((u == v).all())


def _syms_of(sym: np.ndarray, rows: list, scans: list, total: int) -> np.ndarray:
    """Symbol codes of rows[k] over scans[k]'s columns, for every k, end to end (one array),
    gathered row by row into it: no array of all their cell indices (hundreds of MB for a
    10,000-digit product, and fresh memory is slow to touch).  Index -1 reads sym[-1], blank."""
    out = np.empty(total, dtype=np.uint8)
    out.fill(sym[-1])
    at = 0
    for row, p in zip(rows, scans):
        ids, lo = row.ids, p.start
        a, b = max(lo, 0), min(p.limit, len(ids))
        if a < b:
            np.take(sym, ids[a:b], out=out[at + a - lo : at + b - lo], mode="wrap")  # (-1: the last, blank)
        at += p.limit - lo
    return out


_STATE_CODES: dict = {}
_STATE_BASES: dict = {}


def state_base(states) -> np.ndarray:
    """Each state's part of a view code (operation and carry), as a row to broadcast."""
    got = _STATE_BASES.get(states)
    if got is None:
        so, sc = state_codes(states)
        got = _STATE_BASES[states] = so * NSYM**3 + sc
    return got


def state_codes(states) -> tuple:
    """(operation codes, carry codes) of a family's states, as rows to broadcast."""
    got = _STATE_CODES.get(states)
    if got is None:
        so = np.array([[OP[o] for o, _ in states]], dtype=np.int32)
        sc = np.array([[SYM[c] for _, c in states]], dtype=np.int32)
        got = _STATE_CODES[states] = (so, sc)
    return got


def codes_of(row: Row, lo: int, hi: int) -> list:
    """Symbol codes of columns lo..hi-1 of a row (lo >= 0; blank where nothing is written), as
    a list: short scans read their cells in plain Python."""
    ids, w = row.ids, len(row.ids)
    if lo >= w:
        return [BLANK_CODE] * (hi - lo)
    got = row.store.sym[ids[lo:hi]].tolist()
    return got + [BLANK_CODE] * (hi - w) if hi > w else got


_STATE_LISTS: dict = {}


def _state_list(states) -> list:
    """Each state's part of a view code (operation and carry), as a list."""
    got = _STATE_LISTS.get(states)
    if got is None:
        got = _STATE_LISTS[states] = [OP[o] * NSYM**3 + SYM[c] for o, c in states]
    return got
