"""Which stepper computes the steps: the one choice that every entry point (sketchpad.solve, the
command line, the server, the symbolic runtime, `sketchpad bench`) makes the same way.

    get()                       # the default: the shipped model, certified on this device
    get("model", model=DIR, backend="torch", gate=1.0, allow_uncertified=False)
    get("path/to/model")        # a model directory: the same as get("model", model=...)
    get("reference")            # the specification itself (sketchpad/reference.py)
    get(obj)                    # any object with the batched Stepper interface

A model is only ever handed out by sketchpad.certify.certified.load_certified, as a
CertifiedStepper: under a certificate that holds here, or after this device certified it
(about a second), or with allow_uncertified.  The default backend is ONNX Runtime when the
model has an export (the fastest on a CPU), else PyTorch.  A loaded model is kept for the rest
of the process.  Anything but a model is the core's choice (sketchpad.solve.as_stepper).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from .certify.certified import CertifiedStepper, load_certified
from .errors import InputError
from .model.loading import resolve_model_dir
from .solve import STEPPER_NAMES, as_stepper


@functools.lru_cache(maxsize=8)
def _model(model_dir: Path, backend: str | None, gate: float, allow_uncertified: bool) -> CertifiedStepper:
    return load_certified(model_dir, backend, gate, allow_uncertified)


def _model_dir(stepper) -> Path | None:
    """The model directory `stepper` names (a path, or a string that is not a stepper name)."""
    if isinstance(stepper, os.PathLike) or (isinstance(stepper, str) and stepper not in STEPPER_NAMES):
        d = Path(stepper)
        if not d.is_dir():
            raise InputError(
                f"unknown stepper {str(stepper)!r}: not 'model' or 'reference', and no model directory there"
            )
        return d
    return None


def get(stepper=None, *, model=None, backend: str | None = None, gate: float = 1.0, allow_uncertified: bool = False):
    """A batched stepper for `stepper`: None or "model" (the model in `model`, default the
    shipped one), a model directory, "reference", or a stepper object (returned as it is)."""
    d = _model_dir(stepper)
    if stepper is None or stepper == "model" or d is not None:
        where = resolve_model_dir(d if d is not None else model).resolve()
        return _model(where, backend, float(gate), bool(allow_uncertified))
    return as_stepper(stepper)


def certificate_of(stepper) -> dict | None:
    """The certificate summary a stepper runs under (None: the reference stepper, or a stepper
    object that no certificate covers)."""
    return stepper.certificate if isinstance(stepper, CertifiedStepper) else None
