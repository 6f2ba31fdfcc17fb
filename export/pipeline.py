"""`export_model`: model directory -> model.onnx (+ model.onnx.data) + model.json + parity.json,
checked on all of V; and smaller variants beside it (variants.py).

The stages run in an order that keeps memory at about the size of the model (a 0.8B-parameter
checkpoint is 3 GB of float32): PyTorch computes its step logits on V in batches first, the
graph is written with its weights streamed to the data file, PyTorch is then freed, and only
then does ONNX Runtime load the graph for the parity check.  Each stage ends with a line
(`[k/n] stage: time, RSS now (peak)`), and the long ones show a progress bar on a terminal.
"""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path

import numpy as np
import onnxruntime
from tqdm import tqdm

from sketchpad import views as V
from sketchpad.digest import sha256_file
from sketchpad.model.onnx_proto import read_model
from sketchpad.progress import Stages
from sketchpad.version import __version__

from . import encoding, parity
from . import variants as VAR
from .variants import has_external_data

FORMAT = "sketchpad-onnx/1"


def _bar(total: int, desc: str):
    return tqdm(total=total, disable=None, leave=False, unit="view", desc=desc)


def file_entry(path: Path) -> dict:
    return {"sha256": sha256_file(path), "bytes": path.stat().st_size}


def external_entries(graph_path: Path) -> dict:
    """{file name: {sha256, bytes}} of the external data files beside a graph (model.json names
    them so that a loader can refuse a tampered or incomplete one in one line)."""
    from .onnx_graph import DATA_SUFFIX  # lazy: onnx_graph imports torch, the [train] extra

    data = Path(str(graph_path) + DATA_SUFFIX)
    return {data.name: file_entry(data)} if data.is_file() else {}


def export_model(
    model_dir=None,
    out_dir="onnx",
    *,
    handle=None,
    base: bool = False,
    variants: tuple[str, ...] = (),
    external: bool | None = None,
    log=lambda msg: None,
) -> dict:
    """Export the gated model (gate = graph input) and check it against PyTorch on every view.

    base=True also writes base.onnx: the same graph with the adapter removed, which the tests
    compare bit for bit with model.onnx at gate 0.  variants: "float16" and/or "int8", written
    beside out_dir (variants.variant_dir).  external: weights in model.onnx.data (None: when
    they exceed onnx_graph.EMBED_LIMIT).
    """

    from . import encoding, parity, source  # lazy: source imports torch, the [train] extra
    from .onnx_graph import export_module  # lazy: onnx_graph imports torch, the [train] extra

    for v in variants:
        if v not in VAR.VARIANTS:
            raise ValueError(f"unknown variant {v!r} (use {' or '.join(VAR.VARIANTS)})")
    stages = Stages(5 + bool(base) + len(variants), log)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with stages("load the model in PyTorch"):
        handle = handle or source.load(model_dir)
    view_list = [r["view"] for r in V.load()]
    with stages(
        f"tokenizer table, checked on every possible view; PyTorch's step logits on all {len(view_list):,} views"
    ):
        table = encoding.probe(handle.encode)
        ids = np.array([encoding.apply(table, v) for v in view_list], dtype=np.int64)
        t = time.perf_counter()
        with _bar(len(view_list), "PyTorch logits") as bar:
            torch_logits = handle.torch_logits(view_list, 1.0, tick=bar.update)
        torch_seconds = time.perf_counter() - t
    with stages("export the graph"):
        onnx_path = export_module(handle.step_module(gated=True), table["length"], out / "model.onnx", True, external)
    log(_written(onnx_path))
    if base:
        with stages("export the base graph (adapter removed)"):
            export_module(handle.step_module(gated=False), table["length"], out / "base.onnx", False, external)
    steps, description = handle.steps, handle.describe()
    torch_version = _torch_version()
    with stages("free PyTorch"):
        del handle
        gc.collect()
    with stages("ONNX Runtime parity on every view"), _bar(len(view_list), "ONNX Runtime logits") as bar:
        report = parity.check_logits(
            torch_logits, torch_seconds, onnx_path, ids, view_list, steps, 1.0, _batch(onnx_path), bar.update
        )
    log(
        f"parity on {report['views']} views: {report['identical_steps']} identical steps, "
        f"largest logit difference {report['max_abs_logit_diff']:.3g}"
    )
    meta = _meta(onnx_path, "float32", table, steps, description, torch_version, report)
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    (out / "parity.json").write_text(json.dumps(report, indent=1) + "\n")
    result = {"onnx": str(onnx_path), "meta": meta, "parity": report, "variants": {}}
    for name in variants:
        with stages(f"{name} variant"):
            result["variants"][name] = _variant(name, out, meta, ids, view_list, torch_logits, "PyTorch (float32)", log)
    return result


def export_variants(onnx_dir, variants: tuple[str, ...], log=lambda msg: None) -> dict:
    """Variants of an existing float32 export, without PyTorch: each is compared with the float32
    graph's own logits on V (`sketchpad export --variants-only`)."""

    out = Path(onnx_dir)
    meta = json.loads((out / "model.json").read_text())
    if meta.get("dtype", "float32") != "float32":
        raise ValueError(f"{out} holds a {meta.get('dtype')} export; variants are made from the float32 one")
    view_list = [r["view"] for r in V.load()]
    ids = np.array([encoding.apply(meta["encoding"], v) for v in view_list], dtype=np.int64)
    stages = Stages(1 + len(variants), log)
    graph = out / meta["onnx"]
    with stages("float32 logits on every view"), _bar(len(view_list), "float32 logits") as bar:
        ref = parity.onnx_logits(graph, ids, 1.0, _batch(graph), bar.update)
    result = {"variants": {}}
    for name in variants:
        with stages(f"{name} variant"):
            result["variants"][name] = _variant(name, out, meta, ids, view_list, ref, "the float32 export", log)
    return result


def _variant(name, out, meta32, ids, view_list, ref_logits, against, log) -> dict:
    d = VAR.variant_dir(out, name)
    path = VAR.make(name, out / meta32["onnx"], d, ids, log)
    log(_written(path))
    steps = [tuple(s) for s in meta32["steps"]]
    with _bar(len(view_list), f"{name} logits") as bar:
        report = parity.check_logits(ref_logits, 0.0, path, ids, view_list, steps, 1.0, _batch(path), bar.update)
    report["against"] = against
    log(
        f"{name}: {report['identical_steps']}/{report['views']} views give the step of {against}, largest logit "
        f"difference {report['max_abs_logit_diff']:.3g} (certification decides whether it may run)"
    )
    meta = _meta(path, name, meta32["encoding"], steps, meta32["source"], meta32["exporter"], report)
    meta["variant_of"] = {"dir": out.name, "onnx_sha256": meta32["onnx_sha256"], "dtype": "float32"}
    meta["conversion"] = _conversion(name)
    (d / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    (d / "parity.json").write_text(json.dumps(report, indent=1) + "\n")
    return {"dir": str(d), "meta": meta, "parity": report}


def _conversion(name: str) -> dict:
    tool = f"onnxruntime {onnxruntime.__version__}"
    if name == "float16":
        return {"tool": f"{tool}: transformers.float16.convert_float_to_float16", "keep_io_types": True}
    return {
        "tool": f"{tool}: quantization.quantize_static",
        "format": "QDQ",
        "operators": list(VAR.INT8_OPS),
        "weights": "int8, per output channel",
        "activations": "uint8, static scales: MinMax over every view of V",
    }


def _batch(graph: Path) -> int:
    """Views per ONNX Runtime run in the parity check: all of V for a small graph, 64 for a large one."""

    return 64 if has_external_data(graph) or graph.stat().st_size > (256 << 20) else 4096


def _written(path: Path) -> str:
    data = Path(str(path) + ".data")
    extra = f" + {data.name} ({data.stat().st_size / 1e6:,.1f} MB)" if data.is_file() else ""
    return f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB){extra}"


def _opset(path: Path) -> int:
    opsets = read_model(path.read_bytes()).get("opsets") or {}
    return int(opsets.get("", opsets.get("ai.onnx", 0))) if isinstance(opsets, dict) else 0


def _torch_version() -> str:
    import torch  # lazy: torch is the [train] extra

    return f"torch.onnx dynamo exporter, torch {torch.__version__}"


def _meta(onnx_path: Path, dtype: str, table, steps, description, exporter: str, report) -> dict:
    return {
        "format": FORMAT,
        "tool_version": __version__,
        "onnx": onnx_path.name,
        "onnx_sha256": sha256_file(onnx_path),
        "onnx_bytes": onnx_path.stat().st_size,
        **({"external_data": ext} if (ext := external_entries(onnx_path)) else {}),
        "dtype": dtype,
        "opset": _opset(onnx_path),
        "exporter": exporter,
        "inputs": {"input_ids": ["batch", table["length"]], "gate": [1]},
        "output": {"step_logits": ["batch", len(steps)]},
        "gate": 1.0,
        "encoding": table,
        "steps": [list(s) for s in steps],
        "source": description,
        "views_sha256": V.file_sha256(),
        "parity": {k: report[k] for k in ("views", "identical_steps", "max_abs_logit_diff", "worst_view", "passed")},
    }
