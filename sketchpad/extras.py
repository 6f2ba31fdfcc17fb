"""The optional parts of the install.  The base package runs the default path: the shipped
model on ONNX Runtime, its certification, the server and the page.  Training, export, the
PyTorch backend and real checkpoints need the `[train]` extra (pyproject.toml); without it
they stop with one line that names it, never an ImportError traceback."""

from __future__ import annotations

import importlib.util

from .errors import SketchpadError

TRAIN = ("torch", "transformers", "peft", "safetensors", "onnx", "onnxscript")  # pyproject's [train]
INSTALL_TRAIN = "pip install 'sketchpad[train]'"


class MissingExtra(SketchpadError):
    """A command needs a part of the install that is not there (exit 4)."""

    exit_code = 4


def message(what: str, missing: str) -> str:
    return f"{what} needs the [train] extra ({missing} is not installed): {INSTALL_TRAIN}"


def require_train(what: str, packages=("torch", "transformers", "peft")) -> None:
    """Raise MissingExtra naming the extra unless `packages` (of TRAIN) can be imported."""
    for name in packages:
        if importlib.util.find_spec(name) is None:
            raise MissingExtra(message(what, name))


def from_import_error(e: ModuleNotFoundError, what: str) -> MissingExtra | None:
    """The one-line error for an import of a [train] package that failed, else None."""
    root = (e.name or "").split(".")[0]
    return MissingExtra(message(what, root)) if root in TRAIN else None
