"""Load a model directory as a stepper on a backend, with no judgement: whether the stepper may
be used is the certificate rule's decision (sketchpad.certify), one layer up.

Backends: "onnx" (ONNX Runtime, CPU; no torch import) and "torch" (PyTorch + peft).  The
default is ONNX Runtime whenever the model has an export: on a CPU it is the fastest
certified way to run it (README, "Backends").
"""

from __future__ import annotations

import importlib
from pathlib import Path

from ..errors import InputError
from ..extras import from_import_error, require_train
from . import DEFAULT_MODEL_DIR

BACKENDS = {"onnx": "sketchpad.model.onnx_stepper", "torch": "sketchpad.model.torch_stepper"}


def resolve_model_dir(model_dir=None) -> Path:
    d = Path(model_dir) if model_dir else DEFAULT_MODEL_DIR
    if not d.is_dir():
        raise InputError(f"no model directory at {d}")
    return d


def default_backend(model_dir=None) -> str:
    """onnx when the directory has an export (onnx/) or is one (an export variant such as
    onnx-int8/ is given by its own path), else torch."""
    d = resolve_model_dir(model_dir)
    return "onnx" if (d / "onnx" / "model.json").is_file() or (d / "model.json").is_file() else "torch"


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r} (use {' or '.join(repr(b) for b in BACKENDS)})")
    return backend


def load_stepper(model_dir=None, backend: str | None = None, gate: float = 1.0):
    """The model of `model_dir` as a batched stepper on `backend` (None: the default)."""
    d = resolve_model_dir(model_dir)
    backend = check_backend(backend or default_backend(d))
    if backend == "torch":
        require_train(f"the torch backend (model {d})")
    try:
        module = importlib.import_module(BACKENDS[backend])  # only the backend asked for: torch is an extra
    except ModuleNotFoundError as e:
        raise from_import_error(e, f"the {backend} backend") or InputError(
            f"the {backend} backend is not available: {e}"
        ) from None
    except ImportError as e:
        raise InputError(f"the {backend} backend is not available: {e}") from None
    return module.load(d, gate)
