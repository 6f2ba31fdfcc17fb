"""Sketchpad's symbolic runtime: expand, factor and solve univariate polynomials over Z and Q,
with every arithmetic operation on a number computed by the Sketchpad procedures through a
stepper (by default the shipped model, certified on this device: sketchpad.steppers.get).

    >>> from sketchpad.symbolic import expand, factor, solve
    >>> str(expand("(x+1)^3 - 2*x*(x-4)", stepper="reference"))
    'x^3 + x^2 + 11*x + 1'

Polynomials from text: Poly.parse("x^2 - 1") (integer coefficients), QPoly.parse("1/2x + 1")
(rational ones), or parse_poly(ctx, text) / parse_equation(ctx, text) inside a Context.
`stepper=None` everywhere means the certified shipped model, exactly as sketchpad.solve.
"""

from .api import Expansion, Factored, Solved, expand, factor, solve
from .context import Context
from .integer import Z
from .parse import parse_equation, parse_poly
from .poly import Poly
from .qpoly import QPoly
from .rational import Q

__all__ = [
    "expand",
    "factor",
    "solve",
    "Expansion",
    "Factored",
    "Solved",
    "Context",
    "Z",
    "Q",
    "Poly",
    "QPoly",
    "parse_poly",
    "parse_equation",
]
