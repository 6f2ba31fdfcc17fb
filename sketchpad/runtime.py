"""The fixed runtime: it moves the view, hands batches of views to a stepper, and writes
what the steps say where the procedure says.  It never computes a symbol.

Procedures are Python generators.  A procedure yields a list of probes (a view and the three
sheet positions it was read from) and receives the list of steps for them.  `drive` sends
each yielded list to the stepper as one batch: each *distinct* view of the batch goes through
the stepper once (one forward row), and its step is handed back wherever the view was
presented.  Nothing is kept between batches: every batch asks the stepper afresh.
`together` runs several procedures in lock step and merges their requests into one batch;
`speculate` presents every view a stretch of sequential work could need in one batch and then
runs that sequential work against the batch's steps (parallel quotient and root digits).
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from .errors import StepperFault
from .sheet import Row, Sheet
from .symbols import ADD, ADD2, BLANK, CMP_EQ, CMP_GT, CMP_LT, DIGITS, HALT, INC, MUL, SCAN_OPS, SUB, ZT, Step, View

# Parallel (carry-select) mode: a scan presents every column at once, under every state the
# column could be entered in, then follows the states the steps emitted.  The states of each
# family are the (operation, carry) pairs a scan of that family can pass between columns.
PARALLEL = contextvars.ContextVar("sketchpad_parallel", default=True)
FAMILIES = {
    ADD: ((ADD, BLANK), (ADD, "1")),
    SUB: ((SUB, BLANK), (SUB, "1")),
    CMP_EQ: ((CMP_EQ, BLANK), (CMP_LT, BLANK), (CMP_GT, BLANK)),
    ZT: ((ZT, BLANK),),
    INC: ((INC, BLANK),),
    ADD2: ((INC, BLANK),),
}
# A partial-product row a x d: the carries that can enter a column are blank and 1..d-1 (the
# MUL views of V); a carry-select MUL scan presents each column under those states.
MUL_CARRIES = {d: (BLANK,) + tuple(str(k) for k in range(1, int(d))) for d in DIGITS}


class Stepper(Protocol):
    name: str

    def __call__(self, views: list[View]) -> list[Step]: ...


@dataclass
class Counters:
    """forward_passes: forward rows the stepper computed (distinct views per batch, summed);
    views_presented: views the runtime presented (a view presented twice in one batch counts
    twice); batches: stepper calls (sequential depth); views: the distinct views of the solve;
    fallbacks: speculative blocks that met a view their batch had not presented (0 for a
    stepper that is exact on V)."""

    forward_passes: int = 0
    views_presented: int = 0
    batches: int = 0
    seconds: float = 0.0
    stepper_seconds: float = 0.0
    views: set = field(default_factory=set)
    fallbacks: int = 0

    def as_dict(self) -> dict:
        return {
            "forward_passes": self.forward_passes,
            "views_presented": self.views_presented,
            "batches": self.batches,
            "views_used": len(self.views),
            "seconds": round(self.seconds, 6),
            "stepper_seconds": round(self.stepper_seconds, 6),
        }


# The counters of the run being driven (speculate records its fallbacks there).
_COUNTERS: contextvars.ContextVar = contextvars.ContextVar("sketchpad_counters", default=None)


@contextlib.contextmanager
def _no_collector():
    """No garbage-collector pauses inside a solve: a run makes many small acyclic objects
    (cells, rows, probes), and generational collections over a process that holds a model
    cost more than the run itself.  Restored afterwards; nested runs are fine."""
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Probe(NamedTuple):
    """A view plus where its cells were read (for drawing and traces only)."""

    view: View
    where: object


class Run:
    """One solve: the stepper, the counters, and optional trace of (view, step) pairs."""

    def __init__(
        self,
        stepper: Stepper,
        trace: bool = False,
        on_batch: Callable | None = None,
        parallel: bool = True,
        dedup: bool = True,
    ):
        self.stepper = stepper
        self.parallel = parallel
        self.dedup = dedup  # False: every presented view is its own forward row (tests, measurement)
        self.counters = Counters()
        self.trace: list | None = [] if trace else None
        self.on_batch = on_batch
        self.last_where = None

    def drive(self, gen):
        """Run a procedure generator to completion and return its value."""
        token = PARALLEL.set(self.parallel)
        counters = _COUNTERS.set(self.counters)
        try:
            with _no_collector():
                return self._drive(gen)
        finally:
            _COUNTERS.reset(counters)
            PARALLEL.reset(token)

    def _drive(self, gen):
        c = self.counters
        stepper = self.stepper
        dedup = self.dedup
        try:
            probes = next(gen)
            while True:
                views = [p.view for p in probes]
                asked = list(dict.fromkeys(views)) if dedup else views
                t = time.perf_counter()
                got = stepper(asked)
                c.stepper_seconds += time.perf_counter() - t
                if len(got) != len(asked):
                    raise StepperFault(f"stepper returned {len(got)} steps for {len(asked)} views")
                if len(asked) == len(views):
                    steps = got
                else:  # each presented view gets its view's one step
                    answer = dict(zip(asked, got))
                    steps = [answer[v] for v in views]
                c.forward_passes += len(asked)
                c.views_presented += len(views)
                c.batches += 1
                c.views.update(asked)
                if self.trace is not None:
                    self.trace.append([(v, s) for v, s in zip(views, steps)])
                if self.on_batch is not None:
                    self.on_batch(probes, steps)
                self.last_where = probes[-1].where
                probes = gen.send(steps)
        except StopIteration as stop:
            return stop.value


def together(gens):
    """Run procedure generators in lock step; each round's requests form one batch."""
    gens = list(gens)
    results = [None] * len(gens)
    pending = {}
    for k, g in enumerate(gens):
        try:
            pending[k] = next(g)
        except StopIteration as stop:
            results[k] = stop.value
    while pending:
        keys = list(pending)
        batch = [p for k in keys for p in pending[k]]
        steps = yield batch
        at = 0
        nxt = {}
        for k in keys:
            n = len(pending[k])
            try:
                nxt[k] = gens[k].send(steps[at : at + n])
            except StopIteration as stop:
                results[k] = stop.value
            at += n
        pending = nxt
    return results


def ask(view: View, where=None):
    """Yield one view; return its step."""
    steps = yield [Probe(view, where)]
    return steps[0]


_tuple_new = tuple.__new__


def scan(
    op: str, x: Row, y: Row | None = None, carry: Row | None = None, out: Row | None = None, start: int = 0, fixed=None
):
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
    fixed_sym = fixed.sym if fixed is not None else BLANK
    while True:
        b = y.sym(i) if y is not None else fixed_sym
        c = carry.sym(i) if carry is not None else BLANK
        where = ((x, i), (y, i) if y is not None else (fixed, None), (carry, i) if carry is not None else None)
        steps = yield [_tuple_new(Probe, (_tuple_new(View, (op, x.sym(i), b, c)), where))]
        step = steps[0]
        _write(out, carry, i, step)
        if step.next not in SCAN_OPS:
            return step, i
        op = step.next
        i += 1
        if i > limit:
            raise StepperFault(f"a {op} scan did not halt after {limit} columns")


def _family(op: str, fixed) -> tuple | None:
    """The states a carry-select scan of `op` presents each column under, or None (no
    carry-select for this scan).  A product row's states depend on its multiplier digit."""
    if op == MUL:
        d = fixed.sym if fixed is not None else None
        return tuple((MUL, c) for c in MUL_CARRIES[d]) if d in MUL_CARRIES else None
    return FAMILIES.get(op)


def _write(out: Row | None, carry: Row | None, i: int, step: Step) -> None:
    """A scan step's symbol goes to out[i], its carry to carry[i+1] (blanks are not written)."""
    if out is not None and step.sym != BLANK:
        Sheet.write(out, i, step)
    if carry is not None and step.flag != BLANK:
        Sheet.write(carry, i + 1, step, "flag")


def select_probes(
    op: str,
    x: Row,
    y: Row | None,
    first_carry: str,
    start: int,
    limit: int,
    states,
    fixed=None,
    carry: Row | None = None,
) -> list:
    """The probes of a carry-select scan: columns start..limit-1, the first under its real
    state (op, first_carry), every other under every state, in the order of `states`: the
    probe of (column i > start, states[k]) is probes[1 + (i - start - 1) * len(states) + k]."""
    fixed_sym = fixed.sym if fixed is not None else BLANK
    yw = (fixed, None) if fixed is not None else None
    probes = []
    append = probes.append
    for i in range(start, limit):
        where = ((x, i), (y, i) if y is not None else yw, (carry, i) if carry is not None else None)
        a, b = x.sym(i), (y.sym(i) if y is not None else fixed_sym)
        if i == start:
            append(Probe(View(op, a, b, first_carry), where))
            continue
        for state_op, c in states:
            append(_tuple_new(Probe, (_tuple_new(View, (state_op, a, b, c)), where)))
    return probes


def _scan_select(
    op: str, x: Row, y: Row | None, carry: Row | None, out: Row | None, start: int, limit: int, fixed, states
):
    """Carry-select scan: one batch with every column under every state of the family (the
    first column only under its real state), then follow the emitted states column by column.
    Only the followed steps are written, so the sheet equals the sequential scan's sheet."""
    first_carry = carry.sym(start) if carry is not None else BLANK
    probes = select_probes(op, x, y, first_carry, start, limit, states, fixed, carry)
    steps = yield probes
    position = {state: k for k, state in enumerate(states)}
    n = len(states)
    step = steps[0]
    for i in range(start, limit):
        if i > start:
            state = (step.next, step.flag if carry is not None else BLANK)
            k = position.get(state)
            if k is None:
                raise StepperFault(f"stepper moved a {op} scan to state {state}, outside its family")
            step = steps[1 + (i - start - 1) * n + k]
        _write(out, carry, i, step)
        if step.next not in SCAN_OPS:
            return step, i
    raise StepperFault(f"a {op} scan did not halt after {limit} columns")


def speculate(probes: list, follow):
    """Present `probes` as one batch, then run the generator `follow` - the sequential code of
    the same work - answering each view it asks with the step that view received in that batch.
    `follow` writes the sheet, so the sheet is the sequential run's.  If it asks a view the batch
    did not present (only a stepper that is wrong on V leads there), the rest of `follow` runs
    as plain sequential batches: the result is still exactly the sequential run's.  Returns
    `follow`'s value.

    `follow` runs in the sequential mode, and only while it runs: generators that share this
    batch through `together` keep their own mode."""
    steps = yield probes
    answers: dict = {}
    for p, s in zip(probes, steps):
        answers.setdefault(p[0], s)
    get = answers.get
    token = PARALLEL.set(False)
    try:
        request = follow.send(None)
        while True:
            if len(request) == 1:
                s = get(request[0][0])
                if s is not None:
                    request = follow.send([s])
                    continue
            else:
                got = [get(p[0]) for p in request]
                if None not in got:
                    request = follow.send(got)
                    continue
            break
    except StopIteration as stop:
        return stop.value
    finally:
        PARALLEL.reset(token)
    # A view outside the batch: from here on, plain sequential batches.
    counters = _COUNTERS.get()
    if counters is not None:
        counters.fallbacks += 1
    while True:
        got = yield request
        token = PARALLEL.set(False)
        try:
            request = follow.send(got)
        except StopIteration as stop:
            return stop.value
        finally:
            PARALLEL.reset(token)


def expect(step: Step, allowed: tuple, where: str) -> str:
    if step.next not in allowed:
        raise StepperFault(f"{where}: stepper chose {step.next!r}, expected one of {allowed}")
    return step.next


__all__ = [
    "Counters",
    "Probe",
    "Run",
    "Stepper",
    "ask",
    "expect",
    "scan",
    "select_probes",
    "speculate",
    "together",
    "HALT",
]
