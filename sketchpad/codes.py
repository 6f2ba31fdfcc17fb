"""The alphabets as small integers, so that a batch of views is one integer array.

A cell symbol is a code below 256: 0-17 are CELL_SYMBOLS (0-9 the digits themselves, then
blank, the signs, the comparison and the zero flags).  A view (op, a, b, c) of those symbols
is one integer below N_BASE_VIEWS, a step (sym, flag, next) one below N_BASE_STEPS:

    view code = ((op * 18 + a) * 18 + b) * 18 + c          op: index in OPS
    step code = (sym * 18 + flag) * 21 + next              next: index in NEXT_WORDS

so an operation's code is also its code as a step's next word (OPS come first in NEXT_WORDS).
A stepper that is wrong may emit what the alphabet lacks (the reference stepper itself counts
a quotient digit to "10" when a wrong step made it skip one): such a symbol, next word, step
and any view that reads it get codes after the base ones, given out as they are met
(a few thousand at most; more is a stepper fault).  The codes are a representation only:
View and Step stay the spec's vocabulary, and every conversion goes through this file.
"""

from __future__ import annotations

import numpy as np

from .errors import StepperFault
from .symbols import BLANK, CELL_SYMBOLS, NEXT_WORDS, OPS, SCAN_OPS, Step, View

NSYM = len(CELL_SYMBOLS)  # the base symbols (a view's cells in the arithmetic form above)
NNEXT = len(NEXT_WORDS)
N_BASE_VIEWS = len(OPS) * NSYM**3
N_BASE_STEPS = NSYM * NSYM * NNEXT
N_VIEWS = N_BASE_VIEWS + 4096  # room for views outside the alphabet
N_STEPS = N_BASE_STEPS + 4096

SYMBOLS = list(CELL_SYMBOLS)  # symbol code -> symbol (grows, at most 256)
NEXTS = list(NEXT_WORDS)  # next code -> word (grows, at most 256)
SYM = {s: i for i, s in enumerate(CELL_SYMBOLS)}
OP = {o: i for i, o in enumerate(OPS)}
NEXT = {w: i for i, w in enumerate(NEXT_WORDS)}
BLANK_CODE = SYM[BLANK]
CODE_OF_BYTE = bytes(SYM.get(chr(k), 255) for k in range(256))  # a one-character symbol -> its code; 255: none

# step code -> its fields, as codes, and as the spec's Step
STEP_SYM = np.zeros(N_STEPS, dtype=np.uint8)
STEP_FLAG = np.zeros(N_STEPS, dtype=np.uint8)
STEP_NEXT = np.zeros(N_STEPS, dtype=np.uint8)
_base = np.arange(N_BASE_STEPS)
STEP_SYM[:N_BASE_STEPS] = _base // (NSYM * NNEXT)
STEP_FLAG[:N_BASE_STEPS] = _base // NNEXT % NSYM
STEP_NEXT[:N_BASE_STEPS] = _base % NNEXT
del _base
STEPS = [
    Step(CELL_SYMBOLS[k // (NSYM * NNEXT)], CELL_SYMBOLS[k // NNEXT % NSYM], NEXT_WORDS[k % NNEXT])
    for k in range(N_BASE_STEPS)
]
STEP_CODE = {s: k for k, s in enumerate(STEPS)}
SCAN_NEXT = np.zeros(256, dtype=bool)  # next code -> a column operation?
SCAN_NEXT[[NEXT[w] for w in SCAN_OPS]] = True
_OTHER_VIEWS: list[View] = []  # view codes N_BASE_VIEWS + k
_OTHER_VIEW_CODE: dict[View, int] = {}
_STATE_TABLES: dict = {}


def sym_code(s) -> int:
    """A symbol's code; one outside the alphabet gets the next free code."""
    code = SYM.get(s)
    if code is None:
        if not isinstance(s, str) or not s:
            raise StepperFault(f"stepper emitted {s!r}, which is not a symbol")
        if len(SYMBOLS) >= 256:
            raise StepperFault("the stepper emitted too many symbols outside the alphabet")
        code = SYM[s] = len(SYMBOLS)
        SYMBOLS.append(s)
    return code


def _next_code(w) -> int:
    code = NEXT.get(w)
    if code is None:
        if not isinstance(w, str) or not w:
            raise StepperFault(f"stepper named {w!r} as its next operation")
        if len(NEXTS) >= 256:
            raise StepperFault("the stepper named too many next operations outside the alphabet")
        code = NEXT[w] = len(NEXTS)
        NEXTS.append(w)
    return code


def step_code(step) -> int:
    """The code of a step (a Step or any (sym, flag, next) triple of strings)."""
    try:
        code = STEP_CODE.get(step)
    except TypeError:  # unhashable: a list
        code = None
    if code is not None:
        return code
    try:
        s = Step(*step)
    except TypeError:
        raise StepperFault(f"stepper returned {step!r}, not a step (symbol, flag, next)") from None
    code = STEP_CODE.get(s)
    if code is not None:
        return code
    sym, flag, nxt = sym_code(s.sym), sym_code(s.flag), _next_code(s.next)
    if sym < NSYM and flag < NSYM and nxt < NNEXT:
        return (sym * NSYM + flag) * NNEXT + nxt
    code = len(STEPS)
    if code >= N_STEPS:
        raise StepperFault("the stepper emitted too many steps outside the alphabet")
    STEP_SYM[code], STEP_FLAG[code], STEP_NEXT[code] = sym, flag, nxt
    STEPS.append(s)
    STEP_CODE[s] = code
    _STATE_TABLES.clear()
    return code


def view_code(op: str, a: str, b: str, c: str) -> int:
    ka, kb, kc = sym_code(a), sym_code(b), sym_code(c)
    if ka < NSYM and kb < NSYM and kc < NSYM:
        return ((OP[op] * NSYM + ka) * NSYM + kb) * NSYM + kc
    return _other_view(View(op, a, b, c))


def code4(op: int, a: int, b: int, c: int) -> int:
    """A view code from the codes of its operation and cells."""
    if a < NSYM and b < NSYM and c < NSYM:
        return ((op * NSYM + a) * NSYM + b) * NSYM + c
    return _other_view(View(OPS[op], SYMBOLS[a], SYMBOLS[b], SYMBOLS[c]))


def text_of(codes) -> str:
    """The symbols of an array of symbol codes, joined."""
    return "".join(SYMBOLS[k] for k in np.asarray(codes).tolist())


def _other_view(v: View) -> int:
    code = _OTHER_VIEW_CODE.get(v)
    if code is None:
        if len(_OTHER_VIEWS) >= N_VIEWS - N_BASE_VIEWS:
            raise StepperFault("the stepper led the runtime to too many views outside the alphabet")
        code = _OTHER_VIEW_CODE[v] = N_BASE_VIEWS + len(_OTHER_VIEWS)
        _OTHER_VIEWS.append(v)
    return code


def views_of(ops, a, b, c) -> np.ndarray:
    """View codes from int32 arrays (or scalars) of operation and symbol codes, broadcast."""
    out = ((ops * NSYM + a) * NSYM + b) * NSYM + c
    if len(SYMBOLS) == NSYM:  # no cell anywhere holds a symbol outside the alphabet
        return out
    ops, a, b, c = (np.asarray(x, dtype=np.int32) for x in (ops, a, b, c))
    other = (a >= NSYM) | (b >= NSYM) | (c >= NSYM)
    if other.any():  # a symbol outside the alphabet (a wrong stepper's): one by one
        out = np.array(out)
        o, a, b, c = np.broadcast_arrays(ops, a, b, c)
        for k in zip(*np.nonzero(other)):
            out[k] = _other_view(View(OPS[o[k]], SYMBOLS[a[k]], SYMBOLS[b[k]], SYMBOLS[c[k]]))
    return out


def distinct_sorted(codes: np.ndarray) -> np.ndarray:
    """The distinct values of a small integer array, ascending (np.unique, without its
    per-call overhead: a sort and a comparison)."""
    s = np.sort(codes)
    if len(s) > 1:
        keep = np.empty(len(s), dtype=bool)
        keep[0] = True
        np.not_equal(s[1:], s[:-1], out=keep[1:])
        s = s[keep]
    return s


def view_of(code: int) -> View:
    code = int(code)
    if code >= N_BASE_VIEWS:
        return _OTHER_VIEWS[code - N_BASE_VIEWS]
    c, code = code % NSYM, code // NSYM
    b, code = code % NSYM, code // NSYM
    a, op = code % NSYM, code // NSYM
    return View(OPS[op], CELL_SYMBOLS[a], CELL_SYMBOLS[b], CELL_SYMBOLS[c])


def views_from_codes(codes) -> list[View]:
    """View objects for view codes (a list stepper's input); each made once (a View is
    immutable), so a batch's views cost a dictionary lookup each."""
    made, out = _VIEWS_MADE, []
    for c in np.asarray(codes).tolist():
        v = made.get(c)
        if v is None:
            v = made[c] = view_of(c)
        out.append(v)
    return out


_VIEWS_MADE: dict = {}


def codes_of_views(views) -> np.ndarray:
    """View codes of a list of View (or 4-tuples of strings)."""
    return np.fromiter((view_code(*v) for v in views), dtype=np.int32, count=len(views))


def step_codes_of(steps, n: int) -> np.ndarray:
    """Step codes of what a list stepper returned for n views."""
    if not isinstance(steps, (list, tuple)) or len(steps) != n:
        got = len(steps) if isinstance(steps, (list, tuple)) else type(steps).__name__
        raise StepperFault(f"stepper returned {got} steps for {n} views")
    try:  # the usual case: every step one of the alphabet's, a dictionary lookup each
        codes = [STEP_CODE[s] for s in steps]
    except (KeyError, TypeError):  # a step outside the alphabet, or not a Step: one by one
        codes = [step_code(s) for s in steps]
    return np.array(codes, dtype=np.int32)


def checked_step_codes(codes, n: int) -> np.ndarray:
    """What an array stepper returned: n step codes, each one that exists."""
    codes = np.asarray(codes)
    if codes.shape != (n,) or codes.dtype.kind not in "iu":
        raise StepperFault(f"stepper returned step codes of shape {codes.shape} for {n} views")
    if n == 1:
        if not 0 <= int(codes[0]) < len(STEPS):
            raise StepperFault("stepper returned a step code outside the alphabet")
    elif n and (codes.min() < 0 or codes.max() >= len(STEPS)):
        raise StepperFault("stepper returned a step code outside the alphabet")
    return codes.astype(np.int32, copy=False)


HALTS, OUTSIDE = -1, -2


def state_table(states: tuple, carry: bool) -> np.ndarray:
    """step code -> the index in `states` of the (operation, carry) the step moves a scan to;
    HALTS when its next word is not a column operation, OUTSIDE when the state is not one of
    `states`.  Without a carry row a scan's state carries no carry (blank)."""
    key = (states, carry)
    t = _STATE_TABLES.get(key)
    if t is None:
        n = len(STEPS)
        nxt, flag = STEP_NEXT[:n].astype(np.int64), STEP_FLAG[:n].astype(np.int64)
        if not carry:
            flag = np.full(n, BLANK_CODE)
        t = np.full(N_STEPS, HALTS, dtype=np.int8)
        t[:n][SCAN_NEXT[nxt]] = OUTSIDE
        for k, (o, c) in enumerate(states):
            t[:n][(nxt == OP[o]) & (flag == SYM[c])] = k
        _STATE_TABLES[key] = t
    return t


_STEP_FIELDS: list = []


def step_fields() -> list:
    """step code -> (symbol code, flag code, next code, or -1 when the next word is not a column
    operation), as a list: a short walk reads its steps in plain Python (scans.py)."""
    if len(_STEP_FIELDS) != len(STEPS):
        nxt = np.where(SCAN_NEXT[STEP_NEXT[: len(STEPS)]], STEP_NEXT[: len(STEPS)].astype(np.int64), -1)
        _STEP_FIELDS[:] = zip(STEP_SYM[: len(STEPS)].tolist(), STEP_FLAG[: len(STEPS)].tolist(), nxt.tolist())
    return _STEP_FIELDS
