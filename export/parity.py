"""Parity of the ONNX file against PyTorch on every view of V.

For each view: the step ONNX Runtime picks must be the step PyTorch picks (identical, not
close), and we report the largest absolute logit difference over all views and step tokens.
"""

from __future__ import annotations

import time

import numpy as np


def ort_session(path, threads: int = 2):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def run_onnx(session, ids: np.ndarray, gate: float | None) -> np.ndarray:
    feeds = {"input_ids": ids.astype(np.int64)}
    if gate is not None:
        feeds["gate"] = np.array([gate], dtype=np.float32)
    return session.run(None, feeds)[0]


def compare(torch_logits: np.ndarray, onnx_logits: np.ndarray, views, steps) -> dict:
    t_idx = torch_logits.argmax(axis=1)
    o_idx = onnx_logits.argmax(axis=1)
    diff = np.abs(torch_logits.astype(np.float64) - onnx_logits.astype(np.float64))
    worst = int(diff.max(axis=1).argmax()) if len(views) else 0
    mismatched = [
        {"view": list(views[i]), "torch": list(steps[t_idx[i]]), "onnx": list(steps[o_idx[i]])}
        for i in np.nonzero(t_idx != o_idx)[0]
    ]
    return {
        "views": len(views),
        "identical_steps": int((t_idx == o_idx).sum()),
        "max_abs_logit_diff": float(diff.max()) if len(views) else 0.0,
        "max_abs_logit": float(np.abs(torch_logits).max()) if len(views) else 0.0,
        "worst_view": list(views[worst]) if len(views) else None,
        "mismatches": mismatched,
        "passed": not mismatched,
    }


def check(handle, onnx_path, views, gate: float = 1.0) -> dict:
    """handle: the torch side (see export/source.py); views: list of View."""
    t0 = time.perf_counter()
    torch_logits = handle.torch_logits(views, gate)
    t1 = time.perf_counter()
    ids = np.array([handle.encode(v) for v in views], dtype=np.int64)
    onnx_logits = run_onnx(ort_session(onnx_path), ids, gate)
    t2 = time.perf_counter()
    report = compare(torch_logits, onnx_logits, views, handle.steps)
    report.update(gate=gate, torch_seconds=round(t1 - t0, 4), onnx_seconds=round(t2 - t1, 4))
    return report
