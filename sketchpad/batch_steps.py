"""The steps of one batch as the stepper returned them (issue 22).  The write path of sheet.py
gathers every computed symbol from one of these arrays and nowhere else, so every written cell
names the batch and the output row its symbol came from.  Only the runtime's driver makes one."""

from __future__ import annotations

import numpy as np

from .codes import STEPS


class BatchSteps:
    """The steps one stepper call returned, as step codes: row r of the stepper's output is
    steps[r] (an array; a tuple for a batch of one view).  Made by the runtime's driver only,
    once per batch (`index`)."""

    __slots__ = ("index", "steps", "_listed")

    def __init__(self, index: int, steps: np.ndarray):
        self.index = index
        self.steps = steps
        self._listed = None

    def listed(self) -> list:
        """steps as a list (made once: short walks read a few steps each, in plain Python)."""
        if self._listed is None:
            self._listed = np.asarray(self.steps).tolist()
        return self._listed


class StepRow:
    """One row of one batch's stepper output: the step a view received, and where it is."""

    __slots__ = ("batch", "row", "code")

    def __init__(self, batch: BatchSteps, row: int):
        self.batch = batch
        self.row = row
        self.code = int(batch.steps[row])

    step = property(lambda self: STEPS[self.code])
    sym = property(lambda self: STEPS[self.code].sym)
    flag = property(lambda self: STEPS[self.code].flag)
    next = property(lambda self: STEPS[self.code].next)

    def __repr__(self):
        return f"StepRow({self.step}, batch {self.batch.index}, row {self.row})"
