"""Fault injection: steppers that are wrong on exactly one view.  Used by the tests of the
"only if" direction (a wrong step on a view of V changes that view's witness run) and by the
certifier's tests (a certifier that never fails is worthless)."""

from __future__ import annotations

from .reference import ReferenceStepper, reference_step
from .symbols import (
    ADD,
    BLANK,
    DIGITS,
    EQ,
    GT,
    HALT,
    LT,
    MINUS,
    MUL,
    NONZERO_FLAG,
    PLUS,
    SCAN_OPS,
    SUB,
    ZERO_FLAG,
    Step,
    View,
)

_FLIP = {PLUS: MINUS, MINUS: PLUS, LT: GT, GT: LT, EQ: LT, ZERO_FLAG: NONZERO_FLAG, NONZERO_FLAG: ZERO_FLAG}


def wrong_steps(view: View) -> list[Step]:
    """Plausible wrong answers for `view`, one per field: another digit or the opposite sign
    or flag; another carry; the opposite choice between going on and halting."""
    s = reference_step(view)
    out = []
    if s.sym in DIGITS:
        out.append(s._replace(sym=str((int(s.sym) + 1) % 10)))
    elif s.sym in _FLIP:
        out.append(s._replace(sym=_FLIP[s.sym]))
    if s.flag in DIGITS:
        out.append(s._replace(flag=BLANK if s.flag == "1" else "1"))
    elif s.flag == BLANK and view.op in (ADD, SUB, MUL):
        out.append(s._replace(flag="1"))
    if s.next in SCAN_OPS:
        out.append(s._replace(next=HALT))
    else:
        out.append(s._replace(next=view.op if view.op in SCAN_OPS else HALT))
    return [w for w in out if w != s]


def wrong_step(view: View) -> Step:
    return wrong_steps(view)[0]


class OneWrongStepper(ReferenceStepper):
    """The reference everywhere except on one view, where it answers `wrong`."""

    def __init__(self, view: View, wrong: Step | None = None):
        super().__init__()
        self.view = view
        self.wrong = wrong if wrong is not None else wrong_step(view)
        self.name = f"wrong-at {view.key()}"

    def __call__(self, views):
        steps = super().__call__(views)
        return [self.wrong if v == self.view else s for v, s in zip(views, steps)]
