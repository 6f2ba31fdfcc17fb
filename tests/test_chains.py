"""Following emitted states (sketchpad/chains.py): the three ways (Python walk, running
resets, column loop) and the one-row form give exactly the chain a naive walker gives, on
random class tables with constant, identity and irregular kinds and every kind of end."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sketchpad import chains
from sketchpad.chains import HALTS, MISS, OUTSIDE, Chains, follow, follow_row


def naive(first, classes, kinds, length):
    cur, j, states = int(first), 0, [-1]
    while cur >= 0 and j + 1 < length:
        j += 1
        states.append(cur)
        cur = int(classes[kinds[j - 1], cur])
    return states, j, cur


def random_chains(rnd, S, L, n, regular):
    K = 6
    classes = np.empty((K, n), dtype=np.int8)
    for k in range(K):
        kind = rnd.choice(["const", "ident", "odd", "end"] if not regular else ["const", "ident", "const", "end"])
        if kind == "const":
            classes[k] = rnd.integers(0, n)
        elif kind == "ident":
            classes[k] = np.arange(n)
        elif kind == "end":
            classes[k] = rnd.choice([HALTS, OUTSIDE, MISS])
        else:
            classes[k] = rnd.integers(-3, n, size=n)
    # ends are rare in long rows, as in a real scan (a few columns at its top)
    weights = np.array([1.0 if (classes[k] >= 0).all() else 0.02 for k in range(K)])
    kinds = rnd.choice(K, size=(S, max(L - 1, 0)), p=weights / weights.sum()).astype(np.int32)
    first = rnd.integers(-1, n, size=S)
    lengths = rnd.integers(1, L + 1, size=S)
    return Chains(classes, kinds, first, lengths)


@pytest.mark.parametrize("n", [1, 2, 3, 9])
@pytest.mark.parametrize("L", [5, 70, 400, 700])
@pytest.mark.parametrize("regular", [True, False])
def test_follow_equals_the_naive_walk(n, L, regular):
    rnd = np.random.default_rng(n * 1000 + L + regular)
    for _ in range(20):
        ch = random_chains(rnd, int(rnd.integers(1, 12)), L, n, regular)
        states, last, term = follow(ch)
        for r in range(len(ch.first)):
            want = naive(ch.first[r], ch.classes, ch.kinds[r], ch.lengths[r])
            assert (list(states[r, : last[r] + 1]), int(last[r]), int(term[r])) == want
            assert (states[r, last[r] + 1 :] == -1).all()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), S=st.integers(1, 30), L=st.integers(2, 400), n=st.sampled_from([1, 2, 3, 9]))
def test_blocks_equal_the_naive_walk(seed, S, L, n):
    rnd = np.random.default_rng(seed)
    ch = random_chains(rnd, S, L, n, False)
    states, last, term = chains._blocks(ch, L)
    for r in range(S):
        want = naive(ch.first[r], ch.classes, ch.kinds[r], ch.lengths[r])
        assert (list(states[r, : last[r] + 1]), int(last[r]), int(term[r])) == want
        assert (states[r, last[r] + 1 :] == -1).all()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), L=st.integers(1, 300), n=st.sampled_from([1, 2, 3]))
def test_one_row_equals_the_naive_walk(seed, L, n):
    rnd = np.random.default_rng(seed)
    ch = random_chains(rnd, 1, L, n, bool(seed % 2))
    length = int(ch.lengths[0])
    states, last, term = follow_row(int(ch.first[0]), ch.classes, ch.kinds[0], length)
    assert (list(states), last, term) == naive(ch.first[0], ch.classes, ch.kinds[0], length)
    # the same row given a class per column (kinds None: column j's kind is j - 1)
    per_column = ch.classes[ch.kinds[0, : max(length - 1, 0)]]
    states, last, term = follow_row(int(ch.first[0]), per_column, None, length)
    assert (list(states), last, term) == naive(ch.first[0], ch.classes, ch.kinds[0], length)


def test_each_way_is_taken(monkeypatch):
    """The walk, the resets and the blocks all run (a test of the dispatch, not of speed)."""
    taken = []
    for name in ("_walk", "_resets", "_blocks"):
        original = getattr(chains, name)
        monkeypatch.setattr(chains, name, lambda *a, _o=original, _n=name: taken.append(_n) or _o(*a))
    rnd = np.random.default_rng(1)
    follow(random_chains(rnd, 3, 10, 2, True))
    follow(random_chains(rnd, 3, 200, 2, True))
    rotate = np.array([[1, 2, 0]], dtype=np.int8)  # every column irregular: the blocks (many rows)
    follow(Chains(rotate, np.zeros((40, 199), dtype=np.int32), [0, 1] * 20, [200, 150] * 20))
    assert {"_walk", "_resets", "_blocks"} <= set(taken)


@pytest.mark.parametrize("density", [0.0, 0.1, 0.5, 0.95, 1.0])
def test_fill_passes_the_last_reset_on(density):
    """_fill both ways (few passing columns: runs; many: running keys) equals a plain loop."""
    rnd = np.random.default_rng(int(density * 100))
    for S, L in ((1, 1), (3, 7), (20, 300)):
        val = rnd.integers(-3, 9, size=(S, L)).astype(np.int8)
        reset = rnd.random((S, L)) >= density
        reset[:, 0] = True
        want = val.copy()
        for r in range(S):
            for j in range(1, L):
                if not reset[r, j]:
                    want[r, j] = want[r, j - 1]
        assert (chains._fill(val, reset) == want).all()
