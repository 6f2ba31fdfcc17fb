"""The fixed runtime: it moves the view, hands batches of views to a stepper, and writes what
the steps say where the procedure says.  It never computes a symbol.

Procedures are Python generators.  A procedure yields a list of *parts* (requests for views:
one view, a block of views, a carry-select scan; see parts.py and scans.py) and receives one
result per part.  `Run.drive` sends each yielded list to the stepper as one batch, as
integer arrays (sketchpad/codes.py): each *distinct* view of the batch goes through the
stepper once (one forward row; a vectorised unique over the parts' distinct views), and its
step reaches every place the view was presented through one table, view code -> output row
(a gather).  Presented views are counted, not listed: a scan's views are a pattern (its
columns under its states) whose distinct views come from the pattern.  Nothing is kept
between batches: every batch asks the stepper afresh.  `together` runs several procedures in
lock step and merges their requests into one batch; `speculate` presents every view a stretch
of sequential work could need in one batch and then runs that sequential work against the
batch's steps (parallel quotient and root digits).
"""

from __future__ import annotations

import contextlib
import gc
import operator
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .batch_steps import BatchSteps, StepRow
from .carry_select import select_probes
from .codes import N_VIEWS, STEPS, checked_step_codes, distinct_sorted, step_codes_of, view_code, views_from_codes
from .errors import StepperFault
from .parts import FAMILIES, MUL_CARRIES, PARALLEL, RUN_COUNTERS, SPECULATION, Answered, Ask, Presented, Probe
from .scans import scan, sign_code
from .symbols import HALT, Step, View

_SIZE = operator.attrgetter("size")
SMALL = 4096  # up to this many codes, the distinct views of a batch by sorting, above by a mark table


class Stepper(Protocol):
    """stepper(views) -> steps, in order.  A stepper may also offer step_codes(view codes) ->
    step codes (numpy int arrays, sketchpad/codes.py), which the runtime then uses instead."""

    name: str

    def __call__(self, views: list[View]) -> list[Step]: ...


def array_path(stepper, method: str = "step_codes"):
    """The stepper's step_codes (or step_code, one view), when it answers the same views as its
    __call__: a subclass that overrides __call__ but not step_codes is asked through __call__,
    one that overrides step_codes but not step_code through step_codes."""
    cls = type(stepper)
    ok = _ARRAY_PATHS.get((cls, method))
    if ok is None:
        chain = ["__call__", "step_codes", "step_code"][: ["__call__", "step_codes", "step_code"].index(method) + 1]
        owners = [next((k for k in cls.__mro__ if m in k.__dict__), None) for m in chain]
        ok = None not in owners and all(issubclass(b, a) for a, b in zip(owners, owners[1:]))
        _ARRAY_PATHS[(cls, method)] = ok
    return getattr(stepper, method) if ok else None


_ARRAY_PATHS: dict = {}


@dataclass
class Counters:
    """forward_passes: forward rows the stepper computed (distinct views per batch, summed);
    views_presented: views the runtime presented (a view presented twice in one batch counts
    twice); batches: stepper calls (sequential depth); fallbacks: speculative blocks that met a
    view their batch had not presented (0 for a stepper that is exact on V)."""

    forward_passes: int = 0
    views_presented: int = 0
    batches: int = 0
    seconds: float = 0.0
    stepper_seconds: float = 0.0
    fallbacks: int = 0
    seen: set = field(default_factory=set, repr=False)  # codes of the distinct views of the run

    @property
    def views(self) -> set:
        """The distinct views of the run."""
        return set(views_from_codes(sorted(self.seen)))

    def as_dict(self) -> dict:
        return {
            "forward_passes": self.forward_passes,
            "views_presented": self.views_presented,
            "batches": self.batches,
            "distinct_views": len(self.seen),
            "seconds": round(self.seconds, 6),
            "stepper_seconds": round(self.stepper_seconds, 6),
        }


@contextlib.contextmanager
def _no_collector():
    """No garbage-collector pauses inside a solve: a run makes many small acyclic objects, and
    generational collections over a process that holds a model cost more than the run itself.
    Restored afterwards; nested runs are fine."""
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# ---------------------------------------------------------------- the driver


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
        self._array = array_path(stepper)
        self._scalar = array_path(stepper, "step_code") if self._array is not None else None
        self.parallel = parallel
        self.dedup = dedup  # False: every presented view is its own forward row (tests, measurement)
        self.counters = Counters()
        self.trace: list | None = [] if trace else None
        self.on_batch = on_batch  # on_batch(probes, steps) after every batch (materialises them)
        self._last_part = None

    @property
    def last_where(self):
        """Where the last view of the last batch was read (for drawing)."""
        return None if self._last_part is None else self._last_part.last_where()

    def drive(self, gen):
        """Run a procedure generator to completion and return its value."""
        token = PARALLEL.set(self.parallel)
        counters = RUN_COUNTERS.set(self.counters)
        try:
            with _no_collector():
                try:
                    parts = next(gen)
                    while True:
                        parts = gen.send(self._batch(parts))
                except StopIteration as stop:
                    return stop.value
        finally:
            RUN_COUNTERS.reset(counters)
            PARALLEL.reset(token)

    def _steps(self, codes: np.ndarray) -> np.ndarray:
        """One stepper call: step codes for distinct view codes (the stepper's output rows)."""
        c = self.counters
        if self._array is not None:
            t = time.perf_counter()
            out = self._array(codes)
            c.stepper_seconds += time.perf_counter() - t
            return checked_step_codes(out, len(codes))
        views = views_from_codes(codes)
        t = time.perf_counter()
        out = self.stepper(views)
        c.stepper_seconds += time.perf_counter() - t
        return step_codes_of(out, len(codes))

    def _batch(self, parts: list) -> list:
        c = self.counters
        index = c.batches
        if len(parts) == 1 and type(parts[0]) is Ask:  # one view (the sequential mode)
            part = parts[0]
            if self._scalar is not None:
                t = time.perf_counter()
                step = self._scalar(part.code)
                c.stepper_seconds += time.perf_counter() - t
                if not 0 <= step < len(STEPS):
                    raise StepperFault("stepper returned a step code outside the alphabet")
                batch = BatchSteps(index, (step,))
            else:
                batch = BatchSteps(index, self._steps(np.array([part.code], dtype=np.int32)))
            c.forward_passes += 1
            c.views_presented += 1
            c.batches += 1
            c.seen.add(part.code)
            self._last_part = part
            if self.trace is not None or self.on_batch is not None:
                self._record(parts, batch, [np.zeros(1, dtype=np.int32)])
            return [StepRow(batch, 0)]
        total = sum(map(_SIZE, parts))
        one = len(set(map(type, parts))) == 1  # one kind of part (the usual case): no regrouping
        kinds: dict = {type(parts[0]): None} if one else {}
        for k, p in enumerate(() if one else parts):
            kinds.setdefault(type(p), []).append(k)
        group = lambda ks: parts if one else [parts[k] for k in ks]  # noqa: E731
        if self.dedup:  # the distinct views of the batch, from each kind of part's distinct views
            distinct = _concat([kind.distinct_all(group(ks)) for kind, ks in kinds.items()])
            if len(distinct) <= SMALL:
                asked = distinct_sorted(distinct)
            else:
                mark = np.zeros(N_VIEWS, dtype=bool)  # a view's code marks it
                mark[distinct] = True
                asked = np.flatnonzero(mark).astype(np.int32)
        else:  # every presented view its own forward row
            asked = _concat([p.codes() for p in parts])
        batch = BatchSteps(index, self._steps(asked))
        c.forward_passes += len(asked)
        c.views_presented += total
        c.batches += 1
        c.seen.update(asked.tolist())
        lookup = _table()  # view code -> stepper output row
        lookup[asked] = np.arange(len(asked), dtype=np.int32)
        try:
            if one:
                results = list(type(parts[0]).resolve(parts, batch, lookup))
            else:
                results = [None] * len(parts)
                for kind, ks in kinds.items():  # parts of one kind answered together
                    for k, r in zip(ks, kind.resolve([parts[k] for k in ks], batch, lookup)):
                        results[k] = r
            self._last_part = parts[-1]
            if self.trace is not None or self.on_batch is not None:
                self._record(parts, batch, [lookup[p.codes()] for p in parts])
        finally:
            _give_back(lookup, asked)  # nothing is kept for the next batch
        return results

    def _record(self, parts, batch, rows) -> None:
        self._last_part = parts[-1]
        if self.trace is None and self.on_batch is None:
            return
        probes = [p for part in parts for p in part.probes()]
        steps = [STEPS[s] for s in np.asarray(batch.steps)[_concat(rows)].tolist()]
        if self.trace is not None:
            self.trace.append([(p.view, s) for p, s in zip(probes, steps)])
        if self.on_batch is not None:
            self.on_batch(probes, steps)


def _concat(arrays: list) -> np.ndarray:
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


# ---------------------------------------------------------------- composing procedures


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
        answers = yield batch
        at = 0
        nxt = {}
        for k in keys:
            n = len(pending[k])
            try:
                nxt[k] = gens[k].send(answers[at : at + n])
            except StopIteration as stop:
                results[k] = stop.value
            at += n
        pending = nxt
    return results


def ask(view, where=None):
    """Yield one view (a View or its code); return the StepRow it received."""
    code = view if isinstance(view, int) else view_code(*view)
    spec = SPECULATION.get()
    if spec is not None:  # inside a speculative block: the step its batch gave this view, if any
        row = spec.lookup.item(code)
        if row >= 0:
            return StepRow(spec.batch, row)
    answers = yield [Ask(code, where)]
    return answers[0]


_TABLES: list = []  # view code -> row tables (all -1) no batch is using; shared by threads


def _table() -> np.ndarray:
    try:
        return _TABLES.pop()
    except IndexError:
        return np.full(N_VIEWS, -1, dtype=np.int32)


def _give_back(table: np.ndarray, codes) -> None:
    table[codes] = -1
    _TABLES.append(table)


class Answers:
    """A speculative batch's answers: the stepper output row of every view it presented."""

    def __init__(self, parts: list, results: list):
        self.lookup = _table()
        self.batch = results[0].batch
        self.codes = []
        for p, r in zip(parts, results):
            if isinstance(r, Answered):
                self.lookup[r.codes] = r.rows
                self.codes.append(r.codes)
            else:
                self.lookup[p.code] = r.row
                self.codes.append(np.array([p.code], dtype=np.int32))

    def release(self) -> None:
        """Give the table back (nothing is kept for another block)."""
        _give_back(self.lookup, np.concatenate(self.codes))
        self.lookup = None

    def answer(self, request: list):
        """StepRows for a request of single views, or None if the batch lacks one of them."""
        out = []
        for part in request:
            if type(part) is not Ask:
                return None
            row = int(self.lookup[part.code])
            if row < 0:
                return None
            out.append(StepRow(self.batch, row))
        return out


def speculate(parts: list, follow):
    """Present `parts` as one batch, then run the generator `follow` - the sequential code of
    the same work - answering each view it asks with the step that view received in that batch
    (scans read a whole row's answers at once: scans.py).  `follow` writes the sheet, so the
    sheet is the sequential run's.  If it asks a view the batch did not present (only a stepper
    that is wrong on V leads there), the rest of `follow` runs as plain sequential batches: the
    result is still exactly the sequential run's.  Returns `follow`'s value.

    `follow` runs in the sequential mode, and only while it runs: generators that share this
    batch through `together` keep their own mode."""
    results = yield parts
    answers = Answers(parts, results)
    token, stoken = PARALLEL.set(False), SPECULATION.set(answers)
    try:
        request = follow.send(None)
        while True:
            got = answers.answer(request)
            if got is None:
                break
            request = follow.send(got)
    except StopIteration as stop:
        return stop.value
    finally:
        SPECULATION.reset(stoken)
        PARALLEL.reset(token)
        answers.release()
    # A view outside the batch: from here on, plain sequential batches.
    counters = RUN_COUNTERS.get()
    if counters is not None:
        counters.fallbacks += 1
    while True:
        got = yield request
        token, stoken = PARALLEL.set(False), SPECULATION.set(None)
        try:
            request = follow.send(got)
        except StopIteration as stop:
            return stop.value
        finally:
            SPECULATION.reset(stoken)
            PARALLEL.reset(token)


def expect(step, allowed: tuple, where: str) -> str:
    if step.next not in allowed:
        raise StepperFault(f"{where}: stepper chose {step.next!r}, expected one of {allowed}")
    return step.next


__all__ = [
    "FAMILIES",
    "MUL_CARRIES",
    "PARALLEL",
    "Answered",
    "Ask",
    "Counters",
    "Presented",
    "Probe",
    "Run",
    "Stepper",
    "ask",
    "expect",
    "scan",
    "select_probes",
    "sign_code",
    "speculate",
    "together",
    "HALT",
]
