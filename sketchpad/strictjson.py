"""JSON without NaN and Infinity, both ways.  Python's json module reads and writes them by
default, and they are not JSON: a NaN margin in a certificate would compare false with
everything and slip through a rule, and a stored one would break every later reader."""

from __future__ import annotations

import json
import math


def _refuse(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):  # 1e400 overflows to inf: as bad as writing Infinity
        raise ValueError(f"{text[:40]} is out of the range of a JSON number")
    return x


def loads(text: str | bytes):
    """json.loads that refuses NaN, Infinity, -Infinity and numbers that overflow to them (ValueError)."""
    return json.loads(text, parse_constant=_refuse, parse_float=_float)


def dumps(obj, **kw) -> str:
    """json.dumps that refuses non-finite floats (ValueError) instead of writing them."""
    return json.dumps(obj, allow_nan=False, **kw)
