"""JSON without NaN and Infinity, both ways.  Python's json module reads and writes them by
default, and they are not JSON: a NaN margin in a certificate would compare false with
everything and slip through a rule, and a stored one would break every later reader."""
from __future__ import annotations

import json


def _refuse(name: str):
    raise ValueError(f"{name} is not a JSON number")


def loads(text: str | bytes):
    """json.loads that refuses NaN, Infinity and -Infinity (ValueError)."""
    return json.loads(text, parse_constant=_refuse)


def dumps(obj, **kw) -> str:
    """json.dumps that refuses non-finite floats (ValueError) instead of writing them."""
    return json.dumps(obj, allow_nan=False, **kw)
