"""The "only if" direction, empirically: for every view in V, one wrong step on that view
changes its witness run.  Exactness on V is therefore not just sufficient but (up to the one
view named below) necessary for exact values."""

import pytest

from derive.views import decisive_wrong_step
from sketchpad import SketchpadError, solve, views
from sketchpad.faults import OneWrongStepper, wrong_steps
from sketchpad.symbols import View

V = views.load()

# The one view whose step can never reach a value: a blank minuend column over a 0 digit of
# the subtrahend with a borrow coming in only occurs in trial subtractions that must borrow
# (a shorter remainder than the divisor, and the divisor's higher non-zero digit borrows
# again).  A wrong step there still changes the sheet, which the second test checks.
NEVER_DECISIVE = {View("SUB", "_", "0", "1")}


def test_a_wrong_step_on_any_view_changes_its_witness_run():
    undecided = []
    for d in V:
        if d["view"] in NEVER_DECISIVE:
            continue
        if decisive_wrong_step(d["view"], d["witness"]) is None:
            undecided.append((d["view"], d["witness"]))
    assert undecided == []


@pytest.mark.parametrize("view", sorted(NEVER_DECISIVE))
def test_the_indecisive_view_still_changes_the_sheet(view):
    witness = next(d["witness"] for d in V if d["view"] == view)
    right = solve(witness, "reference", parallel=False).worksheet.text()
    for wrong in wrong_steps(view):
        try:
            sheet = solve(witness, OneWrongStepper(view, wrong), parallel=False).worksheet.text()
        except SketchpadError:  # the runtime refusing the wrong step is a change too (no other error)
            continue
        assert sheet != right, wrong


def test_a_wrong_digit_gives_a_wrong_sum():
    wrong = OneWrongStepper(View("ADD", "7", "5", "1"))
    assert solve("179 + 253", wrong).value != 179 + 253
    assert solve("179 + 253", "reference").value == 179 + 253
