"""What a batch is made of: the parts a procedure yields, and the runtime's modes.

A procedure yields a list of parts and receives one result per part (runtime.py drives them):
`Ask` one view (its result: the StepRow it received), `Presented` a block of views (its
result: the stepper output row of each of its distinct views), and scans.py's carry-select
scan (its result: the run it followed).  A part says how many views it presents (`size`,
repeats included) and which distinct views those are (`distinct()`, view codes): the stepper
is asked the distinct views of the whole batch, and each part finds its steps through a table
view code -> stepper output row (`resolve`).  A part that presents a pattern (every column of a
row under every state) finds its distinct views from the pattern, without listing the
presented views; `codes()` lists them, in order, only for traces and for `dedup=False` runs,
as `probes()` lists where each was read (for drawing).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .batch_steps import BatchSteps, StepRow
from .codes import view_of, views_from_codes
from .symbols import ADD, ADD2, BLANK, CMP_EQ, CMP_GT, CMP_LT, DIGITS, INC, SUB, ZT, View

# Parallel (carry-select) mode: a scan presents every column at once, under every state the
# column could be entered in, then follows the states the steps emitted.  The states of each
# family are the (operation, carry) pairs a scan of that family can pass between columns.
PARALLEL = contextvars.ContextVar("sketchpad_parallel", default=True)
# The answers of the speculative batch whose sequential work is being run (see speculate).
SPECULATION = contextvars.ContextVar("sketchpad_speculation", default=None)
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

# The counters of the run being driven (speculate records its fallbacks there).
RUN_COUNTERS: contextvars.ContextVar = contextvars.ContextVar("sketchpad_counters", default=None)


class Probe(NamedTuple):
    """A view plus where its cells were read (for drawing and traces only)."""

    view: View
    where: object


class Ask:
    """One view; its result is the StepRow it received."""

    __slots__ = ("code", "where")
    size = 1

    def __init__(self, code: int, where=None):
        self.code = code
        self.where = where

    def codes(self) -> np.ndarray:
        return np.array([self.code], dtype=np.int32)

    distinct = codes

    @staticmethod
    def distinct_all(parts: list) -> np.ndarray:
        return np.array([p.code for p in parts], dtype=np.int32)

    def probes(self) -> list:
        return [Probe(view_of(self.code), self.where)]

    def last_where(self):
        return self.where

    @staticmethod
    def resolve(parts: list, batch: BatchSteps, lookup: np.ndarray) -> list:
        return [StepRow(batch, int(lookup[p.code])) for p in parts]


class Answered(NamedTuple):
    """A block's result: the stepper output row of each of its distinct views."""

    batch: BatchSteps
    codes: np.ndarray
    rows: np.ndarray


class Presented:
    """A block of views (a speculative batch): its distinct view codes and how many views it
    presents; `codes` (optional) lists them all in order and `where` where each was read."""

    __slots__ = ("_distinct", "_codes", "_where", "size")

    def __init__(self, distinct, size: int | None = None, codes: Callable | None = None, where: Callable | None = None):
        self._distinct = np.asarray(distinct, dtype=np.int32)
        self.size = len(self._distinct) if size is None else size
        self._codes = codes
        self._where = where

    def distinct(self) -> np.ndarray:
        return self._distinct

    @staticmethod
    def distinct_all(parts: list) -> np.ndarray:
        return np.concatenate([p._distinct for p in parts])

    def codes(self) -> np.ndarray:
        return self._distinct if self._codes is None else self._codes()

    def probes(self) -> list:
        wheres = self._where() if self._where is not None else [None] * self.size
        return [Probe(v, w) for v, w in zip(views_from_codes(self.codes()), wheres)]

    def last_where(self):
        return self._where()[-1] if self._where is not None and self.size else None

    @staticmethod
    def resolve(parts: list, batch: BatchSteps, lookup: np.ndarray) -> list:
        return [Answered(batch, p._distinct, lookup[p._distinct]) for p in parts]
