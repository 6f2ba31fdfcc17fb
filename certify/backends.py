"""Backends: the ways a model can be run for certification.

A backend is registered under a name with
  open(model_dir, gate) -> an object with .logits(views) -> float32 [B, n_steps] (one batch)
  describe() -> {"device": ..., "versions": ...}   (goes into the certificate)
  files(model_dir) -> extra files that fix the steps on this backend (e.g. an .onnx graph)
The certifier slices V into batches itself, so a backend only ever answers one batch.
Other backends ("onnx", "browser") register themselves with `register`.
"""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass
class Backend:
    name: str
    open: Callable
    describe: Callable[[], dict]
    files: Callable[[Path], list] = field(default=lambda model_dir: [])


BACKENDS: dict[str, Backend] = {}


def register(backend: Backend) -> Backend:
    BACKENDS[backend.name] = backend
    return backend


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _torch_open(model_dir, gate):
    from sketchpad.model.stepper import ModelStepper
    return ModelStepper.from_dir(model_dir, gate)


def _torch_describe() -> dict:
    import numpy
    import peft
    import torch
    import transformers
    return {"device": {"kind": "cpu", "name": cpu_name(), "machine": platform.machine(),
                       "os": platform.platform(), "cpus": os.cpu_count(),
                       "torch_threads": torch.get_num_threads(), "dtype": "float32",
                       "note": "models under 10M parameters run on 1 intra-op thread (sketchpad.model.stepper)"},
            "versions": {"python": platform.python_version(), "torch": torch.__version__,
                         "transformers": transformers.__version__, "peft": peft.__version__,
                         "numpy": numpy.__version__}}


register(Backend("torch", _torch_open, _torch_describe))


def _onnx_fallback() -> None:
    """Register 'onnx' from sketchpad.model.onnx_stepper.OnnxStepper (same batched interface);
    the graph files (*.onnx under the model dir) become subjects of the certificate."""
    try:
        from sketchpad.model.onnx_stepper import OnnxStepper
    except ImportError:
        return

    def describe() -> dict:
        import numpy
        import onnxruntime
        return {"device": {"kind": "cpu", "name": cpu_name(), "machine": platform.machine(),
                           "os": platform.platform(), "cpus": os.cpu_count(),
                           "providers": onnxruntime.get_available_providers()},
                "versions": {"python": platform.python_version(), "onnxruntime": onnxruntime.__version__,
                             "numpy": numpy.__version__}}

    register(Backend("onnx", lambda d, g: OnnxStepper(d, gate=g), describe,
                     lambda d: sorted(Path(d).rglob("*.onnx")) + sorted(Path(d).rglob("*.onnx.data"))))


def get(name: str) -> Backend:
    """The backend called `name`; 'onnx' is registered on first use by its own module
    (certify/onnx_backend.py, if the ONNX work provides one) or from OnnxStepper."""
    if name not in BACKENDS and name == "onnx":
        try:
            import certify.onnx_backend  # noqa: F401
        except ImportError:
            _onnx_fallback()
    if name not in BACKENDS:
        from sketchpad.errors import InputError
        raise InputError(f"unknown certification backend {name!r} (known: {', '.join(sorted(BACKENDS))})")
    return BACKENDS[name]
