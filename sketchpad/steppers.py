"""Which stepper computes the steps: the one choice that every entry point (the command line,
the server, the symbolic runtime, `sketchpad bench`) makes the same way.

    get()                       # the default: the shipped model, certified on this device
    get("model", model=DIR, backend="torch", gate=1.0, allow_uncertified=False)
    get("reference")            # the specification itself (sketchpad/reference.py)
    get(obj)                    # any object with the batched Stepper interface

A model is only ever handed out by sketchpad.certify.certified.load_certified: under a
certificate that holds here, or after this device certified it (about a second), or with
allow_uncertified.  The default backend is ONNX Runtime when the model has an export (the
fastest on a CPU), else PyTorch.  A loaded model is kept for the rest of the process.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .errors import InputError
from .reference import ReferenceStepper

NAMES = ("model", "reference")


@functools.lru_cache(maxsize=8)
def _model(model_dir: Path, backend: str | None, gate: float, allow_uncertified: bool):
    from .certify.certified import load_certified

    return load_certified(model_dir, backend, gate, allow_uncertified)


def get(stepper=None, *, model=None, backend: str | None = None, gate: float = 1.0, allow_uncertified: bool = False):
    """A batched stepper for `stepper` (a name, None for the default, or a stepper object)."""
    if stepper is None or stepper == "model":
        from .model.loading import resolve_model_dir

        return _model(resolve_model_dir(model).resolve(), backend, float(gate), bool(allow_uncertified))
    if stepper == "reference":
        return ReferenceStepper()
    if isinstance(stepper, str):
        raise InputError(f"unknown stepper {stepper!r} (use {' or '.join(repr(n) for n in NAMES)})")
    if not callable(stepper):
        raise InputError(f"a stepper must be 'model', 'reference' or a callable, not {type(stepper).__name__}")
    return stepper
