"""The carry-select scan (parallel mode): a scan's every column under every state of its family
presented as one block of view codes (`SelectScan`, a pattern of kinds: patterns.py); after the
batch the emitted states are followed for all scans at once (chains.py) and each scan writes its
followed steps with one gather, so the sheet equals the sequential scan's.  scans.py's `scan`
sends a scan here in the parallel mode; a product's sum tree sends a whole level of scans at once
(`select_scans`, `scan_all`)."""

from __future__ import annotations

import numpy as np

from . import placing
from .batch_steps import BatchSteps, StepRow
from .chains import BIG, HALTS, OUTSIDE, Chains, follow, gather, long_enough
from .codes import (
    BLANK_CODE,
    NEXT,
    NSYM,
    STEP_FLAG,
    STEP_NEXT,
    STEP_SYM,
    SYM,
    SYMBOLS,
    state_table,
    step_fields,
    views_from_codes,
)
from .errors import StepperFault
from .parts import FAMILIES, MUL_CARRIES, Presented, Probe
from .patterns import Pattern, cells_key, same_cells
from .sheet import Row, Sheet
from .symbols import HALT, MUL


def family(op: str, fixed) -> tuple | None:
    """The states a carry-select scan of `op` presents each column under, or None (no
    carry-select for this scan).  A product row's states depend on its multiplier digit."""
    if op == MUL:
        return _MUL_FAMILIES.get(fixed.sym if fixed is not None else None)
    return FAMILIES.get(op)


_MUL_FAMILIES = {d: tuple((MUL, c) for c in carries) for d, carries in MUL_CARRIES.items()}  # (made once)


def _grid_where(x, y, carry, fixed, start: int, limit: int, n: int) -> list:
    yw = (fixed, None) if fixed is not None else None
    out = []
    for i in range(start, limit):
        where = ((x, i), (y, i) if y is not None else yw, (carry, i) if carry is not None else None)
        out.extend([where] * (1 if i == start else n))
    return out


def select_probes(
    op: str, x: Row, y: Row | None, first_carry: str, start: int, limit: int, states, fixed=None, carry=None
) -> Presented:
    """The views of a carry-select scan as a block: columns start..limit-1, the first under its
    real state (op, first_carry), every other under every state, in the order of `states`."""
    pat = Pattern(op, x, y, fixed, SYM[first_carry], start, limit, states)
    where = lambda: _grid_where(x, y, carry, fixed, start, limit, len(states))  # noqa: E731
    return Presented(pat.distinct(), pat.size(), pat.codes, where)


class SelectScan:
    """A carry-select scan as a part of a batch; its result is its followed run, written."""

    __slots__ = ("op", "x", "y", "carry", "out", "fixed", "fixed_code", "start", "limit", "states")
    __slots__ += ("first_carry", "size", "_pattern")

    def __init__(self, op, x, y, carry, out, start, limit, fixed, states):
        self.op, self.x, self.y, self.carry, self.out, self.fixed = op, x, y, carry, out, fixed
        self.fixed_code = fixed.code if fixed is not None else -1
        self.start, self.limit, self.states = start, limit, states
        self.first_carry = carry.code(start) if carry is not None else BLANK_CODE
        self.size = 1 + (limit - start - 1) * len(states)
        self._pattern = None

    @property
    def pattern(self) -> Pattern:
        if self._pattern is None:
            p = self
            self._pattern = Pattern(p.op, p.x, p.y, p.fixed, p.first_carry, p.start, p.limit, p.states)
        return self._pattern

    def distinct(self) -> np.ndarray:
        return self.pattern.distinct()

    @staticmethod
    def distinct_all(parts: list) -> np.ndarray:
        """The distinct views of many scans; scans that present the same pattern (the partial
        products of one digit of a product) share it."""
        shared: dict = {}
        same: list = []
        many = len(parts) > 1
        keys: dict = {}  # (row's index array, start, limit) -> its cells_key (a digit's partial rows show one)
        # scans over the very same index arrays (a digit's partial rows, the sums of one digit
        # pair): one pattern, found without fingerprints
        by_arrays: dict = {}
        for p in parts:
            x, y, start, limit = p.x, p.y, p.start, p.limit
            yids = id(y.ids) if y is not None else None
            states = p.states  # (by identity here: a family is one tuple, hashing it is not free)
            ident = (id(x.ids), yids, start, limit, p.fixed_code, p.first_carry, id(states), p.op, p.carry is not None)
            got = by_arrays.get(ident)
            if got is not None:
                same.append((p, got))
                continue
            kx = (id(x.ids), start, limit)
            ky = (yids, start, limit)
            cx = keys.get(kx)
            if cx is None:
                cx = keys[kx] = cells_key(x, p, many)
            cy = keys.get(ky)
            if cy is None:
                cy = keys[ky] = cells_key(y, p, many)
            key = (p.op, cx, cy, p.fixed_code, p.first_carry, start, limit, states, p.carry is not None)
            got = shared.get(key)
            if got is not None and got is not p and many and not same_cells(p, got):
                key += (id(p),)  # the same fingerprint, other cells
                got = None
            if got is None:
                shared[key] = got = p
            else:
                same.append((p, got))
            by_arrays[ident] = got
        fresh: dict = {}  # long scans whose patterns are not made yet, by operation, family and store
        if len(SYMBOLS) == NSYM:  # (a wrong stepper's symbols outside the alphabet: one by one)
            for p in shared.values():
                if p._pattern is None and p.limit - p.start > 64:
                    fresh.setdefault((p.op, p.states, id(p.x.store)), []).append(p)
        for group in fresh.values():
            if len(group) > 1:
                Pattern.many(group)
        for p, got in same:
            p._pattern = got._pattern or got.pattern
        firsts, out, grids = [], [], set()
        for p in shared.values():
            pat = p.pattern
            firsts.append(pat.first)
            if id(pat.grid) not in grids:  # a grid shared by many patterns: its views once
                grids.add(id(pat.grid))
                out.append(pat.grid.ravel())
        return np.concatenate([np.array(firsts, dtype=np.int32)] + out)

    def codes(self) -> np.ndarray:
        return self.pattern.codes()

    def probes(self) -> list:
        where = _grid_where(self.x, self.y, self.carry, self.fixed, self.start, self.limit, len(self.states))
        return [Probe(v, w) for v, w in zip(views_from_codes(self.codes()), where)]

    def last_where(self):
        i = self.limit - 1
        y = (self.y, i) if self.y is not None else ((self.fixed, None) if self.fixed is not None else None)
        return ((self.x, i), y, (self.carry, i) if self.carry is not None else None)

    @staticmethod
    def resolve(parts: list, batch: BatchSteps, lookup: np.ndarray) -> list:
        """Follow every scan of the batch and write the followed steps: the class of each
        kind's step under each state (the state it moves its scan to, or an end), then the
        chains, then one gather per field for all the scans' cells."""
        if sum(p.limit - p.start for p in parts) <= WALK:
            return [_walk(p, batch, lookup) for p in parts]
        out = []
        for lo, hi in _slices([p.limit - p.start for p in parts]):
            out += _follow_all(parts[lo:hi], batch, lookup)
        return out


SYM_BIT, FLAG_BIT = 30, 29  # (in _follow_all's codes of followed steps)
SLICE = 1 << 22  # columns followed at once (a product of thousands of rows goes in slices)
WALK = 256  # scans of at most this many columns in all: followed one by one, in Python


def _walk(p: SelectScan, batch: BatchSteps, lookup: np.ndarray) -> Followed:
    """One short scan's chain and writes, in plain Python."""
    pat, table = p.pattern, state_table(p.states, p.carry is not None)
    steps, grid, kind, n = batch.listed(), pat.grid.ravel().tolist(), pat.kind.tolist(), pat.n
    row = lookup.item(pat.first)
    followed = [row]
    cur = table.item(steps[row])
    j = 0
    while cur >= 0 and j + 1 < pat.w:
        j += 1
        row = lookup.item(grid[kind[j - 1] * n + cur])
        followed.append(row)
        cur = table.item(steps[row])
    fields = step_fields()
    for target, k, shift in ((p.out, 0, 0), (p.carry, 1, 1)):
        if target is not None:
            got = [(c, r) for c, r in enumerate(followed, p.start + shift) if fields[steps[r]][k] != BLANK_CODE]
            if got:
                Sheet.write_steps(target, [c for c, _ in got], batch, [r for _, r in got], "sym" if k == 0 else "flag")
    return Followed(batch, followed[-1], j + 1, cur, j + 1 == pat.w)


def _slices(widths: list) -> list:
    out, lo, size = [], 0, 0
    for k, w in enumerate(widths):
        if size and size + w > SLICE:
            out.append((lo, k))
            lo, size = k, 0
        size += w
    return out + [(lo, len(widths))]


def _follow_all(parts: list, batch: BatchSteps, lookup: np.ndarray) -> list:
    """Scans that share a pattern follow the same chain: each chain once, then every scan's
    cells written (its own cells, the same stepper output rows)."""
    S = len(parts)
    L = max(p.limit - p.start for p in parts)
    n = max(len(p.states) for p in parts)
    pats, index, ids = [], {}, [id(p.pattern) for p in parts]  # (each scan's pattern, by identity)
    for p, i in zip(parts, ids):
        if i not in index:
            index[i] = (len(pats), p)
            pats.append(p.pattern)
    U = len(pats)
    grids: dict = {}  # a grid (shared by patterns made together) -> (its first row in the tables, a pattern)
    K = 0
    for pat in pats:
        key = (id(pat.grid), index[id(pat)][1].carry is not None)
        if key not in grids:
            grids[key] = (K, pat)
            K += len(pat.grid)
    rows = np.zeros((K, n), dtype=np.int32)
    classes = np.full((K, n), HALTS, dtype=np.int8)
    for lo, pat in grids.values():
        p = index[id(pat)][1]
        st = state_table(p.states, p.carry is not None)  # the scan's own family of states
        r = rows[lo : lo + len(pat.grid), : pat.n] = lookup[pat.grid]
        classes[lo : lo + len(pat.grid), : pat.n] = st[batch.steps[r]]
    firsts = lookup[np.array([pat.first for pat in pats], dtype=np.int32)]
    first_cls = np.empty(U, dtype=np.int16)
    koff, tables = [], {}  # each pattern's first row in the tables; each family's patterns
    for u, pat in enumerate(pats):
        p = index[id(pat)][1]
        key = (p.states, p.carry is not None)
        tables.setdefault(key, []).append(u)
        koff.append(grids[id(pat.grid), key[1]][0])
    for (states_, has_carry), us in tables.items():
        first_cls[us] = state_table(states_, has_carry)[batch.steps[firsts[us]]]
    lengths = np.array([pat.w for pat in pats])
    fields = (("sym", 0, [p.out for p in parts]), ("flag", 1, [p.carry for p in parts]))
    which = np.array([index[i][0] for i in ids])
    starts = np.array([p.start for p in parts])
    shared, st, ts = [], starts, [targets for _, _, targets in fields]
    if U < S:  # the scans of each pattern; a pattern of one scan is written with the rest below
        count = np.bincount(which, minlength=U)
        order = np.argsort(which, kind="stable").tolist()
        bounds = np.concatenate([[0], np.cumsum(count)]).tolist()
        shared = [(u, order[bounds[u] : bounds[u + 1]]) for u in np.flatnonzero(count > 1).tolist()]
        first_of = np.array(order)[bounds[:-1]]  # each pattern's first scan
        lone = (count == 1).tolist()
        st = starts[first_of]
        ts = [[targets[k] if one else None for k, one in zip(first_of.tolist(), lone)] for targets in ts]
    args = (pats, koff, lengths, first_cls, firsts, classes, rows, batch, L)
    if long_enough(int(lengths.sum())):
        pad = np.zeros(U, dtype=bool)  # the patterns of several scans: their steps in the padded arrays
        for u, _ in shared:
            pad[u] = True
        followed, masks, last, term, ends, picked = _compiled(*args, ts, pad)
    else:
        (followed, masks, last, term), picked = _numpy(*args), (None, None)
        ends = followed[np.arange(U), last]
    for (fld, shift, targets), mask, mine_ts, got in zip(fields, masks, ts, picked):
        if all(t is None for t in targets):
            continue
        # shared patterns (a product's partial rows): each pattern's columns once, its rows' cells at once
        for u, mine in shared:
            rows_u = [targets[k] for k in mine if targets[k] is not None]
            if rows_u:
                j = np.flatnonzero(mask[u])
                Sheet.write_shared(rows_u, j + parts[mine[0]].start + shift, batch, followed[u, j], fld)
        # the patterns of one scan each, all at once (their rows of the tables in place: no copies)
        off = [u for u, t in enumerate(mine_ts) if t is None]
        if len(off) < U:
            if off:
                mask[off] = False
            Sheet.write_masked(mine_ts, st + shift, followed, mask, batch, fld, got)
    ends = ends.tolist()
    runs = [
        Followed(batch, e, k + 1, t, k + 1 == w)
        for e, k, t, w in zip(ends, last.tolist(), term.tolist(), lengths.tolist())
    ]
    return [runs[u] for u in which.tolist()]


def _numpy(pats, koff, lengths, first_cls, firsts, classes, rows, batch, L):
    """The followed steps by numpy passes (chains.follow, then one gather): (followed rows,
    [symbol mask, flag mask], last, term)."""
    U, (K, n) = len(pats), rows.shape
    kinds = np.zeros((U, max(L - 1, 0)), dtype=np.int32)
    for u, pat in enumerate(pats):
        np.add(pat.kind, koff[u], out=kinds[u, : pat.w - 1])
    states, last, term = follow(Chains(classes, kinds, first_cls, lengths))
    # Each column's (kind, state + 1) as a flat index into a small table whose slot 0 of every
    # kind is "not followed" (state -1), and column 0's into a tail of the first columns: the
    # followed step's output row, with a bit for "has a symbol" and one for "has a flag" above
    # it (rows < 2**29), by one gather.
    n1, KN = n + 1, K * (n + 1)
    at = np.empty((U, L), dtype=np.intp if U * L <= BIG else np.int32)  # (np.take copies others as intp)
    at[:, 0] = np.arange(KN, KN + U)
    np.multiply(kinds, n1, out=at[:, 1:])
    at[:, 1:] += states[:, 1:]
    at[:, 1:] += 1
    ext = np.zeros(KN + U, dtype=np.int32)
    ext[:KN].reshape(K, n1)[:, 1:] = rows
    ext[KN:] = firsts
    for bit, (of_rows, of_firsts) in zip((SYM_BIT, FLAG_BIT), _has_fields(batch, rows, firsts)):
        has = np.zeros(KN + U, dtype=np.int32)
        has[:KN].reshape(K, n1)[:, 1:] = of_rows
        has[KN:] = of_firsts
        ext |= has << bit
    code = gather(ext, at)
    del at, kinds, states  # (their memory serves the arrays below: fresh memory is slow to touch)
    masks = [_has(code, "sym"), _has(code, "flag")]
    return np.bitwise_and(code, (1 << FLAG_BIT) - 1, out=code), masks, last, term


def _compiled(pats, koff, lengths, first_cls, firsts, classes, rows, batch, L, ts, pad):
    """The same by one compiled walk along every scan (compiled.py), for long batches (the padded
    arrays only for the patterns with pad), with each pattern's last step's row, and each
    field's steps to write for the patterns of one scan each (ts: their rows; placing.Masked)."""
    from . import compiled  # lazy: numba's import costs ~0.4 s once a process; short batches never pay it

    widths = lengths.astype(np.int64)
    kinds = np.concatenate([pat.kind for pat in pats]) if len(pats) > 1 else pats[0].kind
    kstart = np.cumsum(widths - 1) - (widths - 1)
    has = _has_fields(batch, rows, firsts)
    takes = [np.array([t is not None for t in targets], dtype=bool) for targets in ts]
    followed, sym_mask, flag_mask, last, term, ends, *picked = compiled.follow_into(
        np.ascontiguousarray(kinds, dtype=np.int32), kstart, widths, np.array(koff, dtype=np.int64),
        first_cls, firsts.astype(np.int32), has[0][1], has[1][1], (classes, rows, has[0][0], has[1][0]), takes, pad, L,
    )  # fmt: skip
    return followed, [sym_mask, flag_mask], last, term, ends, [placing.Masked(*p) for p in picked]


def _has_fields(batch: BatchSteps, rows: np.ndarray, firsts: np.ndarray) -> list:
    """Whether the steps at stepper output rows `rows` (the tables) and `firsts` (each pattern's
    first column) have a symbol, then whether they have a flag: [(rows', firsts'), (...)]."""
    steps = batch.steps
    return [(t[steps[rows]] != BLANK_CODE, t[steps[firsts]] != BLANK_CODE) for t in (STEP_SYM, STEP_FLAG)]


def _has(code: np.ndarray, fld: str) -> np.ndarray:
    """Which followed steps (codes of _follow_all) have a symbol, or a flag."""
    return code >= (1 << SYM_BIT) if fld == "sym" else (code & (1 << FLAG_BIT)) != 0


class Followed:
    """A scan's followed (and written) run: the stepper output row of its last step, how many
    columns it followed, and how it ended (HALTS, OUTSIDE, or a state >= 0 when it ran past
    its last column)."""

    __slots__ = ("batch", "last_row", "w", "term", "at_end")

    def __init__(self, batch, last_row, w, term, at_end):
        self.batch, self.last_row, self.w, self.term, self.at_end = batch, last_row, w, term, at_end


def scan_select(op: str, x: Row, y, carry, out, start: int, limit: int, fixed, states):
    """Carry-select scan: one batch with every column under every state of the family (the
    first column only under its real state), then follow the emitted states column by column.
    Only the followed steps are written, so the sheet equals the sequential scan's sheet."""
    (run,) = yield [SelectScan(op, x, y, carry, out, start, limit, fixed, states)]
    return _ended(op, carry, start, limit, run)


def _ended(op: str, carry, start: int, limit: int, run: Followed):
    """A carry-select scan's (last step, its column), or the fault its followed run shows."""
    step = StepRow(run.batch, run.last_row)
    if run.term == HALTS:
        return step, start + run.w - 1
    if run.term == OUTSIDE and not run.at_end:
        state = (step.next, step.flag if carry is not None else "_")
        raise StepperFault(f"stepper moved a {op} scan to state {state}, outside its family")
    raise StepperFault(f"a {op} scan did not halt after {limit} columns")


def select_scans(op: str, xs: list, ys: list, carries: list, outs: list, starts: list, fixed=None) -> list | None:
    """Carry-select scans of `op`, the k-th over rows xs[k] and ys[k] into carries[k] and
    outs[k] from column starts[k], as `scan` would make them in the parallel mode (built at once,
    for a product's thousands of rows); None when one of them has no family (it scans column by
    column).  `fixed`: (cells, their symbol codes; -1 for None), the k-th read in every column
    of the k-th scan (a product row's multiplier digit)."""
    n = len(xs)
    cells, codes = fixed if fixed is not None else ([None] * n, [-1] * n)
    if op == MUL:  # (a row's family by its digit's code, as `family` finds it by the cell's symbol)
        fams = {c: _MUL_FAMILIES.get(SYMBOLS[c]) if c >= 0 else None for c in set(codes)}
        if any(f is None for f in fams.values()):
            return None
        states = [fams[c] for c in codes]
    else:
        states = [family(op, None)] * n
        if n and states[0] is None:
            return None
    parts, new = [], object.__new__
    for x, y, carry, out, start, cell, code, st in zip(xs, ys, carries, outs, starts, cells, codes, states):
        p = new(SelectScan)  # as __init__ makes it (one slot a statement: no tuples)
        p.op = op
        p.x = x
        p.y = y
        p.carry = carry
        p.out = out
        p.fixed = cell
        p.fixed_code = code
        w, wy = len(x.ids), len(y.ids) if y is not None else 0
        p.limit = limit = (w if w >= wy else wy) + 2  # (max(), without its call)
        p.first_carry = carry.code(start) if carry is not None else BLANK_CODE  # (as __init__)
        p.start = start
        p.states = st
        p.size = 1 + (limit - start - 1) * len(st)
        p._pattern = None
        parts.append(p)
    return parts


def scan_all(parts: list):
    """Many carry-select scans as one batch (a level of a product's sum: no generator per
    scan); returns each scan's (last step, its column), as `scan` does, or None when every
    scan halted on a HALT step (the usual case: nothing to look at one by one)."""
    runs = yield parts
    own = set(runs)  # (scans of one pattern share their run)
    if own and all(r.term == HALTS for r in own):
        rows = np.array([r.last_row for r in own])
        if (STEP_NEXT[runs[0].batch.steps[rows]] == NEXT[HALT]).all():
            return None
    return [_ended(p.op, p.carry, p.start, p.limit, run) for p, run in zip(parts, runs)]
