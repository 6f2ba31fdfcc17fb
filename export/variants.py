"""Smaller variants of an export, written beside it: `onnx-float16/` and `onnx-int8/` next to
`onnx/`.  Each is a different model (other bytes, other numbers) with its own model.json and,
once certified, its own certificate; a variant whose suite fails keeps its failed certificate
and is never used (the loaders refuse it like any failing model).

- float16: ONNX Runtime's converter (onnxruntime.transformers.float16) with the graph's inputs
  and output kept float32, then put back in topological order (graph_edit.topological).
- int8: ONNX Runtime's static quantiser (onnxruntime.quantization.quantize_static), QDQ format:
  the weights of every MatMul, Gemm and Gather int8 (per output channel where the operator
  allows it), and their activations 8-bit (uint8, the fast path of ONNX Runtime's integer
  kernels: 5x faster than float32 on one view, 2x on 256) with fixed scales calibrated on every view of V (the
  MinMax ranges over all the inputs the runtime can ever present, so no activation of any
  solve falls outside them).  Dynamic quantisation is not offered: DynamicQuantizeLinear takes
  its scale from the whole batch, so one view's step would depend on the others, and the
  verifier refuses it (certify/rows.py).  Calibration runs first, on its own, and the quantiser
  then reads its ranges from a file: ONNX Runtime's one-call path holds the graph three times
  over during calibration, which a 0.8B-parameter model cannot afford.  Two exact edits follow
  (graph_edit.py), so that a run never dequantises a whole weight matrix: gathers pick int8
  entries first, and MatMuls ONNX Runtime leaves unfused become MatMulInteger.
"""

from __future__ import annotations

import gc
import logging
import tempfile
from pathlib import Path

import numpy as np
from tqdm import tqdm

from .graph_edit import dequantize_after_gather, integer_matmuls, topological

VARIANTS = ("float16", "int8")
INT8_OPS = ("MatMul", "Gemm", "Gather")
DATA = "model.onnx.data"


def variant_dir(float32_dir, name: str) -> Path:
    """Where a variant of the export in `float32_dir` goes: beside it, `<dir>-<name>`."""
    d = Path(float32_dir)
    return d.parent / f"{d.name}-{name}"


def has_external_data(graph_path) -> bool:
    return Path(str(graph_path) + ".data").is_file()


def make(name: str, src_graph: Path, dst_dir: Path, ids: np.ndarray, log=lambda m: None) -> Path:
    """Write variant `name` of the graph at src_graph into dst_dir/model.onnx; returns its path."""
    dst_dir.mkdir(parents=True, exist_ok=True)
    for old in (dst_dir / "model.onnx", dst_dir / DATA):
        old.unlink(missing_ok=True)
    if name == "float16":
        return float16(src_graph, dst_dir / "model.onnx")
    if name == "int8":
        return int8(src_graph, dst_dir / "model.onnx", ids, log)
    raise ValueError(f"unknown variant {name!r} (use {' or '.join(VARIANTS)})")


def _save(model, path: Path, external: bool) -> None:
    import onnx  # lazy: onnx is the [train] extra

    topological(model)
    if external:
        onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location=DATA)
    else:
        onnx.save_model(model, str(path))


def float16(src_graph: Path, dst: Path) -> Path:
    import onnx  # lazy: onnx is the [train] extra

    # lazy: this onnxruntime tool imports onnx, the [train] extra
    from onnxruntime.transformers.float16 import convert_float_to_float16

    external = has_external_data(src_graph)
    model = onnx.load(str(src_graph))
    model = convert_float_to_float16(model, keep_io_types=True, disable_shape_infer=True)
    _save(model, dst, external)
    return dst


class _Views:
    """ONNX Runtime's calibration reader over the token ids of V, `batch` views at a time."""

    def __init__(self, ids: np.ndarray, batch: int, tick=None):
        self.ids, self.batch, self.k, self.tick = ids, batch, 0, tick

    def get_next(self):
        if self.k >= len(self.ids):
            return None
        chunk = self.ids[self.k : self.k + self.batch]
        self.k += len(chunk)
        if self.tick:
            self.tick(len(chunk))
        return {"input_ids": chunk, "gate": np.ones(1, dtype=np.float32)}


def calibrate(src_graph: Path, ids: np.ndarray, cache: Path, log=lambda m: None) -> None:
    """MinMax ranges of every tensor the int8 quantiser needs, over every view of V, to `cache`."""
    # lazy: onnxruntime's quantizer imports onnx, the [train] extra
    from onnxruntime.quantization import CalibrationMethod, create_calibrator, save_tensors_data

    with tempfile.TemporaryDirectory(prefix="sketchpad-calibrate-") as tmp:
        calibrator = create_calibrator(
            Path(src_graph),
            list(INT8_OPS),
            augmented_model_path=str(Path(tmp) / "augmented.onnx"),
            calibrate_method=CalibrationMethod.MinMax,
            use_external_data_format=has_external_data(src_graph),
            providers=["CPUExecutionProvider"],
        )
        batch = 1024 if len(ids) and _small(src_graph) else 32
        with tqdm(total=len(ids), disable=None, leave=False, unit="view", desc="calibrating") as bar:
            calibrator.collect_data(_Views(ids, batch, bar.update))
        save_tensors_data(calibrator.compute_data(), cache)
        del calibrator
        gc.collect()


def _small(src_graph: Path) -> bool:
    return not has_external_data(src_graph) and Path(src_graph).stat().st_size < (64 << 20)


def int8(src_graph: Path, dst: Path, ids: np.ndarray, log=lambda m: None) -> Path:
    import onnx  # lazy: onnx is the [train] extra

    # lazy: onnxruntime's quantizer imports onnx, the [train] extra
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    external = has_external_data(src_graph)
    with tempfile.TemporaryDirectory(prefix="sketchpad-int8-") as tmp:
        cache = Path(tmp) / "ranges.json"
        calibrate(src_graph, ids, cache, log)
        quiet = logging.getLogger().level
        logging.getLogger().setLevel(logging.ERROR)  # "consider pre-processing" notices
        try:
            quantize_static(
                str(src_graph),
                str(dst),
                calibration_data_reader=None,
                calibration_cache_path=str(cache),
                quant_format=QuantFormat.QDQ,
                op_types_to_quantize=list(INT8_OPS),
                per_channel=True,
                activation_type=QuantType.QUInt8,  # u8 x s8: the integer kernels' fast path
                weight_type=QuantType.QInt8,
                use_external_data_format=external,
            )
        finally:
            logging.getLogger().setLevel(quiet)
    gc.collect()
    model = onnx.load(str(dst), load_external_data=False)  # the weights stay where they are
    moved, fused = dequantize_after_gather(model), integer_matmuls(model)
    log(
        f"int8: {moved} Gather/GatherND node(s) pick int8 entries before dequantising, "
        f"{fused} MatMul(s) of two dequantised tensors run as MatMulInteger"
    )
    topological(model)
    onnx.save_model(model, str(dst))
    return dst
