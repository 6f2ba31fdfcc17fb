"""The examples of the README and of every docs/ page it links to are executed, so they cannot rot.

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
PAGES = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
README = (ROOT / "README.md").read_text()
# (page, kind, body) of every example block
EXAMPLES = [
    (page, kind, body)
    for page in PAGES
    for kind, body in re.findall(r"```(console|python)\n(.*?)```", (ROOT / page).read_text(), re.S)
]
BLOCKS = [(kind, body) for _, kind, body in EXAMPLES]


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


@pytest.mark.parametrize("page", [p for p in PAGES if any(q == p and k == "python" for q, k, _ in EXAMPLES)])
def test_python_examples(page):
    """Each page's python blocks run as one doctest, in order, in a namespace of their own."""
    code = "\n".join(body for q, kind, body in EXAMPLES if q == page and kind == "python")
    assert ">>>" in code
    parser = doctest.DocTestParser()
    test = parser.get_doctest(code, {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


def test_the_readme_is_the_front_door():
    """At most 350 lines; it opens with the set-up, test and main-job commands; every docs/ page
    and every local link it names exists."""
    lines = README.splitlines()
    assert len(lines) <= 350, f"README.md has {len(lines)} lines (at most 350: the rest goes to docs/)"
    head = "\n".join(lines[:20])
    assert "bash scripts/setup.sh" in head and "python -m pytest" in head and "sketchpad solve" in head
    for page in PAGES:
        text = (ROOT / page).read_text()
        for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            assert (ROOT / page).parent.joinpath(target).exists(), f"{page} links to {target}, which does not exist"
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)", README))
    assert {p.name for p in (ROOT / "docs").glob("*.md")} <= linked, "a docs/ page the README does not link to"
