"""`export_model`: model directory -> model.onnx + model.json + parity.json, checked on all of V."""

from __future__ import annotations

import json
import time
from pathlib import Path

from sketchpad.digest import sha256_file

FORMAT = "sketchpad-onnx/1"


def export_model(model_dir=None, out_dir="onnx", *, handle=None, base: bool = False, log=lambda msg: None) -> dict:
    """Export the gated model (gate = graph input) and check it against PyTorch on every view.

    base=True also writes base.onnx: the same graph with the adapter removed, which the tests
    compare bit for bit with model.onnx at gate 0.
    """
    import torch

    from sketchpad import views as V
    from sketchpad.version import __version__

    from . import encoding, parity, source
    from .onnx_graph import OPSET, export_module

    handle = handle or source.load(model_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    table = encoding.probe(handle.encode)
    log(f"tokenizer table: {table['length']} tokens per view, checked on every possible view")
    onnx_path = export_module(handle.step_module(gated=True), table["length"], out / "model.onnx", gated=True)
    log(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - t0:.1f} s")
    if base:
        export_module(handle.step_module(gated=False), table["length"], out / "base.onnx", gated=False)
        log(f"wrote {out / 'base.onnx'}")

    view_list = [r["view"] for r in V.load()]
    report = parity.check(handle, onnx_path, view_list, gate=1.0)
    log(
        f"parity on {report['views']} views: {report['identical_steps']} identical steps, "
        f"largest logit difference {report['max_abs_logit_diff']:.3g}"
    )
    meta = {
        "format": FORMAT,
        "tool_version": __version__,
        "onnx": "model.onnx",
        "onnx_sha256": sha256_file(onnx_path),
        "onnx_bytes": onnx_path.stat().st_size,
        "dtype": "float32",
        "opset": OPSET,
        "exporter": f"torch.onnx dynamo exporter, torch {torch.__version__}",
        "inputs": {"input_ids": ["batch", table["length"]], "gate": [1]},
        "output": {"step_logits": ["batch", len(handle.steps)]},
        "gate": 1.0,
        "encoding": table,
        "steps": [list(s) for s in handle.steps],
        "source": handle.describe(),
        "views_sha256": V.file_sha256(),
        "parity": {k: report[k] for k in ("views", "identical_steps", "max_abs_logit_diff", "worst_view", "passed")},
    }
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    (out / "parity.json").write_text(json.dumps(report, indent=1) + "\n")
    return {"onnx": str(onnx_path), "meta": meta, "parity": report}
