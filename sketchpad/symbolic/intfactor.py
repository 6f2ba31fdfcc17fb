"""Integer factoring by trial division, every division on the sheet, and deliberately bounded.

Trial divisors are the primes below TRIAL_LIMIT (a small table of structural constants; each
enters the audit as a literal).  A number is 'completely factored' when its cofactor is 1 or
provably prime (no trial prime up to its square root divides it).  Callers use the result only
when it is complete, or use the weaker facts documented on `square_part`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .integer import Z

TRIAL_LIMIT = 1000


def _primes_below(n: int) -> list[int]:
    # A sieve over small structural integers (trial divisors), not over any coefficient.
    flags = bytearray([1]) * n
    flags[:2] = b"\0\0"
    for i in range(2, int(n**0.5) + 1):
        if flags[i]:
            flags[i * i :: i] = bytearray(len(flags[i * i :: i]))
    return [i for i in range(n) if flags[i]]


PRIMES = _primes_below(TRIAL_LIMIT)


@dataclass
class IntegerFactors:
    factors: list  # [(prime Z, exponent int)]
    cofactor: Z  # what is left (1 when complete)
    complete: bool

    def divisor_count(self) -> int:
        n = 1
        for _, e in self.factors:
            n *= e + 1  # counts divisors (structural), not a coefficient
        return n


def trial_factor(n: Z, primes: list[int] = PRIMES) -> IntegerFactors:
    ctx = n.ctx
    n = abs(n)
    factors = []
    if n.is_zero:
        raise ValueError("cannot factor zero")
    root = n.isqrt()
    for p in primes:
        if n.is_one:
            break
        P = ctx.const(p, "a trial divisor")
        if P > root:  # no prime factor <= sqrt(n) left: n is prime
            factors.append((n, 1))
            return IntegerFactors(factors, ctx.const(1, "one"), True)
        e = 0
        while True:
            q, r = divmod(n, P)
            if not r.is_zero:
                break
            n, e = q, e + 1
        if e:
            factors.append((P, e))
            root = n.isqrt()
    if n.is_one:
        return IntegerFactors(factors, n, True)
    last = ctx.const(primes[-1], "a trial divisor")
    if root < last:  # every prime up to sqrt(n) was tried
        factors.append((n, 1))
        return IntegerFactors(factors, ctx.const(1, "one"), True)
    return IntegerFactors(factors, n, False)


def divisors(f: IntegerFactors) -> list[Z]:
    """All positive divisors of a completely factored number."""
    assert f.complete
    out = [f.cofactor]  # the cofactor is 1 here
    for p, e in f.factors:
        new = []
        for d in out:
            x = d
            for _ in range(e):
                x = x * p
                new.append(x)
        out += new
    return out


def square_part(n: Z) -> tuple[Z, Z, bool]:
    """n = s^2 * c with s > 0, and c as square-free as trial division can show.

    Returns (s, c, proven).  proven is True when c is certainly square-free: the number was
    completely factored, or its unfactored cofactor R (no prime factor below TRIAL_LIMIT) is a
    perfect square, or R < TRIAL_LIMIT^3 (then R is a prime or a product of two primes, which
    are distinct because R is not a square)."""
    ctx = n.ctx
    f = trial_factor(n)
    one = ctx.const(1, "one")
    s, c = one, (-one if n.sign < 0 else one)
    for p, e in f.factors:
        if e // 2:
            s = s * p ** (e // 2)
        if e % 2:
            c = c * p
    proven = f.complete
    if not f.complete:
        R = f.cofactor
        r = R.isqrt()
        if r * r == R:
            s, proven = s * r, True
        else:
            c = c * R
            proven = R < ctx.const(TRIAL_LIMIT**3, "the bound below which an unfactored cofactor is square-free")
    return s, c, proven
