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

from .batch_steps import BatchSteps, StepRow
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
    step_fields,
    view_code,
    views_from_codes,
    views_of,
)
from .errors import StepperFault
from .parts import FAMILIES, MUL_CARRIES, PARALLEL, SPECULATION, Ask, Presented, Probe
from .patterns import Pattern, cells_key, codes_of, same_cells, state_base, state_codes
from .sheet import Row, Sheet
from .symbols import MUL, OPS, SCAN_OPS, View


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
    fixed_code = fixed.code if fixed is not None else BLANK_CODE
    if spec is not None and carry is not x and carry is not y:  # answered from the block's batch
        states = _family(op, fixed)
        head = PREFIX if states is not None and len(states) == 1 else 0  # a carry usually stops within a few
        bulk = states is not None and limit - start - head + 1 >= BULK
        done, i, op_code = _walk_answered(
            spec, OP[op], x, y, carry, out, fixed_code, start, start + head if bulk else limit + 1, limit
        )
        if done is not None:
            return done
        op = OPS[op_code]
        if bulk and i == start + head:
            done, i, op = _scan_answered(spec, op, x, y, carry, out, i, limit, fixed)
            if done is not None:
                return done
    x_code, op_code = x.code, OP[op]
    while True:
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


def _walk_answered(answers, op_code: int, x: Row, y, carry, out, fixed_code: int, i: int, stop: int, limit: int):
    """The sequential walk of columns i..stop-1, each view answered from the speculative
    block's batch (a short scan: plain Python, its cells written with one gather per row).
    Returns (done, i, op): done = (last step, its column) when the scan ended, else the column
    and operation code the walk goes on from (its view is not in the batch, or it is stop)."""
    if i >= stop:
        return None, i, op_code
    lookup, batch = answers.lookup, answers.batch
    steps, fields = batch.listed(), step_fields()
    xs = codes_of(x, i, stop)
    ys = codes_of(y, i, stop) if y is not None else None
    cs = codes_of(carry, i, stop + 1) if carry is not None else None
    c = cs[0] if cs is not None else BLANK_CODE
    sym_cols, sym_rows, flag_cols, flag_rows = [], [], [], []
    done = None
    j = 0
    while i < stop:
        a, b = xs[j], ys[j] if ys is not None else fixed_code
        if a < NSYM and b < NSYM and c < NSYM:
            code = ((op_code * NSYM + a) * NSYM + b) * NSYM + c
        else:
            code = code4(op_code, a, b, c)
        row = lookup.item(code)
        if row < 0:  # not in the batch: the caller asks it (the block falls back)
            break
        sym, flag, nxt = fields[steps[row]]
        if out is not None and sym != BLANK_CODE:
            sym_cols.append(i)
            sym_rows.append(row)
        if cs is not None:
            if flag != BLANK_CODE:
                flag_cols.append(i + 1)
                flag_rows.append(row)
                c = flag
            else:
                c = cs[j + 1]
        if nxt < 0:
            done = (StepRow(batch, row), i)
            break
        op_code = nxt  # an operation's code is its code as a next word
        i += 1
        j += 1
        if i > limit:
            _flush(out, carry, batch, sym_cols, sym_rows, flag_cols, flag_rows)
            raise StepperFault(f"a {OPS[op_code]} scan did not halt after {limit} columns")
    _flush(out, carry, batch, sym_cols, sym_rows, flag_cols, flag_rows)
    return done, i, op_code


def _flush(out, carry, batch, sym_cols, sym_rows, flag_cols, flag_rows) -> None:
    if sym_cols:
        Sheet.write_steps(out, sym_cols, batch, sym_rows, "sym")
    if flag_cols:
        Sheet.write_steps(carry, flag_cols, batch, flag_rows, "flag")


PREFIX = 3  # columns of a one-state scan (an increment) walked before the rest is followed at once


def _write(out: Row | None, carry: Row | None, i: int, step: StepRow) -> None:
    """A scan step's symbol goes to out[i], its carry to carry[i+1] (blanks are not written)."""
    if out is not None and step.sym != "_":
        Sheet.write(out, i, step)
    if carry is not None and step.flag != "_":
        Sheet.write(carry, i + 1, step, "flag")


def _write_followed(out, carry, start: int, batch: BatchSteps, rows: np.ndarray) -> None:
    """The followed steps of columns start, start+1, ...: one gather per row written."""
    if not len(rows):
        return
    codes = batch.steps[rows]
    cols = np.arange(start, start + len(rows))
    if out is not None:
        keep = STEP_SYM[codes] != BLANK_CODE
        if keep[:-1].all():  # every column has a symbol, but perhaps the last (the usual case)
            n = len(rows) - (not keep[-1])
            Sheet.write_steps(out, cols[:n], batch, rows[:n], "sym")
        else:
            Sheet.write_steps(out, cols[keep], batch, rows[keep], "sym")
    if carry is not None:
        keep = STEP_FLAG[codes] != BLANK_CODE
        Sheet.write_steps(carry, cols[keep] + 1, batch, rows[keep], "flag")


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
        same: list = []
        many = len(parts) > 1
        for p in parts:
            key = (p.op, cells_key(p.x, p, many), cells_key(p.y, p, many))
            key += (p.fixed.code if p.fixed is not None else -1, p.first_carry)
            key += (p.start, p.limit, p.states, p.carry is not None)
            got = shared.get(key)
            if got is not None and got is not p and many and not same_cells(p, got):
                key += (id(p),)  # the same fingerprint, other cells
                got = None
            if got is None:
                shared[key] = p
            else:
                same.append((p, got))
        fresh: dict = {}  # long scans whose patterns are not made yet, by operation, family and store
        if len(SYMBOLS) == NSYM:  # (a wrong stepper's symbols outside the alphabet: one by one)
            for p in shared.values():
                if p._pattern is None and p.limit - p.start > 64:
                    fresh.setdefault((p.op, p.states, id(p.x.store)), []).append(p)
        for group in fresh.values():
            if len(group) > 1:
                Pattern.many(group)
        for p, got in same:
            p._pattern = got.pattern
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
    pats, index = [], {}
    for p in parts:
        if id(p.pattern) not in index:
            index[id(p.pattern)] = (len(pats), p)
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
    kinds = np.zeros((U, max(L - 1, 0)), dtype=np.int32)
    tables = {}  # each family's state table, and the patterns that read it
    for u, pat in enumerate(pats):
        p = index[id(pat)][1]
        key = (p.states, p.carry is not None)
        tables.setdefault(key, []).append(u)
        np.add(pat.kind, grids[id(pat.grid), key[1]][0], out=kinds[u, : pat.w - 1])
    for (states_, has_carry), us in tables.items():
        first_cls[us] = state_table(states_, has_carry)[batch.steps[firsts[us]]]
    lengths = np.array([pat.w for pat in pats])
    states, last, term = follow(Chains(classes, kinds, first_cls, lengths))
    # (kind, state) -> flat index into the batch's small tables; the followed steps' output
    # rows and which of them have a symbol (a flag) to write, by one gather each
    at = kinds * n
    at += np.maximum(states[:, 1:], 0)
    followed = np.empty((U, L), dtype=np.int32)  # the stepper output row of each followed step
    followed[:, 0] = firsts
    followed[:, 1:] = rows.reshape(-1)[at]
    off = np.arange(L) > last[:, None]
    which = np.array([index[id(p.pattern)][0] for p in parts])
    starts = np.array([p.start for p in parts])
    if U < S:  # the scans of each pattern; patterns of one scan apart
        count = np.bincount(which, minlength=U)
        order = np.argsort(which, kind="stable").tolist()
        bounds = np.concatenate([[0], np.cumsum(count)]).tolist()
        shared = [(u, order[bounds[u] : bounds[u + 1]]) for u in np.flatnonzero(count > 1).tolist()]
        lone = np.flatnonzero(count[which] == 1)
        lone_u = which[lone]
    fields = (("sym", STEP_SYM, 0, [p.out for p in parts]), ("flag", STEP_FLAG, 1, [p.carry for p in parts]))
    for fld, table, shift, targets in fields:
        if all(t is None for t in targets):
            continue
        has = (table[batch.steps[rows]] != BLANK_CODE).reshape(-1)
        mask = np.empty((U, L), dtype=bool)
        mask[:, 0] = table[batch.steps[firsts]] != BLANK_CODE
        mask[:, 1:] = has[at]
        np.putmask(mask, off, False)
        if U < S:  # shared patterns (a product's partial rows): each pattern's columns once, its rows' cells at once
            for u, mine in shared:
                rows_u = [targets[k] for k in mine if targets[k] is not None]
                if rows_u:
                    j = np.flatnonzero(mask[u])
                    Sheet.write_shared(rows_u, j + parts[mine[0]].start + shift, batch, followed[u, j], fld)
            # patterns of one scan each (most of a level of sums that share only some): all at once
            ts = [targets[k] for k in lone]
            if any(t is not None for t in ts):
                m = mask[lone_u] & np.array([t is not None for t in ts])[:, None]
                Sheet.write_masked(ts, starts[lone] + shift, followed[lone_u], m, batch, fld)
        else:
            mask &= np.array([t is not None for t in targets])[:, None]
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


BULK = 64  # shorter scans in a speculative block are walked in plain Python (_walk_answered)


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
        b = y.syms(start, limit + 1)
    else:
        b = np.full(w, fixed.code if fixed is not None else BLANK_CODE, dtype=np.uint8)
    c0 = carry.code(start) if carry is not None else BLANK_CODE
    st, steps = state_table(states, carry is not None), answers.batch.steps
    if len(SYMBOLS) == NSYM:  # a view code is (op, carry)'s part plus the column's (x, y) part
        a *= NSYM
        a += b
        a *= NSYM
        views = a[1:, None] + state_base(states)
        first = int(answers.lookup[int(a[0]) + OP[op] * NSYM**3 + c0])
    else:
        so, sc = state_codes(states)
        views = views_of(so, a[1:, None], b[1:, None].astype(np.int32), sc)
        first = int(answers.lookup[code4(OP[op], int(a[0]), int(b[0]), c0)])
    rows = answers.lookup[views]  # [column - 1, state]
    cls = st[steps[rows]]
    cls[rows < 0] = MISS
    path, last, term = follow_row(MISS if first < 0 else int(st[steps[first]]), cls, None, w)
    n_written = last if term == MISS else last + 1
    followed = np.empty(n_written, dtype=np.int32)
    if n_written:
        followed[0] = first
        followed[1:] = rows.reshape(-1)[np.arange(0, (n_written - 1) * len(states), len(states)) + path[1:n_written]]
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
