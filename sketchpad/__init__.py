"""Sketchpad: long arithmetic by a stepper that sees three cells at a time, with a certificate.

    import sketchpad
    sketchpad.solve("12345 * -678", "reference").value        # the specification itself
    sketchpad.solve("12345 * -678", sketchpad.steppers.get())  # the certified shipped model

The layers, bottom up (pyproject.toml's import-linter contract holds them):
core (symbols, reference, sheet, runtime, procedures, expr, solve, views) -> model ->
export -> certify -> steppers -> symbolic, server, bench, commands.
"""

__version__ = "0.2.0"

from .errors import InputError, SketchpadError, StepperFault  # noqa: E402
from .expr import Limits  # noqa: E402
from .reference import ReferenceStepper, reference_step  # noqa: E402
from .solve import Solution, solve  # noqa: E402
from .symbols import Step, View  # noqa: E402

__all__ = [
    "solve",
    "Solution",
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


def __getattr__(name):
    if name == "steppers":  # the stepper choice, loaded only when asked for
        import importlib

        return importlib.import_module(".steppers", __name__)
    raise AttributeError(f"module 'sketchpad' has no attribute {name!r}")
