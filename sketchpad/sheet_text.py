"""A sheet drawn as text (what the golden traces and `--show` print): a row's symbols and
where each came from, highest column first, and a block's rows aligned as on paper."""

from __future__ import annotations

import numpy as np

from .codes import NSYM, text_of
from .symbols import CELL_SYMBOLS, MINUS

_TEXT = np.frombuffer("".join(CELL_SYMBOLS).encode(), dtype=np.uint8)


def symbols_text(sym: np.ndarray, ids: np.ndarray) -> str:
    """The symbols of a row's cells (`sym` the store's symbol array), highest column first."""
    syms = sym[ids[::-1]]
    if len(syms) and syms.max() >= NSYM:
        return text_of(syms)
    return _TEXT[syms].tobytes().decode()


def origins_text(store, ids: np.ndarray) -> str:
    """i(nput), s(tep symbol), f(step flag), . (never written) per column, highest first."""
    ids = ids[::-1]
    out = np.full(len(ids), ord("."), dtype=np.uint8)
    have = ids >= 0
    if have.any():
        out[have] = np.frombuffer(b"isf", dtype=np.uint8)[store.origins(ids[have])["kind"]]
    return out.tobytes().decode()


def block_text(title: str, rows: list) -> str:
    """A sheet block: its title, then each row right-aligned, shifted by its offset."""
    width = max([r.width() + r.offset for r in rows] + [1]) + 1
    lines = [f"[{title}]"]
    for r in rows:
        sign = MINUS if r.sign_sym() == MINUS else " "
        body = (sign + r.text()).rjust(width + 1)
        if r.offset:
            body = body[r.offset :] + " " * r.offset
        lines.append(f"{r.name:>8} {body}")
    return "\n".join(lines)
