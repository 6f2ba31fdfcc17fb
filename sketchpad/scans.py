"""Column scans: the runtime's walk along a row, from the units column upwards.

`scan` presents (op, x_i, y_i, carry_i) column by column and writes each step's symbol to
out[i] and its carry to carry[i + 1].  Three ways, one sheet:

- sequential: one view per batch, the next column's state from the step just emitted;
- carry-select (parallel mode): one `SelectScan` part presents every column under every state
  of its family as one block of view codes; after the batch the runtime follows the emitted
  states for all scans of the batch at once (chains.py) and each scan writes its followed
  steps with one gather;
- inside a speculative block: the same following, against the answers the speculative batch
  already holds (a whole trial subtraction at once); where an answer is missing the scan goes
  on column by column, as the sequential code would.
"""

from __future__ import annotations

import numpy as np

from .chains import HALTS, MISS, OUTSIDE, Chains, follow, follow_row
from .codes import (
    BLANK_CODE,
    NSYM,
    OP,
    STEP_FLAG,
    STEP_SYM,
    SYM,
    SYMBOLS,
    code4,
    state_table,
    view_code,
    views_from_codes,
    views_of,
)
from .errors import StepperFault
from .parts import FAMILIES, MUL_CARRIES, PARALLEL, SPECULATION, Ask, Presented, Probe
from .sheet import BatchSteps, Row, Sheet, StepRow
from .symbols import MUL, SCAN_OPS, View


def _family(op: str, fixed) -> tuple | None:
    """The states a carry-select scan of `op` presents each column under, or None (no
    carry-select for this scan).  A product row's states depend on its multiplier digit."""
    if op == MUL:
        d = fixed.sym if fixed is not None else None
        return tuple((MUL, c) for c in MUL_CARRIES[d]) if d in MUL_CARRIES else None
    return FAMILIES.get(op)


def scan(op: str, x: Row, y: Row | None = None, carry: Row | None = None, out: Row | None = None, start=0, fixed=None):
    """Walk columns upwards from `start`, presenting (op, x_i, y_i, carry_i).

    `fixed` replaces y with one cell for every column (the multiplier digit of a product row).
    Each step's symbol goes to out[i] and its carry to carry[i+1]; the scan goes on while the
    step names a column operation and returns the last step and its column when it names a
    control word.  A scan that runs past its operands is a stepper fault, never a hang.
    """
    limit = max(x.width(), y.width() if y is not None else 0) + 2
    if PARALLEL.get():
        states = _family(op, fixed)
        if states is not None:
            return (yield from _scan_select(op, x, y, carry, out, start, limit, fixed, states))
    i = start
    spec = SPECULATION.get()
    if spec is not None:  # a carry usually stops within a column or two: those column by column
        states = _family(op, fixed)
        bulk_at = start + (PREFIX if states is not None and len(states) == 1 else 0)
    fixed_code = fixed.code if fixed is not None else BLANK_CODE
    x_code, op_code = x.code, OP[op]
    while True:
        if spec is not None and i == bulk_at:
            done, i, op = _scan_answered(spec, op, x, y, carry, out, i, limit, fixed)
            if done is not None:
                return done
            spec, op_code = None, OP[op]
        b = y.code(i) if y is not None else fixed_code
        c = carry.code(i) if carry is not None else BLANK_CODE
        where = ((x, i), (y, i) if y is not None else (fixed, None), (carry, i) if carry is not None else None)
        answers = yield [Ask(code4(op_code, x_code(i), b, c), where)]
        step = answers[0]
        _write(out, carry, i, step)
        if step.next not in SCAN_OPS:
            return step, i
        op = step.next
        op_code = OP[op]
        i += 1
        if i > limit:
            raise StepperFault(f"a {op} scan did not halt after {limit} columns")


PREFIX = 3  # columns of a one-state scan (an increment) walked before the rest is followed at once


def _write(out: Row | None, carry: Row | None, i: int, step: StepRow) -> None:
    """A scan step's symbol goes to out[i], its carry to carry[i+1] (blanks are not written)."""
    if out is not None and step.sym != "_":
        Sheet.write(out, i, step)
    if carry is not None and step.flag != "_":
        Sheet.write(carry, i + 1, step, "flag")


def _write_followed(out, carry, start: int, batch: BatchSteps, rows: np.ndarray) -> None:
    """The followed steps of columns start, start+1, ...: one gather per row written."""
    codes = batch.steps[rows]
    cols = np.arange(start, start + len(rows))
    if out is not None:
        keep = STEP_SYM[codes] != BLANK_CODE
        Sheet.write_steps(out, cols[keep], batch, rows[keep], "sym")
    if carry is not None:
        keep = STEP_FLAG[codes] != BLANK_CODE
        Sheet.write_steps(carry, cols[keep] + 1, batch, rows[keep], "flag")


class Pattern:
    """The views of columns start..limit-1 of a row: the first column under (op, first carry),
    every other under every state.  Column j >= 1 presents (state, x, y) for each state, so the
    distinct views are the distinct (x, y) symbol pairs of the columns ("kinds") under every
    state: kind[j-1] is column j's kind, grid[kind, k] its view code under states[k]."""

    __slots__ = ("first", "kind", "grid", "w", "n")

    def __init__(self, op: str, x: Row, y: Row | None, fixed, first_carry: int, start: int, limit: int, states):
        a = x.syms(start, limit)
        if y is not None:
            b = y.syms(start, limit)
        else:
            b = np.empty(limit - start, dtype=np.uint8)
            b.fill(fixed.code if fixed is not None else BLANK_CODE)
        self.w, self.n = limit - start, len(states)
        self.first = code4(OP[op], int(a[0]), int(b[0]), first_carry)
        if self.w <= 64:  # short: in Python
            kinds: dict = {}
            self.kind = np.array(
                [kinds.setdefault(p, len(kinds)) for p in zip(a[1:].tolist(), b[1:].tolist())], np.int32
            )
            ops = [(OP[o], SYM[c]) for o, c in states]
            grid = [code4(o, ka, kb, c) for ka, kb in kinds for o, c in ops]
            self.grid = np.array(grid, dtype=np.int32).reshape(len(kinds), len(states))
            return
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
        so, sc = _state_codes(states)
        self.grid = views_of(so, (kinds // base)[:, None], (kinds % base)[:, None], sc)

    def distinct(self) -> np.ndarray:
        return np.concatenate([np.array([self.first], dtype=np.int32), self.grid.ravel()])

    def codes(self) -> np.ndarray:
        """Every presented view code, in order: the first column, then column by column."""
        return np.concatenate([np.array([self.first], dtype=np.int32), self.grid[self.kind].ravel()])

    def size(self) -> int:
        return 1 + (self.w - 1) * self.n


_STATE_CODES: dict = {}


def _state_codes(states) -> tuple:
    """(operation codes, carry codes) of a family's states, as rows to broadcast."""
    got = _STATE_CODES.get(states)
    if got is None:
        so = np.array([[OP[o] for o, _ in states]], dtype=np.int32)
        sc = np.array([[SYM[c] for _, c in states]], dtype=np.int32)
        got = _STATE_CODES[states] = (so, sc)
    return got


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

    __slots__ = ("op", "x", "y", "carry", "out", "fixed", "start", "limit", "states", "first_carry", "size", "_pattern")

    def __init__(self, op, x, y, carry, out, start, limit, fixed, states):
        self.op, self.x, self.y, self.carry, self.out, self.fixed = op, x, y, carry, out, fixed
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
        for p in parts:
            key = (p.op, id(p.x), id(p.y), p.fixed.code if p.fixed is not None else -1, p.first_carry)
            key += (p.start, p.limit, p.states, p.carry is not None)
            got = shared.get(key)
            if got is None:
                shared[key] = got = p.pattern
            p._pattern = got
        return np.concatenate([pat.distinct() for pat in shared.values()])

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


SLICE = 1 << 22  # columns followed at once (a product of thousands of rows goes in slices)
WALK = 256  # scans of at most this many columns in all: followed one by one, in Python


def _walk(p: SelectScan, batch: BatchSteps, lookup: np.ndarray) -> Followed:
    """One short scan's chain and writes, in Python."""
    pat, table = p.pattern, state_table(p.states, p.carry is not None)
    steps, grid, kind, n = batch.steps, pat.grid.ravel().tolist(), pat.kind.tolist(), pat.n
    row = int(lookup[pat.first])
    followed = [row]
    cur = int(table[steps[row]])
    j = 0
    while cur >= 0 and j + 1 < pat.w:
        j += 1
        row = int(lookup[grid[kind[j - 1] * n + cur]])
        followed.append(row)
        cur = int(table[steps[row]])
    rows = np.array(followed, dtype=np.int32)
    codes = steps[rows]
    cols = np.arange(p.start, p.start + len(rows))
    if p.out is not None:
        keep = STEP_SYM[codes] != BLANK_CODE
        Sheet.write_steps(p.out, cols[keep], batch, rows[keep], "sym")
    if p.carry is not None:
        keep = STEP_FLAG[codes] != BLANK_CODE
        Sheet.write_steps(p.carry, cols[keep] + 1, batch, rows[keep], "flag")
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
    pats, index = [], {}
    for p in parts:
        if id(p.pattern) not in index:
            index[id(p.pattern)] = (len(pats), p)
            pats.append(p.pattern)
    U = len(pats)
    offsets = np.cumsum([0] + [len(pat.grid) for pat in pats])
    rows = np.zeros((int(offsets[-1]), n), dtype=np.int32)
    classes = np.full((int(offsets[-1]), n), HALTS, dtype=np.int8)
    firsts = np.empty(U, dtype=np.int32)
    first_cls = np.empty(U, dtype=np.int16)
    kinds = np.zeros((U, max(L - 1, 0)), dtype=np.int32)
    for u, pat in enumerate(pats):
        p = index[id(pat)][1]
        st = state_table(p.states, p.carry is not None)  # the scan's own family of states
        lo, hi = offsets[u], offsets[u + 1]
        r = rows[lo:hi, : pat.n] = lookup[pat.grid]
        classes[lo:hi, : pat.n] = st[batch.steps[r]]
        firsts[u] = lookup[pat.first]
        first_cls[u] = st[batch.steps[firsts[u]]]
        kinds[u, : pat.w - 1] = pat.kind + lo
    lengths = np.array([pat.w for pat in pats])
    states, last, term = follow(Chains(classes, kinds, first_cls, lengths))
    followed = np.empty((U, L), dtype=np.int32)  # the stepper output row of each followed step
    followed[:, 0] = firsts
    followed[:, 1:] = rows.reshape(-1)[kinds * n + np.maximum(states[:, 1:], 0)]
    on = np.arange(L) <= last[:, None]
    codes = batch.steps[followed]
    which = np.array([index[id(p.pattern)][0] for p in parts])
    fields = (("sym", STEP_SYM, 0, [p.out for p in parts]), ("flag", STEP_FLAG, 1, [p.carry for p in parts]))
    if U < S:  # shared patterns (a product's partial rows): each pattern's columns once, its rows' cells at once
        for u in range(U):
            mine = np.flatnonzero(which == u)
            for fld, table, shift, targets in fields:
                rows_u = [targets[k] for k in mine.tolist() if targets[k] is not None]
                if rows_u:
                    j = np.flatnonzero(on[u] & (table[codes[u]] != BLANK_CODE))
                    start = parts[int(mine[0])].start
                    Sheet.write_shared(rows_u, j + start + shift, batch, followed[u, j], fld)
    else:
        starts = np.array([p.start for p in parts])
        for fld, table, shift, targets in fields:
            has = np.array([t is not None for t in targets])
            if has.any():
                mask = on & (table[codes] != BLANK_CODE) & has[:, None]
                Sheet.write_masked(targets, starts + shift, followed, mask, batch, fld)
    ends = followed[np.arange(U), last]
    runs = [
        Followed(batch, int(e), int(k) + 1, int(t), int(k) + 1 == w) for e, k, t, w in zip(ends, last, term, lengths)
    ]
    return [runs[u] for u in which.tolist()]


class Followed:
    """A scan's followed (and written) run: the stepper output row of its last step, how many
    columns it followed, and how it ended (HALTS, OUTSIDE, or a state >= 0 when it ran past
    its last column)."""

    __slots__ = ("batch", "last_row", "w", "term", "at_end")

    def __init__(self, batch, last_row, w, term, at_end):
        self.batch, self.last_row, self.w, self.term, self.at_end = batch, last_row, w, term, at_end


def _scan_select(op: str, x: Row, y, carry, out, start: int, limit: int, fixed, states):
    """Carry-select scan: one batch with every column under every state of the family (the
    first column only under its real state), then follow the emitted states column by column.
    Only the followed steps are written, so the sheet equals the sequential scan's sheet."""
    (run,) = yield [SelectScan(op, x, y, carry, out, start, limit, fixed, states)]
    step = StepRow(run.batch, run.last_row)
    if run.term == HALTS:
        return step, start + run.w - 1
    if run.term == OUTSIDE and not run.at_end:
        state = (step.next, step.flag if carry is not None else "_")
        raise StepperFault(f"stepper moved a {op} scan to state {state}, outside its family")
    raise StepperFault(f"a {op} scan did not halt after {limit} columns")


BULK = 24  # shorter scans in a speculative block are answered column by column


def _scan_answered(answers, op: str, x: Row, y, carry, out, start: int, limit: int, fixed):
    """A sequential scan inside a speculative block, answered from the block's batch: the
    columns whose views the batch holds, followed and written at once.  Returns (done, i, op):
    done = (last step, its column) when the scan ended, else the column and operation the
    sequential walk goes on from (its view is not in the batch, or its state is not one the
    batch presented)."""
    states = _family(op, fixed)
    w = limit - start + 1  # the sequential scan may present column `limit` too
    if states is None or w < BULK:  # column by column, each answered from the batch
        return None, start, op
    # Each column under each state, looked up (no kinds: one row, a few states, looked up once).
    a = x.syms(start, limit + 1).astype(np.int32)
    if y is not None:
        b = y.syms(start, limit + 1).astype(np.int32)
    else:
        b = np.full(w, fixed.code if fixed is not None else BLANK_CODE, dtype=np.int32)
    c0 = carry.code(start) if carry is not None else BLANK_CODE
    so, sc = _state_codes(states)
    st, steps = state_table(states, carry is not None), answers.batch.steps
    rows = answers.lookup[views_of(so, a[1:, None], b[1:, None], sc)]  # [column - 1, state]
    first = int(answers.lookup[code4(OP[op], int(a[0]), int(b[0]), c0)])
    cls = st[steps[rows]]
    cls[rows < 0] = MISS
    path, last, term = follow_row(MISS if first < 0 else int(st[steps[first]]), cls, np.arange(w - 1), w)
    n_written = last if term == MISS else last + 1
    followed = np.empty(n_written, dtype=np.int32)
    if n_written:
        followed[0] = first
        followed[1:] = rows[np.arange(n_written - 1), path[1:n_written]]
    _write_followed(out, carry, start, answers.batch, followed)
    if term == MISS:
        return None, start + last, op if last == 0 else states[int(path[last])][0]
    step = StepRow(answers.batch, int(followed[-1]))
    if term == HALTS:
        return (step, start + last), None, None
    if term == OUTSIDE and start + last < limit:
        return None, start + last + 1, step.next
    raise StepperFault(f"a {step.next} scan did not halt after {limit} columns")


def sign_code(op: str, a: Row, b: Row | None, c: Row | None = None, ci: int = 0):
    """The view of a sign decision: (op, sign of a, sign of b, flag cell), and where it was read."""
    code = view_code(op, a.sign_sym(), b.sign_sym() if b is not None else "_", c.sym(ci) if c is not None else "_")
    where = ((a, "sign"), (b, "sign") if b is not None else None, (c, ci) if c is not None else None)
    return code, where


__all__ = ["SelectScan", "View", "scan", "select_probes", "sign_code"]
