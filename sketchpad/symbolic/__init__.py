"""Sketchpad's symbolic runtime: expand, factor and solve univariate integer polynomials,
with every arithmetic operation on a number computed by the Sketchpad procedures through a
stepper (the shipped model by default when it is installed, else the reference stepper).

    >>> from sketchpad.symbolic import expand, factor, solve
    >>> str(expand("(x+1)^3 - 2*x*(x-4)", stepper="reference"))
    'x^3 + x^2 + 11*x + 1'
"""
from .api import Expansion, Factored, Solution, expand, factor, solve
from .context import Context, default_stepper
from .integer import Z
from .parse import parse_equation, parse_poly
from .poly import Poly
from .rational import Q

__all__ = ["expand", "factor", "solve", "Expansion", "Factored", "Solution", "Context",
           "default_stepper", "Z", "Q", "Poly", "parse_poly", "parse_equation"]
