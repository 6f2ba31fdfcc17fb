"""The "onnx" certification backend: the exported graph (model_dir/onnx/model.onnx) run by
ONNX Runtime's CPU provider, exactly as sketchpad.model.onnx_stepper.OnnxStepper runs it
for solves.  The graph and its model.json (token table, step list) become certificate
subjects: a re-export or an edited graph no longer matches the certificate."""
from __future__ import annotations

import os
import platform
from pathlib import Path

from .backends import Backend, cpu_name, register

THREADS = 2


def _open(model_dir, gate):
    from sketchpad.model.onnx_stepper import OnnxStepper
    return OnnxStepper(model_dir, gate=gate, threads=THREADS)


def _describe() -> dict:
    import numpy
    import onnx
    import onnxruntime
    return {"device": {"kind": "cpu", "name": cpu_name(), "machine": platform.machine(),
                       "os": platform.platform(), "cpus": os.cpu_count(),
                       "execution_provider": "CPUExecutionProvider", "intra_op_threads": THREADS,
                       "dtype": "float32"},
            "versions": {"python": platform.python_version(), "onnxruntime": onnxruntime.__version__,
                         "onnx": onnx.__version__, "numpy": numpy.__version__}}


def _files(model_dir) -> list[Path]:
    from sketchpad.model.onnx_stepper import find_onnx_dir
    d = find_onnx_dir(model_dir)
    return [d / "model.onnx", d / "model.json"]


register(Backend("onnx", _open, _describe, _files))
