"""Column scans: the runtime's walk along a row, from the units column upwards.

`scan` presents (op, x_i, y_i, carry_i) column by column and writes each step's symbol to
out[i] and its carry to carry[i + 1].  Three ways, one sheet:

- sequential: one view per batch, the next column's state from the step just emitted;
- carry-select (parallel mode, carry_select.py): one `SelectScan` part presents every column
  under every state of its family as one block of view codes; after the batch the runtime
  follows the emitted states for all scans of the batch at once (chains.py) and each scan
  writes its followed steps with one gather;
- inside a speculative block: the same following, against the answers the speculative batch
  already holds (a whole trial subtraction at once); where an answer is missing the scan goes
  on column by column, as the sequential code would.
"""

from __future__ import annotations

import numpy as np

from .batch_steps import BatchSteps, StepRow
from .carry_select import family, scan_select
from .chains import HALTS, MISS, OUTSIDE, follow_row
from .codes import (
    BLANK_CODE,
    NSYM,
    OP,
    STEP_FLAG,
    STEP_SYM,
    SYMBOLS,
    code4,
    state_table,
    step_fields,
    view_code,
    views_of,
)
from .errors import StepperFault
from .parts import PARALLEL, SPECULATION, Ask
from .patterns import codes_of, state_base, state_codes
from .sheet import Row, Sheet
from .symbols import OPS, SCAN_OPS, View


def scan(op: str, x: Row, y: Row | None = None, carry: Row | None = None, out: Row | None = None, start=0, fixed=None):
    """Walk columns upwards from `start`, presenting (op, x_i, y_i, carry_i).

    `fixed` replaces y with one cell for every column (the multiplier digit of a product row).
    Each step's symbol goes to out[i] and its carry to carry[i+1]; the scan goes on while the
    step names a column operation and returns the last step and its column when it names a
    control word.  A scan that runs past its operands is a stepper fault, never a hang.
    """
    limit = max(x.width(), y.width() if y is not None else 0) + 2
    if PARALLEL.get():
        states = family(op, fixed)
        if states is not None:
            return (yield from scan_select(op, x, y, carry, out, start, limit, fixed, states))
    i = start
    spec = SPECULATION.get()
    fixed_code = fixed.code if fixed is not None else BLANK_CODE
    if spec is not None and carry is not x and carry is not y:  # answered from the block's batch
        states = family(op, fixed)
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


BULK = 64  # shorter scans in a speculative block are walked in plain Python (_walk_answered)


def _scan_answered(answers, op: str, x: Row, y, carry, out, start: int, limit: int, fixed):
    """A sequential scan inside a speculative block, answered from the block's batch: the
    columns whose views the batch holds, followed and written at once.  Returns (done, i, op):
    done = (last step, its column) when the scan ended, else the column and operation the
    sequential walk goes on from (its view is not in the batch, or its state is not one the
    batch presented)."""
    states = family(op, fixed)
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


__all__ = ["View", "scan", "sign_code"]
