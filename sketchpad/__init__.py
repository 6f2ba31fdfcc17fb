"""Sketchpad: long arithmetic by a stepper that sees three cells at a time, with a certificate."""
from .errors import InputError, SketchpadError, StepperFault
from .expr import Limits
from .reference import ReferenceStepper, reference_step
from .solve import Solution, solve
from .symbols import Step, View

__version__ = "0.1.0"
__all__ = ["solve", "Solution", "Limits", "View", "Step", "reference_step", "ReferenceStepper",
           "InputError", "SketchpadError", "StepperFault", "__version__"]
