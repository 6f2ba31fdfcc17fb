"""The finite alphabets of the machine: cell symbols, operations, views and steps.

A View is (operation, cell1, cell2, cell3) and nothing else: no position, no length, no
history.  A Step is (symbol to write, carry/borrow/flag, next operation).  Both are plain
tuples of short strings so they hash, sort, serialise to JSON and cross into JavaScript and
Lean unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

BLANK = "_"
DIGITS = "0123456789"
PLUS, MINUS = "+", "-"
LT, EQ, GT = "<", "=", ">"
ZERO_FLAG, NONZERO_FLAG = "Z", "N"

# Every symbol a cell may hold.
CELL_SYMBOLS = tuple(DIGITS) + (BLANK, PLUS, MINUS, LT, EQ, GT, ZERO_FLAG, NONZERO_FLAG)

# Operations a view can carry.  Column scans walk a row from the units column upwards.
ADD = "ADD"  # (a_i, b_i, carry_i)      a + b, column by column
SUB = "SUB"  # (a_i, b_i, borrow_i)     a - b, column by column; the final borrow is a flag
CMP_EQ, CMP_LT, CMP_GT = "CMP=", "CMP<", "CMP>"  # (a_i, b_i, _) compare, state in the op
MUL = "MUL"  # (a_i, b_j, carry_i)      one partial-product row: a * (digit b_j)
ZT = "ZT"  # (d_i, _, _)              zero test of a row
INC = "INC"  # (d_i, _, _)              add one
ADD2 = "ADD2"  # (d_0, _, _)              add two to the units digit (odd numbers of sqrt)
DQ = "DQ"  # (borrow, q, _)           count a successful trial subtraction
ODD = "ODD"  # (_, _, _)                write the units digit 1 of 20p+1 (square root)
NEG = "NEG"  # (sign, _, _)             flip a sign
ABS = "ABS"  # (sign, _, _)             the sign of |x| (square roots, gcds)
SGN_ADD, SGN_SUB, SGN_MUL, SGN_DIV = "SGN+", "SGN-", "SGN*", "SGN/"  # (sign_a, sign_b, flag)

OPS = (ADD, SUB, CMP_EQ, CMP_LT, CMP_GT, MUL, ZT, INC, ADD2, DQ, ODD, NEG, ABS, SGN_ADD, SGN_SUB, SGN_MUL, SGN_DIV)
SCAN_OPS = frozenset({ADD, SUB, CMP_EQ, CMP_LT, CMP_GT, MUL, ZT, INC, ADD2})

# Control words a step may name as its next operation; the runtime follows them.
HALT = "HALT"  # the procedure (or this scan) is finished
CMP = "CMP"  # run a comparison next, then ask the sign op again
SWAP = "SWAP"  # subtract with the operands' roles exchanged (|b| - |a|)
ADJ = "ADJ"  # floor-division adjustment: q+1 and r = |b| - r
CONTROL = (HALT, CMP, SWAP, ADJ)
NEXT_WORDS = OPS + CONTROL


class View(NamedTuple):
    op: str
    a: str
    b: str
    c: str

    def key(self) -> str:
        return f"{self.op} {self.a}{self.b}{self.c}"


class Step(NamedTuple):
    sym: str
    flag: str
    next: str

    def key(self) -> str:
        return f"{self.sym}{self.flag} {self.next}"


def view_from_key(key: str) -> View:
    op, cells = key.split(" ")
    return View(op, cells[0], cells[1], cells[2])


def step_from_key(key: str) -> Step:
    cells, nxt = key.split(" ")
    return Step(cells[0], cells[1], nxt)
