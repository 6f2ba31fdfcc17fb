"""The core benchmark's five problems, fixed by seed, shared by every benchmark script."""

import random

from sketchpad.digits import to_digits


def core_problems(seed: int = 2026) -> list[tuple[str, str]]:
    rnd = random.Random(seed)

    def n(digits):
        return to_digits(rnd.randrange(10 ** (digits - 1), 10**digits))

    return [
        ("1,000-digit + 1,000-digit sum", f"{n(1000)} + {n(1000)}"),
        ("20 x 20-digit product", f"{n(20)} * {n(20)}"),
        ("200 / 100-digit division", f"{n(200)} // {n(100)}"),
        ("100-digit square root", f"sqrt({n(100)})"),
        ("gcd of two 100-digit numbers", f"gcd({n(100)}, {n(100)})"),
    ]
