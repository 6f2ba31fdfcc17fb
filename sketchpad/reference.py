"""The reference stepper: the specification of every step, as one readable function.

Everything else is derived from this file or checked against it: the view set's expected
steps, the model's training data, the certifier's answers, the JavaScript fixtures and the
Lean table.  Each branch is what a person does with pencil and paper on one column.
"""

from __future__ import annotations

from .symbols import (
    ABS,
    ADD,
    ADD2,
    ADJ,
    BLANK,
    CMP,
    CMP_EQ,
    CMP_GT,
    CMP_LT,
    DQ,
    EQ,
    GT,
    HALT,
    INC,
    LT,
    MINUS,
    MUL,
    NEG,
    NONZERO_FLAG,
    ODD,
    PLUS,
    SGN_ADD,
    SGN_DIV,
    SGN_MUL,
    SGN_SUB,
    SUB,
    SWAP,
    ZERO_FLAG,
    ZT,
    Step,
    View,
)


def digit(s: str) -> int:
    """A blank cell counts as 0 (a number's missing high digits, a missing carry)."""
    return 0 if s == BLANK else int(s)


def carry_symbol(n: int) -> str:
    """Carries are written only when non-zero, as on paper."""
    return BLANK if n == 0 else str(n)


def reference_step(view: View) -> Step:
    op, a, b, c = view
    if op == ADD:
        if a == BLANK and b == BLANK and c == BLANK:
            return Step(BLANK, BLANK, HALT)
        s = digit(a) + digit(b) + digit(c)
        return Step(str(s % 10), carry_symbol(s // 10), ADD)
    if op == SUB:
        if a == BLANK and b == BLANK:
            return Step(BLANK, c, HALT)  # the flag is the final borrow
        d = digit(a) - digit(b) - digit(c)
        return Step(str(d % 10), carry_symbol(1 if d < 0 else 0), SUB)
    if op in (CMP_EQ, CMP_LT, CMP_GT):
        if a == BLANK and b == BLANK:
            return Step({CMP_EQ: EQ, CMP_LT: LT, CMP_GT: GT}[op], BLANK, HALT)
        x, y = digit(a), digit(b)  # a higher column decides over lower ones
        return Step(BLANK, BLANK, op if x == y else (CMP_LT if x < y else CMP_GT))
    if op == MUL:
        if a == BLANK:
            return Step(BLANK, BLANK, HALT) if c == BLANK else Step(c, BLANK, MUL)
        p = digit(a) * digit(b) + digit(c)
        return Step(str(p % 10), carry_symbol(p // 10), MUL)
    if op == ZT:
        if a == BLANK:
            return Step(ZERO_FLAG, BLANK, HALT)
        return Step(BLANK, BLANK, ZT) if a == "0" else Step(NONZERO_FLAG, BLANK, HALT)
    if op == INC:
        if a == "9":
            return Step("0", BLANK, INC)
        return Step(str(digit(a) + 1), BLANK, HALT)
    if op == ADD2:
        s = digit(a) + 2
        return Step(str(s % 10), BLANK, INC if s >= 10 else HALT)
    if op == DQ:
        # a = the final borrow of a trial subtraction, b = the quotient digit counted so far.
        if a == BLANK:
            return Step(str(digit(b) + 1), BLANK, SUB)  # it fitted: count it, try again
        return Step(str(digit(b)), BLANK, HALT)  # it did not: the digit is final
    if op == ODD:
        return Step("1", BLANK, HALT)
    if op == NEG:
        return Step(PLUS if a == MINUS else MINUS, BLANK, HALT)
    if op == ABS:
        return Step(PLUS, BLANK, HALT)
    if op == SGN_MUL:
        return Step(PLUS if a == b else MINUS, BLANK, MUL)
    if op == SGN_DIV:
        # Floor division (Python's // and %): the remainder takes the divisor's sign; with
        # different signs and a non-zero remainder, q = -(|q|+1) and r = |b| - |r|.
        q_sign = PLUS if a == b else MINUS
        return Step(q_sign, b, ADJ if (a != b and c == NONZERO_FLAG) else HALT)
    if op in (SGN_ADD, SGN_SUB):
        same = a == b
        if op == SGN_SUB:  # a - b  =  a + (-b)
            b = MINUS if b == PLUS else PLUS
            same = a == b
        if c == BLANK:
            return Step(a, BLANK, ADD) if same else Step(BLANK, BLANK, CMP)
        # Different signs: the larger magnitude gives the sign; equal magnitudes give +0.
        if c == EQ:
            return Step(PLUS, BLANK, SUB)
        return Step(a, BLANK, SUB) if c == GT else Step(b, BLANK, SWAP)
    raise ValueError(f"no such operation: {op!r}")


class ReferenceStepper:
    """The batched stepper interface, answered by the specification itself: views in, steps
    out, or view codes in, step codes out (sketchpad/codes.py) through one table lookup."""

    name = "reference"

    def __init__(self):
        self._memo: dict[View, Step] = {}

    def step_codes(self, codes):
        """Step codes (numpy) for view codes (numpy): sketchpad/codes.py."""
        import numpy as np  # lazy: numpy; the package loads this module, --help loads nothing heavy

        from .codes import step_code, view_of  # lazy: numpy, as above

        table = _table()
        out = table[codes]
        missing = out < 0
        if missing.any():  # the spec, asked once per view for the life of the process
            for c in np.unique(codes[missing]).tolist():
                table[c] = step_code(reference_step(view_of(c)))
            out = table[codes]
        return out

    def step_code(self, code: int) -> int:
        """The step code of one view code (the sequential mode's batches of one view)."""
        s = _table()[code]
        if s < 0:
            s = self.step_codes(_table()[code : code + 1] * 0 + code)[0]
        return int(s)

    def __call__(self, views: list[View]) -> list[Step]:
        memo = self._memo
        out = []
        for v in views:
            s = memo.get(v)
            if s is None:
                s = memo[v] = reference_step(v)
            out.append(s)
        return out


_TABLE: list = []


def _table():
    """view code -> step code of the reference stepper (-1: not asked yet), a numpy array."""
    if not _TABLE:
        import numpy as np  # lazy: numpy, as in step_codes

        from .codes import N_VIEWS  # lazy: numpy, as above

        _TABLE.append(np.full(N_VIEWS, -1, dtype=np.int32))
    return _TABLE[0]
