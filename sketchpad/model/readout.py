"""Reading a step off a row of step logits: the argmax among the step tokens, and its margin
(top-1 minus top-2, the quantity the perturbation theorem is about).  numpy only, shared by
every backend and by the certifier, so that all of them read a step the same way."""

from __future__ import annotations

import numpy as np

from ..symbols import Step


def argmax_steps(logits: np.ndarray, steps: list[Step]) -> list[Step]:
    if len(logits) == 0:
        return []
    return [steps[i] for i in np.asarray(logits).argmax(axis=1).tolist()]


def steps_and_margins(logits: np.ndarray, steps: list[Step]) -> tuple[list[Step], np.ndarray]:
    """Argmax step per row, and its margin: top-1 minus top-2 logit (0 = a tie)."""
    if len(logits) == 0:
        return [], np.zeros(0, dtype=np.float32)
    logits = np.asarray(logits)
    top2 = np.sort(logits, axis=1)[:, -2:]
    return argmax_steps(logits, steps), (top2[:, 1] - top2[:, 0]).astype(np.float32)
