"""The compiled walk (sketchpad/compiled.py) follows exactly the chain a naive walker follows and
copies exactly the stepper rows and flags of the steps on it; a runtime that takes it for every
batch makes the same sheets, counters and provenance as one that never does."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_chains import naive, random_chains
from test_provenance import PROBLEMS, RecordingArray, provenance_errors

from sketchpad import ReferenceStepper, chains, compiled, solve
from sketchpad.batch_steps import BatchSteps
from sketchpad.codes import STEP_CODE
from sketchpad.sheet import Sheet
from sketchpad.symbols import Step


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 12), L=st.integers(1, 300), n=st.sampled_from([1, 2, 3, 9]))
def test_the_compiled_walk_equals_the_naive_walk(seed, S, L, n):
    rnd = np.random.default_rng(seed)
    ch = random_chains(rnd, S, L, n, regular=bool(seed % 2))
    K = len(ch.classes)
    off = rnd.integers(0, 3, size=S)  # each scan's kinds start this many rows down the tables
    classes = np.concatenate([np.full((3, n), -1, dtype=np.int8), ch.classes])
    rows = rnd.integers(0, 10**6, size=(K + 3, n)).astype(np.int32)
    has_sym, has_flag = rnd.random((K + 3, n)) < 0.7, rnd.random((K + 3, n)) < 0.4
    kinds = [(ch.kinds[r, : ch.lengths[r] - 1] + 3 - off[r]).astype(np.int32) for r in range(S)]
    widths = ch.lengths.astype(np.int64)
    first_rows = rnd.integers(0, 10**6, size=S).astype(np.int32)
    first_sym, first_flag = rnd.random(S) < 0.5, rnd.random(S) < 0.5
    takes = [rnd.random(S) < 0.7, rnd.random(S) < 0.7]
    pad = rnd.random(S) < 0.5
    got = compiled.follow_into(
        np.concatenate(kinds), np.cumsum(widths - 1) - (widths - 1), widths, off.astype(np.int64),
        ch.first.astype(np.int16), first_rows, first_sym, first_flag, (classes, rows, has_sym, has_flag), takes, pad, L,
    )  # fmt: skip
    followed, sym_mask, flag_mask, last, term, ends, *picked = got
    walked = []  # each scan's (row, has a symbol, has a flag) along its chain
    for r in range(S):
        states, j, _ = naive(ch.first[r], ch.classes, ch.kinds[r], ch.lengths[r])
        ks = [k + 3 for k in ch.kinds[r, :j]]
        walked.append(
            [(first_rows[r], first_sym[r], first_flag[r])]
            + [(rows[k, s], has_sym[k, s], has_flag[k, s]) for k, s in zip(ks, states[1:])]
        )
        assert ends[r] == walked[r][-1][0]
    for f, (mask, take, (got_rows, cols, counts, tops)) in enumerate(zip((sym_mask, flag_mask), takes, picked)):
        take = take & ~pad  # (a padded scan's steps are in the padded arrays only)
        want = [(w[0], j) for r in range(S) if take[r] for j, w in enumerate(walked[r]) if w[1 + f]]
        assert list(zip(got_rows.tolist(), cols.tolist())) == want
        mask = np.array([[j < len(walked[r]) and bool(walked[r][j][1 + f]) for j in range(L)] for r in range(S)])
        assert counts.tolist() == [int(mask[r].sum()) if take[r] else 0 for r in range(S)]
        tops_want = [int(np.flatnonzero(mask[r])[-1]) + 1 if take[r] and mask[r].any() else 0 for r in range(S)]
        assert tops.tolist() == tops_want
    for r in range(S):
        states, j, cur = naive(ch.first[r], ch.classes, ch.kinds[r], ch.lengths[r])
        assert (int(last[r]), int(term[r])) == (j, cur)
        if not pad[r]:  # (only the padded scans' rows are written)
            assert not followed[r].any() and not sym_mask[r].any() and not flag_mask[r].any()
            continue
        assert followed[r, : j + 1].tolist() == [w[0] for w in walked[r]] and not followed[r, j + 1 :].any()
        assert sym_mask[r, : j + 1].tolist() == [bool(w[1]) for w in walked[r]]
        assert flag_mask[r, : j + 1].tolist() == [bool(w[2]) for w in walked[r]]
        assert not sym_mask[r, j + 1 :].any() and not flag_mask[r, j + 1 :].any()


@pytest.mark.parametrize("expr", PROBLEMS[-2:] + ["2" * 150 + " * " + "7" * 149, "9" * 300 + " // " + "7" * 120])
def test_every_batch_compiled_or_none_the_same_sheets(expr, monkeypatch):
    """Every carry-select batch through the compiled loops (a level's symbol pairs in chunks of a
    few scans), then none: the same sheet, counters and answer, and every computed cell still a
    row of its batch's stepper output."""
    monkeypatch.setattr(chains, "COMPILED", 0)
    monkeypatch.setattr(compiled, "CHUNK", 500)  # a level's pairs a few scans at a time
    st = RecordingArray()
    fast = solve(expr, st)
    assert provenance_errors(expr, fast, st.outputs) == []
    monkeypatch.setattr(chains, "COMPILED", 1 << 60)
    slow = solve(expr, ReferenceStepper())
    assert fast.worksheet.text() == slow.worksheet.text() and fast.value == slow.value
    assert (fast.batches, fast.forward_passes, fast.views_presented) == (
        slow.batches,
        slow.forward_passes,
        slow.views_presented,
    )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 8), L=st.integers(1, 40))
def test_the_compiled_layout_equals_the_numpy_one(seed, S, L):
    """Sheet.write_masked both ways (placing.py), on rows that end below their new cells (the
    usual case) and rows that already show cells there (blank where the new ones go): the same
    cells, the same symbols, the same index arrays."""
    rnd = np.random.default_rng(seed)
    mask = rnd.random((S, L)) < 0.6
    rows = rnd.integers(0, 5, size=(S, L)).astype(np.int32)
    starts = rnd.integers(0, 4, size=S)
    shows = [rnd.integers(0, 8) for _ in range(S)]  # how many columns each row shows before
    kept = rnd.random(S) < 0.9  # (a scan without this field's row: None)
    batch = BatchSteps(0, np.array([STEP_CODE[Step(d, "0", "HALT")] for d in "01234"], dtype=np.int32))
    got = []
    for compiled_ in (False, True):
        chains.COMPILED = 0 if compiled_ else 1 << 60
        try:
            sheet = Sheet("t")
            targets = []
            for s in range(S):
                r = sheet.row(f"r{s}")
                ids = np.full(shows[s], -1, dtype=np.int32)
                lo, top = int(starts[s]), int(np.flatnonzero(mask[s])[-1]) + 1 if mask[s].any() else 0
                ids[[c for c in range(shows[s]) if not lo <= c < lo + top]] = 7  # a cell outside the new ones
                r.ids = ids
                targets.append(r if kept[s] else None)
            Sheet.write_masked(targets, starts, rows, mask, batch, "sym")
            got.append(
                ([None if t is None else t.ids.tolist() for t in targets], sheet.store.sym[: sheet.store.n].tolist())
            )
        finally:
            chains.COMPILED = 1 << 12
    assert got[0] == got[1]
