"""The README's examples are executed, so they cannot rot.

```console blocks: each `$ command` line is run in a shell from the repository root (with
the virtual environment's bin on PATH) and must exit 0 and print exactly the lines that follow
it, up to the next `$` line or the end of the block ("..." as a line matches anything).
```python blocks with `>>>` lines are run as doctests.
"""

import doctest
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(console|python)\n(.*?)```", README, re.S)


def console_examples():
    for kind, body in BLOCKS:
        if kind != "console":
            continue
        cmd, expected = None, []
        for line in body.splitlines():
            if line.startswith("$ "):
                if cmd:
                    yield cmd, expected
                cmd, expected = line[2:], []
            elif cmd is not None:
                expected.append(line)
        if cmd:
            yield cmd, expected


@pytest.mark.parametrize("cmd,expected", list(console_examples()), ids=lambda x: str(x)[:50])
def test_console_example(cmd, expected, tmp_path):
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    r = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    got = r.stdout.rstrip("\n").splitlines()
    if expected and expected[-1] == "...":
        assert got[: len(expected) - 1] == expected[:-1]
    else:
        assert got == expected


def test_python_examples():
    code = "\n".join(body for kind, body in BLOCKS if kind == "python")
    assert ">>>" in code
    parser = doctest.DocTestParser()
    test = parser.get_doctest(code, {}, "README", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0
