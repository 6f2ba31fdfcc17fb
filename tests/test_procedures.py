"""Every procedure against Python's own integers: signs, 0 and 1, long operands, both modes."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sketchpad import solve
from sketchpad.arith import Arithmetic


def ints(max_digits):
    """Integers whose digit count is spread evenly up to max_digits, plus the edge values."""
    return st.one_of(
        st.sampled_from([0, 1, -1, 9, -9, 10, -10, 99, 100, -100]),
        st.integers(1, max_digits)
        .flatmap(lambda n: st.integers(10 ** (n - 1), 10**n - 1))
        .flatmap(lambda v: st.sampled_from([v, -v])),
    )


MODES = [True, False]


@pytest.mark.parametrize("parallel", MODES)
@given(a=ints(1000), b=ints(1000))
def test_add_sub(parallel, a, b):
    A = Arithmetic("reference", parallel=parallel)
    assert A.add(a, b) == a + b
    assert A.sub(a, b) == a - b


@pytest.mark.parametrize("parallel", MODES)
@given(a=ints(40), b=ints(40))
def test_mul(parallel, a, b):
    assert Arithmetic("reference", parallel=parallel).mul(a, b) == a * b


@pytest.mark.parametrize("parallel", MODES)
@given(a=ints(60), b=ints(30))
def test_divmod_floor_convention(parallel, a, b):
    if b == 0:
        b = 7
    assert Arithmetic("reference", parallel=parallel).divmod(a, b) == divmod(a, b)


@pytest.mark.parametrize("parallel", MODES)
@given(a=ints(60))
def test_isqrt(parallel, a):
    a = abs(a)
    assert Arithmetic("reference", parallel=parallel).isqrt(a) == math.isqrt(a)


@pytest.mark.parametrize("parallel", MODES)
@given(a=ints(30), b=ints(30))
def test_gcd(parallel, a, b):
    assert Arithmetic("reference", parallel=parallel).gcd(a, b) == math.gcd(a, b)


def test_long_operands_at_the_issue_sizes():
    import random

    rnd = random.Random(7)
    a, b = rnd.randrange(10**999, 10**1000), rnd.randrange(10**999, 10**1000)
    assert solve(f"{a} + {b}", "reference").value == a + b
    assert solve(f"-{a} + {b}", "reference").value == b - a
    x, y = rnd.randrange(10**19, 10**20), rnd.randrange(10**19, 10**20)
    assert solve(f"{x} * -{y}", "reference").value == -x * y
    n, d = rnd.randrange(10**199, 10**200), rnd.randrange(10**99, 10**100)
    assert solve(f"{n} // {d}", "reference").value == n // d
    assert solve(f"{n} % -{d}", "reference").value == n % -d
    assert solve(f"sqrt({n})", "reference").value == math.isqrt(n)
    assert solve(f"gcd({n}, {d})", "reference").value == math.gcd(n, d)


@pytest.mark.slow
@pytest.mark.parametrize("parallel", MODES)
@given(a=ints(300), b=ints(300))
def test_slow_quadratic_procedures(parallel, a, b):
    A = Arithmetic("reference", parallel=parallel)
    assert A.mul(a, b) == a * b
    if b:
        assert A.divmod(a, b) == divmod(a, b)
    assert A.isqrt(abs(a)) == math.isqrt(abs(a))
    assert A.gcd(a, b) == math.gcd(a, b)


@given(st.lists(ints(12), min_size=4, max_size=4))
def test_composed_expressions(xs):
    a, b, c, d = xs
    expr = f"({a}) * ({b}) - ({c}) + gcd({a}, {d}) + sqrt({abs(b)}) - -({c} - {d})"
    want = a * b - c + math.gcd(a, d) + math.isqrt(abs(b)) + (c - d)
    assert solve(expr, "reference").value == want
    if d:
        assert solve(f"({a} * {b}) // ({d}) % ({c} + 1000)", "reference").value == (a * b) // d % (c + 1000)


def test_counters_are_reported():
    s = solve("123456789 + 987654321", "reference", parallel=False)
    assert s.value == 1111111110
    assert s.forward_passes == s.batches == 1 + 11  # sign view + 10 columns + halt
    p = solve("123456789 + 987654321", "reference")
    assert p.batches == 2 and p.forward_passes > s.forward_passes
    assert p.seconds > 0 and p.distinct_views <= p.forward_passes
