"""The examples in sketchpad/symbolic/README.md are executed, so they cannot go stale."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from sketchpad.cli import main

README = (Path(__file__).resolve().parents[1] / "sketchpad" / "symbolic" / "README.md").read_text()


@pytest.mark.parametrize("block", re.findall(r"```python\n(.*?)```", README, re.S))
def test_python_examples_run(block):
    exec(compile(block, "README.md", "exec"), {})


def _console_examples():
    block = re.search(r"```console\n(.*?)```", README, re.S).group(1)
    out = []
    for chunk in block.split("$ ")[1:]:
        command, *expected = chunk.strip("\n").split("\n")
        out.append((shlex.split(command), "\n".join(expected)))
    return out


@pytest.mark.parametrize("argv, expected", _console_examples())
def test_cli_examples_print_what_the_readme_says(argv, expected, capsys):
    assert argv[0] == "sketchpad"
    assert main(argv[1:]) == 0
    assert capsys.readouterr().out.strip() == expected
