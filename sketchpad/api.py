"""`sketchpad.solve(expr)`: the Python API, the same choice as `sketchpad solve` on the command
line.  The stepper is the certified shipped model unless `stepper` names another; the core
(sketchpad/solve.py) runs it, and the Solution says which certificate its steps ran under."""

from __future__ import annotations

from . import solve as core
from . import steppers
from .expr import Limits, parse


def solve(
    expr: str,
    stepper=None,
    *,
    model=None,
    backend: str | None = None,
    gate: float = 1.0,
    allow_uncertified: bool = False,
    limits: Limits | None = None,
    **options,
) -> core.Solution:
    """Evaluate the integer expression `expr` on the sheet.

    stepper: None or "model" (the default: the shipped model, or the one in `model`, under a
    certificate that holds on this device, certified now if needed), "reference" (the
    specification itself), a model directory, or a stepper object (e.g. steppers.get(...)).
    backend ("onnx" or "torch"), gate and allow_uncertified choose how a model runs, as the
    command line's options do.  Further options go to the core solve: parallel=False (one
    view per forward pass), trace=True (every view and step), on_batch, dedup.  Bad input
    raises InputError before any model is loaded."""
    limits = limits or Limits()
    parse(expr, limits)  # bad input fails here, before a model loads or certifies
    st = steppers.get(stepper, model=model, backend=backend, gate=gate, allow_uncertified=allow_uncertified)
    sol = core.solve(expr, st, limits=limits, **options)
    sol.certificate = steppers.certificate_of(st)
    return sol
