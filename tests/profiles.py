"""Hypothesis profiles (tests/conftest.py registers them; HYPOTHESIS_PROFILE picks one).

default   60 examples a test, derandomized: the same examples on every run (CI).
slow      600 examples, drawn afresh.
nightly   the same, drawn afresh each run, and every test that sets its own small number
          of examples takes NIGHTLY_SCALE times as many (`examples(n)`): on demand,
          `HYPOTHESIS_PROFILE=nightly python -m pytest tests/test_symbolic_props.py`.
"""

import os

NIGHTLY_SCALE = 20
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")


def register(settings) -> None:
    settings.register_profile("default", deadline=None, max_examples=60, derandomize=True)
    settings.register_profile("slow", deadline=None, max_examples=600)
    settings.register_profile("nightly", deadline=None, max_examples=600, derandomize=False)
    settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """A test's own number of examples, scaled up under the nightly profile."""
    return n * NIGHTLY_SCALE if PROFILE == "nightly" else n
