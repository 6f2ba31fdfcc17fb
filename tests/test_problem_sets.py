"""Pre-registered problem sets: committed files match their committed SHA-256 and the seeded
generator, so nobody can quietly swap a problem after seeing results."""

import hashlib
import pathlib

from benchmarks.make_problem_sets import SETS, render

DIR = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "problems"


def test_files_match_their_registered_hashes():
    registered = dict(line.split()[::-1] for line in (DIR / "SHA256SUMS").read_text().splitlines())
    assert set(registered) == {f"{n}.jsonl" for n in SETS}
    for name, digest in registered.items():
        assert hashlib.sha256((DIR / name).read_bytes()).hexdigest() == digest, name


def test_files_are_what_the_seeded_generator_writes():
    for name in SETS:
        assert (DIR / f"{name}.jsonl").read_text() == render(name)


def test_sizes():
    import json

    mixed = [json.loads(x) for x in (DIR / "mixed-200.jsonl").read_text().splitlines()]
    sp = [json.loads(x) for x in (DIR / "sums-products-220.jsonl").read_text().splitlines()]
    assert len(mixed) == 200 and len(sp) == 220
    assert {p["kind"] for p in mixed} >= {"add", "sub", "mul", "floordiv", "mod", "sqrt", "gcd", "composed"}
    assert sum(p["kind"] == "add" for p in sp) == 110 and sum(p["kind"] == "mul" for p in sp) == 110
