"""Sketchpad: long arithmetic by a stepper that sees three cells at a time, with a certificate.

    import sketchpad
    sketchpad.solve("12345 * -678").value               # the certified shipped model
    sketchpad.solve("12345 * -678", "reference").value  # the specification itself
    sketchpad.solve("2+2").certificate                  # which certificate the steps ran under

The layers, bottom up (pyproject.toml's import-linter contract holds them):
core (symbols, reference, sheet, runtime, procedures, expr, solve, views) -> model ->
export -> certify -> steppers -> api, symbolic, server, bench, commands.  This file is the
public face above them all; no module of the package imports it (the version is
sketchpad/version.py).
"""

from . import steppers
from .api import solve
from .certify.certified import CertifiedStepper, Uncertified
from .errors import InputError, SketchpadError, StepperFault
from .expr import Limits
from .reference import ReferenceStepper, reference_step
from .solve import Solution
from .symbols import Step, View
from .version import __version__

__all__ = [
    "solve",
    "Solution",
    "CertifiedStepper",
    "Uncertified",
    "steppers",
    "Limits",
    "View",
    "Step",
    "reference_step",
    "ReferenceStepper",
    "InputError",
    "SketchpadError",
    "StepperFault",
    "__version__",
]
