"""Arithmetic as a service: one operation at a time, or many together in one run (`many`)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sketchpad.arith import Arithmetic
from sketchpad.errors import InputError

big = st.integers(-(10**40), 10**40)
nonzero = big.filter(lambda v: v != 0)


def expected(op, *a):
    return {
        "+": lambda: a[0] + a[1],
        "-": lambda: a[0] - a[1],
        "*": lambda: a[0] * a[1],
        "//": lambda: divmod(a[0], a[1]),
        "neg": lambda: -a[0],
        "sqrt": lambda: math.isqrt(a[0]),
        "gcd": lambda: math.gcd(a[0], a[1]),
    }[op]()


ops = st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*", "gcd"]), big, big),
    st.tuples(st.just("//"), big, nonzero),
    st.tuples(st.just("neg"), big),
    st.tuples(st.just("sqrt"), st.integers(0, 10**40)),
)


@settings(max_examples=25, deadline=None)
@given(st.lists(ops, min_size=0, max_size=12))
def test_many_equals_python_and_one_by_one(batch):
    together, alone = Arithmetic("reference"), Arithmetic("reference")
    got = together.many(batch)
    assert got == [expected(*o) for o in batch]
    assert got == [alone._run(o[0], *o[1:]) for o in batch]
    # one group: the log keeps one record per operation and its sums equal the totals
    assert [r.op for r in together.log] == [o[0] for o in batch]
    assert sum(r.forward_passes for r in together.log) == together.forward_passes
    assert sum(r.batches for r in together.log) == together.batches
    if len(batch) > 1:
        assert together.batches <= alone.batches


def test_many_saves_batches():
    a, b = Arithmetic("reference"), Arithmetic("reference")
    batch = [("//", 10**40 + k, 97 + k) for k in range(20)]
    assert a.many(batch) == [b.divmod(x, y) for _, x, y in batch]
    assert a.batches * 5 < b.batches


@pytest.mark.parametrize(
    "bad",
    [("%", 1, 2), ("+", 1), ("+", 1, 2.0), ("+", True, 2), ("//", 1, 0)],
)
def test_many_rejects_bad_operations(bad):
    with pytest.raises(InputError):
        Arithmetic("reference").many([("+", 1, 2), bad])
