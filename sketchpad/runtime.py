"""The fixed runtime: it moves the view, hands batches of views to a stepper, and writes
what the steps say where the procedure says.  It never computes a symbol.

Procedures are Python generators.  A procedure yields a list of probes (a view and the three
sheet positions it was read from) and receives the list of steps for them.  `drive` sends
each yielded list to the stepper as one batch, so independent work (the rows of a product)
becomes one forward pass per view and one batch per column.  `together` runs several
procedures in lock step and merges their requests into one batch.
"""
from __future__ import annotations

import contextvars
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

from .errors import StepperFault
from .sheet import Row, Sheet
from .symbols import (ADD, ADD2, BLANK, CMP_EQ, CMP_GT, CMP_LT, HALT, INC, SCAN_OPS, SUB, ZT,
                      Step, View)

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


class Stepper(Protocol):
    name: str

    def __call__(self, views: list[View]) -> list[Step]: ...


@dataclass
class Counters:
    forward_passes: int = 0
    batches: int = 0
    seconds: float = 0.0
    stepper_seconds: float = 0.0
    views: set = field(default_factory=set)

    def as_dict(self) -> dict:
        return {"forward_passes": self.forward_passes, "batches": self.batches,
                "views_used": len(self.views), "seconds": round(self.seconds, 6),
                "stepper_seconds": round(self.stepper_seconds, 6)}


class Probe:
    """A view plus where its cells were read (for drawing and traces only)."""
    __slots__ = ("view", "where")

    def __init__(self, view: View, where):
        self.view = view
        self.where = where


class Run:
    """One solve: the stepper, the counters, and optional trace of (view, step) pairs."""

    def __init__(self, stepper: Stepper, trace: bool = False, on_batch: Callable | None = None,
                 parallel: bool = True):
        self.stepper = stepper
        self.parallel = parallel
        self.counters = Counters()
        self.trace: list | None = [] if trace else None
        self.on_batch = on_batch
        self.last_where = None

    def drive(self, gen):
        """Run a procedure generator to completion and return its value."""
        token = PARALLEL.set(self.parallel)
        try:
            return self._drive(gen)
        finally:
            PARALLEL.reset(token)

    def _drive(self, gen):
        c = self.counters
        stepper = self.stepper
        try:
            probes = next(gen)
            while True:
                views = [p.view for p in probes]
                t = time.perf_counter()
                steps = stepper(views)
                c.stepper_seconds += time.perf_counter() - t
                if len(steps) != len(views):
                    raise StepperFault(f"stepper returned {len(steps)} steps for {len(views)} views")
                c.forward_passes += len(views)
                c.batches += 1
                c.views.update(views)
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
                nxt[k] = gens[k].send(steps[at:at + n])
            except StopIteration as stop:
                results[k] = stop.value
            at += n
        pending = nxt
    return results


def ask(view: View, where=None):
    """Yield one view; return its step."""
    steps = yield [Probe(view, where)]
    return steps[0]


def scan(op: str, x: Row, y: Row | None = None, carry: Row | None = None,
         out: Row | None = None, start: int = 0, fixed=None):
    """Walk columns upwards from `start`, presenting (op, x_i, y_i, carry_i).

    `fixed` replaces y with one cell for every column (the multiplier digit of a product row).
    Each step's symbol goes to out[i] and its carry to carry[i+1]; the scan goes on while the
    step names a column operation and returns the last step and its column when it names a
    control word.  A scan that runs past its operands is a stepper fault, never a hang.
    """
    limit = max(x.width(), y.width() if y is not None else 0) + 2
    if op in FAMILIES and PARALLEL.get():
        return (yield from _scan_select(op, x, y, carry, out, start, limit))
    i = start
    fixed_sym = fixed.sym if fixed is not None else BLANK
    while True:
        b = y.sym(i) if y is not None else fixed_sym
        c = carry.sym(i) if carry is not None else BLANK
        where = ((x, i), (y, i) if y is not None else (fixed, None), (carry, i) if carry is not None else None)
        steps = yield [Probe(View(op, x.sym(i), b, c), where)]
        step = steps[0]
        _write(out, carry, i, step)
        if step.next not in SCAN_OPS:
            return step, i
        op = step.next
        i += 1
        if i > limit:
            raise StepperFault(f"a {op} scan did not halt after {limit} columns")


def _write(out: Row | None, carry: Row | None, i: int, step: Step) -> None:
    """A scan step's symbol goes to out[i], its carry to carry[i+1] (blanks are not written)."""
    if out is not None and step.sym != BLANK:
        Sheet.write(out, i, step)
    if carry is not None and step.flag != BLANK:
        Sheet.write(carry, i + 1, step, "flag")


def _scan_select(op: str, x: Row, y: Row | None, carry: Row | None, out: Row | None,
                 start: int, limit: int):
    """Carry-select scan: one batch with every column under every state of the family (the
    first column only under its real state), then follow the emitted states column by column.
    Only the followed steps are written, so the sheet equals the sequential scan's sheet."""
    first = (op, carry.sym(start) if carry is not None else BLANK)
    probes, index = [], {}
    for i in range(start, limit):
        where = ((x, i), (y, i) if y is not None else None, (carry, i) if carry is not None else None)
        for state in ((first,) if i == start else FAMILIES[op]):
            index[(i, state)] = len(probes)
            probes.append(Probe(View(state[0], x.sym(i), y.sym(i) if y is not None else BLANK, state[1]), where))
    steps = yield probes
    state = first
    for i in range(start, limit):
        k = index.get((i, state))
        if k is None:
            raise StepperFault(f"stepper moved a {op} scan to state {state}, outside its family")
        step = steps[k]
        _write(out, carry, i, step)
        if step.next not in SCAN_OPS:
            return step, i
        state = (step.next, step.flag if carry is not None else BLANK)
    raise StepperFault(f"a {op} scan did not halt after {limit} columns")


def expect(step: Step, allowed: tuple, where: str) -> str:
    if step.next not in allowed:
        raise StepperFault(f"{where}: stepper chose {step.next!r}, expected one of {allowed}")
    return step.next


__all__ = ["Counters", "Probe", "Run", "Stepper", "ask", "expect", "scan", "together", "HALT"]
