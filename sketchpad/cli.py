"""The `sketchpad` command.  Each subcommand lives in sketchpad/commands/<name>.py and exposes
`register(subparsers)`; the parser it adds sets `func(args) -> exit code`.

Exit codes: 0 success, 1 a check failed (e.g. a certificate), 2 bad input, 3 stepper fault,
4 a part of the install is missing (the [train] extra), 5 `serve` cannot listen on its port.
User errors print one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import commands
from .errors import SketchpadError
from .extras import from_import_error
from .version import __version__

DESCRIPTION = (
    "Long arithmetic by a language model that sees three cells of a worksheet at a time, "
    "exact at every length on a device where it passed every view (its certificate)."
)


class _CommandParser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage errors: one line, exit 2
        self.exit(2, f"sketchpad: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _CommandParser(
        prog="sketchpad",
        description=DESCRIPTION,
        epilog="Exit codes: 0 success, 1 a check failed (a certificate, a benchmark answer), "
        "2 bad input, 3 a stepper fault, 4 the [train] extra is missing (train, export, --backend torch: "
        "pip install 'sketchpad[train]'), 5 `serve` cannot listen on its port.  "
        "`sketchpad COMMAND --help` for each command.",
    )
    parser.add_argument("--version", action="version", version=f"sketchpad {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_CommandParser)

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except SketchpadError as e:
        print(f"sketchpad: error: {e}", file=sys.stderr)
        return e.exit_code
    except ModuleNotFoundError as e:  # a [train] package, not installed: name the extra
        missing = from_import_error(e, f"`sketchpad {args.command}`")
        if missing is None:
            raise
        print(f"sketchpad: error: {missing}", file=sys.stderr)
        return missing.exit_code
    except KeyboardInterrupt:
        print("sketchpad: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
