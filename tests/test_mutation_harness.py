"""The mutation harness's own checks (mutation/harness.py; docs/mutation.md): every curated
mutant still applies to the tree (its snippet occurs exactly once), names tests that exist as
files, and a mutant that cannot apply is refused with the reason; generated mutants change
one token each."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "mutation"))

import generate  # noqa: E402
import harness  # noqa: E402


def test_every_curated_mutant_applies_and_names_real_tests():
    mutants = harness.load()
    assert len(mutants) >= 20
    for m in mutants:
        assert m.check(ROOT) is None, (m.name, m.check(ROOT))
        for t in m.tests:
            path = t.removeprefix("node:").split("::")[0]
            assert (ROOT / path).is_file(), (m.name, t)


def test_a_mutant_that_cannot_apply_is_refused(tmp_path):
    (tmp_path / "f.py").write_text("x = 1\ny = 1\n")
    m = harness.Mutant("m", "g", "f.py", "= 1", "= 2", ["tests/test_x.py::t"])
    assert "occurs 2 times" in m.check(tmp_path)
    assert "does not exist" in harness.Mutant("m", "g", "nope.py", "a", "b", ["t"]).check(tmp_path)
    assert "names no test" in harness.Mutant("m", "g", "f.py", "x = 1", "x = 2", []).check(tmp_path)


def test_duplicate_names_are_refused(tmp_path):
    entry = '[[mutant]]\nname = "a"\nguard = "g"\nfile = "f"\noriginal = "x"\nreplacement = "y"\ntests = ["t"]\n'
    (tmp_path / "m.toml").write_text(entry * 2)
    with pytest.raises(SystemExit, match="used twice"):
        harness.load(tmp_path / "m.toml")


def test_generated_mutants_change_one_token(tmp_path):
    src = tmp_path / "f.py"
    src.write_text('"""doc: a < b and 1"""\n\n\ndef f(a, b):\n    return a < b and b != 0\n')
    ms = generate.mutants(src, tmp_path, ["t"])
    got = sorted(m["replacement"].strip() for m in ms)
    assert got == sorted(
        [
            "return a <= b and b != 0",
            "return a < b or b != 0",
            "return a < b and b == 0",
            "return a < b and b != 1",
        ]
    )
    for m in ms:
        text = src.read_text()
        assert text.count(m["original"]) == 1
