"""Parity of the ONNX file against PyTorch on every view of V.

For each view: the step ONNX Runtime picks must be the step PyTorch picks (identical, not
close), and we report the largest absolute logit difference over all views and step tokens.
Both sides run in batches (a 0.8B-parameter model must not hold the logits or activations of
all of V at once), and the export's pipeline computes the PyTorch side first and frees PyTorch
before ONNX Runtime loads the graph, so the two copies of the weights are never in memory together.
"""

from __future__ import annotations

import time

import numpy as np
import onnxruntime as ort


def ort_session(path, threads: int = 2):
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


def onnx_logits(path, ids: np.ndarray, gate: float | None, batch: int = 4096, tick=None, threads: int = 2):
    """Step logits of the graph at `path` for token ids [N, L], `batch` rows at a time."""
    session = ort_session(path, threads)
    parts = []
    for i in range(0, len(ids), batch):
        parts.append(run_onnx(session, ids[i : i + batch], gate))
        if tick:
            tick(len(parts[-1]))
    return np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)


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


def check(handle, onnx_path, views, gate: float = 1.0, batch: int = 4096) -> dict:
    """handle: the torch side (see export/source.py); views: list of View."""
    t0 = time.perf_counter()
    torch_logits = handle.torch_logits(views, gate)
    t1 = time.perf_counter()
    ids = np.array([handle.encode(v) for v in views], dtype=np.int64)
    return check_logits(torch_logits, t1 - t0, onnx_path, ids, views, handle.steps, gate, batch)


def check_logits(torch_logits, torch_seconds, onnx_path, ids, views, steps, gate=1.0, batch=4096, tick=None) -> dict:
    """The ONNX side of the parity check, against PyTorch logits computed earlier."""
    t1 = time.perf_counter()
    got = onnx_logits(onnx_path, ids, gate, batch, tick)
    report = compare(torch_logits, got, views, steps)
    report.update(gate=gate, torch_seconds=round(torch_seconds, 4), onnx_seconds=round(time.perf_counter() - t1, 4))
    return report
