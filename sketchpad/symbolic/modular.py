"""Modular helpers for Hensel lifting: reduction, evaluation and inverses modulo m, all with
model divisions."""

from __future__ import annotations

from .integer import Z
from .poly import Poly


def mod_eval(f: Poly, x: Z, m: Z) -> Z:
    """f(x) mod m by Horner's rule, reducing after each step (numbers stay below m^2)."""
    acc = f.lc % m
    for k in range(f.degree - 1, -1, -1):
        acc = acc * x
        c = f.coeff(k)
        if c is not None:
            acc = acc + c
        acc = acc % m
    return acc


def reduce(f: Poly, m: Z) -> Poly:
    return Poly(f.ctx, {k: c % m for k, c in f.terms.items()}, f.var)


def inverse(a: Z, m: Z) -> Z | None:
    """a^-1 mod m by the extended Euclidean algorithm, or None when gcd(a, m) != 1."""
    ctx = a.ctx
    old_r, r = a % m, m
    old_s, s = ctx.const(1, "one"), ctx.const(0, "zero")
    while not r.is_zero:
        q, rem = divmod(old_r, r)
        old_r, r = r, rem
        old_s, s = s, old_s - q * s
    if not old_r.is_one:
        return None
    return old_s % m


def symmetric(u: Z, m: Z) -> Z:
    """The representative of u mod m in (-m/2, m/2]."""
    return u - m if (u + u) > m else u


def _rem_mod(a: Poly, b: Poly, m: Z) -> Poly:
    inv = inverse(b.lc, m)
    while not a.is_zero and a.degree >= b.degree:
        t = (a.lc * inv) % m
        a = reduce(a - b.scale(t).shift(a.degree - b.degree), m)
    return a


def squarefree_mod(f: Poly, p: Z) -> bool:
    """Whether gcd(f, f') = 1 over Z/p (p prime, not dividing lc(f)).  If so, f is
    square-free over Z too, which saves the far costlier gcd over Z."""
    a, b = reduce(f, p), reduce(f.derivative(), p)
    if b.is_zero:
        return False
    while not b.is_zero:
        a, b = b, _rem_mod(a, b, p)
    return a.degree == 0
