"""Bad input is a feature: a clear one-line message and exit code 2, never a traceback."""

import subprocess
import sys

import pytest

from sketchpad import InputError, solve
from sketchpad.cli import main

BAD = [
    ("1/0", "use //"),
    ("1//0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("7 // (3 - 3)", "division by zero"),
    ("sqrt(-4)", "negative"),
    ("sqrt(3 - 5)", "negative"),
    ("2**3", "power"),
    ("__import__('os')", "unknown function"),
    ("1.5+1", "not an integer"),
    ("1e5", "not an integer"),
    ("0x10", "decimal integer"),
    ("1_000", "decimal integer"),
    ("", "empty"),
    ("   ", "empty"),
    ("1 +", "syntax error"),
    ("(1 + 2", "syntax error"),
    ("1 + 2)", "syntax error"),
    ("a + 1", "unknown name"),
    ("x", "unknown name"),
    ("'12' + 3", "not an integer"),
    ("sqrt(4, 5)", "takes 1 argument"),
    ("gcd(4)", "takes 2 arguments"),
    ("gcd(a=4, b=2)", "keyword"),
    ("pow(2, 3)", "unknown function"),
    ("os.system('ls')", "unknown function"),
    ("1 < 2", "comparisons"),
    ("1 and 2", "'and'/'or'"),
    ("1 if 2 else 3", "not supported"),
    ("[1, 2]", "not supported"),
    ("lambda: 1", "not supported"),
    ("1 & 3", "'&'"),
    ("1 << 3", "'<<'"),
    ("~5", "not supported"),
    ("not 5", "not supported"),
    ("1; 2", "syntax error"),
    ("１２ + 1", "syntax error"),
    ("9" * 10_000_000, "limit"),
    ("9" * 8_001 + " * 3", "limit for *"),
    ("9" * 3_001 + " // 3", "limit for //"),
    ("gcd(" + "9" * 2_001 + ", 3)", "limit for gcd"),
    ("(" * 600 + "1" + ")" * 600, "nested parentheses"),
    ("-" * 5000 + "1", "more than 500 parts"),
    ("1+" * 100_000 + "1", "characters; the limit"),
]


@pytest.mark.parametrize("expr,fragment", BAD, ids=[b[0][:20] or "empty" for b in BAD])
def test_api_rejects_with_a_clear_message(expr, fragment):
    with pytest.raises(InputError) as e:
        solve(expr, "reference")
    msg = str(e.value)
    assert fragment.lower() in msg.lower()
    assert "\n" not in msg and len(msg) < 200


CLI_BAD = BAD[:12] + [b for b in BAD if b[1].startswith("limit")]


@pytest.mark.parametrize("expr,fragment", CLI_BAD, ids=[b[0][:20] for b in CLI_BAD])
def test_cli_exits_2_with_one_line(expr, fragment, capsys):
    assert main(["solve", "--stepper", "reference", expr]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sketchpad: error: ") and "\n" not in err and "Traceback" not in err
    assert fragment.lower() in err.lower()


def test_cli_process_reads_stdin_and_fails_cleanly():
    r = subprocess.run(
        [sys.executable, "-m", "sketchpad", "solve", "--stepper", "reference", "-"],
        input="sqrt(-1)",
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.strip() == "sketchpad: error: square root of a negative number"
    r = subprocess.run(
        [sys.executable, "-m", "sketchpad", "solve", "--bogus-flag", "1"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_limits_are_configurable(capsys):
    assert main(["solve", "--stepper", "reference", "--max-digits", "5", "123456 + 1"]) == 2
    assert "limit is 5" in capsys.readouterr().err
    assert main(["solve", "--stepper", "reference", "--max-digits", "0", "1"]) == 2
