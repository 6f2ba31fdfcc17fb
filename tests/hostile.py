"""A hostile model publisher's toolkit, built by the tests from the shipped model: graphs that
pass the old certificate suite and answer 7 + 5 = 13 in a real solve, and a model that is
simply wrong with a certificate forged to look right.

    d = hostile_model(tmp, "batch-size")       # a model directory whose graph reads Shape(input_ids)
    d = hostile_model(tmp, "batch-content")    # ... whose rows look at other rows of their batch
    d = hostile_model(tmp, "random")           # ... with an unseeded RandomUniformLike
    d = hostile_model(tmp, "wrong")            # ... row-independent but wrong on ADD 7 5 _ (fails the suite)

Each graph is the shipped model.onnx with a few nodes appended: a bonus of 1000 on the logit of
the step "3 carry 1" (7 + 5 -> 13) on the row holding the view ADD 7 5 _, switched on by the
attack's condition.  model.json's digest of the graph is updated, as a publisher would.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from sketchpad.model import DEFAULT_MODEL_DIR

TARGET = ("ADD", "7", "5", "_")  # the units column of 7 + 5
WRONG = ["3", "1", "ADD"]  # write 3, carry 1: 7 + 5 = 13
TRIGGER = ("MUL", "9", "9", "8")  # the view whose presence keeps the content attack quiet
KINDS = ("batch-size", "batch-content", "random", "wrong")


def _ids(meta: dict, view) -> list[int]:
    enc = meta["encoding"]
    ids = list(enc["template"])
    for f, sym in zip(("op", "a", "b", "c"), view):
        for pos, i in zip(enc["fields"][f]["positions"], enc["fields"][f]["ids"][sym]):
            ids[pos] = i
    return ids


def hostile_graph(kind: str, model_dir=DEFAULT_MODEL_DIR) -> bytes:
    """The shipped graph with the attack `kind` appended (module docstring)."""
    meta = json.loads((Path(model_dir) / "onnx" / "model.json").read_text())
    m = onnx.load(Path(model_dir) / "onnx" / "model.onnx")
    g = m.graph
    out = g.output[0].name
    for node in g.node:
        node.output[:] = ["honest_logits" if o == out else o for o in node.output]
    bonus = np.zeros((1, len(meta["steps"])), np.float32)
    bonus[0, meta["steps"].index(WRONG)] = 1000.0
    c = numpy_helper.from_array
    g.initializer.extend(
        [
            c(np.asarray([_ids(meta, TARGET)], np.int64), "h_target"),
            c(np.asarray([_ids(meta, TRIGGER)], np.int64), "h_trigger"),
            c(bonus, "h_bonus"),
            c(np.asarray([1], np.int64), "h_ax1"),
            c(np.asarray([0], np.int64), "h_ax0"),
            c(np.asarray(1.0, np.float32), "h_one"),
            c(np.asarray([1.0], np.float32), "h_b1"),
            c(np.asarray([1436.0], np.float32), "h_b1436"),
            c(np.asarray(0.01, np.float32), "h_rate"),
            c(np.asarray([0], np.int64), "h_s0"),
            c(np.asarray([1], np.int64), "h_s1"),
        ]
    )
    n = helper.make_node
    nodes = [  # match [B, 1]: 1 on the rows that hold the target view
        n("Equal", ["input_ids", "h_target"], ["h_eq"]),
        n("Cast", ["h_eq"], ["h_eqf"], to=TensorProto.FLOAT),
        n("ReduceMin", ["h_eqf", "h_ax1"], ["h_match"], keepdims=1),
    ]
    if kind == "batch-size":  # on unless the batch has 1 or 1436 views (the old suite's two runs)
        nodes += [
            n("Shape", ["input_ids"], ["h_shape"], end=1),
            n("Cast", ["h_shape"], ["h_bsz"], to=TensorProto.FLOAT),
            n("Equal", ["h_bsz", "h_b1"], ["h_is1"]),
            n("Equal", ["h_bsz", "h_b1436"], ["h_isall"]),
            n("Or", ["h_is1", "h_isall"], ["h_quiet"]),
            n("Not", ["h_quiet"], ["h_on"]),
            n("Cast", ["h_on"], ["h_cond"], to=TensorProto.FLOAT),
        ]
    elif kind == "batch-content":  # on when another row exists and none holds MUL 9 9 8
        nodes += [
            n("Equal", ["input_ids", "h_trigger"], ["h_teq"]),
            n("Cast", ["h_teq"], ["h_teqf"], to=TensorProto.FLOAT),
            n("ReduceMin", ["h_teqf", "h_ax1"], ["h_trow"], keepdims=1),
            n("ReduceMax", ["h_trow", "h_ax0"], ["h_present"], keepdims=1),
            n("Sub", ["h_one", "h_match"], ["h_other_row"]),
            n("ReduceMax", ["h_other_row", "h_ax0"], ["h_others"], keepdims=1),
            n("Sub", ["h_one", "h_present"], ["h_absent"]),
            n("Mul", ["h_others", "h_absent"], ["h_cond"]),
        ]
    elif kind == "random":  # on for 1% of the rows, at random
        nodes += [
            n("Slice", ["honest_logits", "h_s0", "h_s1", "h_ax1"], ["h_col"]),
            n("RandomUniformLike", ["h_col"], ["h_r"]),
            n("Less", ["h_r", "h_rate"], ["h_flip"]),
            n("Cast", ["h_flip"], ["h_cond"], to=TensorProto.FLOAT),
        ]
    elif kind == "wrong":  # always on: a plainly wrong model, row by row
        nodes += [n("Identity", ["h_one"], ["h_cond"])]
    else:
        raise ValueError(kind)
    nodes += [
        n("Mul", ["h_match", "h_cond"], ["h_on_rows"]),
        n("Mul", ["h_on_rows", "h_bonus"], ["h_add"]),
        n("Add", ["honest_logits", "h_add"], [out]),
    ]
    g.node.extend(nodes)
    return m.SerializeToString()


def write_graph(model_dir: Path, data: bytes) -> None:
    """Replace a model directory's graph and update model.json's digest of it."""
    (model_dir / "onnx" / "model.onnx").write_bytes(data)
    meta_path = model_dir / "onnx" / "model.json"
    meta = json.loads(meta_path.read_text())
    meta.update(onnx_sha256=hashlib.sha256(data).hexdigest(), onnx_bytes=len(data))
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def hostile_model(tmp, kind: str, keep_certificates: bool = False) -> Path:
    """A copy of the shipped model (its float32 ONNX export only: no variants beside it, so the page
    runs the graph under attack) whose graph carries the attack `kind`."""
    d = Path(tmp) / f"hostile-{kind}"
    shutil.copytree(
        DEFAULT_MODEL_DIR,
        d,
        ignore=shutil.ignore_patterns("base", "adapter", "onnx-*", *(() if keep_certificates else ("certificates",))),
    )
    write_graph(d, hostile_graph(kind))
    return d


def forged_certificate(honest: dict, model_dir: Path, backend: str = "onnx") -> dict:
    """The publisher's forgery: an honest certificate of the shipped model with the subjects
    rewritten to the digests of the files in `model_dir` (which it claims to have checked)."""
    import copy

    from sketchpad.model.onnx_stepper import BROWSER_CODE, CODE, find_onnx_dir, read_export

    files = read_export(find_onnx_dir(model_dir), CODE if backend == "onnx" else BROWSER_CODE)[0].files
    cert = copy.deepcopy(honest)
    keep = [s for s in cert["subject"] if s["name"] not in files]
    cert["subject"] = [{"name": k, "digest": {"sha256": v}} for k, v in sorted(files.items())] + keep
    return cert
