"""The batched stepper on the exported ONNX graph, run by ONNX Runtime (CPU).

    stepper = OnnxStepper(model_dir, gate=1.0)
    steps = stepper(views)          # list[Step], one forward pass per view, one run per batch
    logits = stepper.logits(views)  # numpy float32 [B, n_steps], same order as model.json's steps

It reads only model_dir/onnx/model.json and model.onnx (what `sketchpad export` writes; a
directory holding those two files directly works too): the token table and step list in
model.json are the ones the browser uses, so Python ONNX Runtime and the page encode views
identically.  The gate is the graph's `gate` input.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import InputError, StepperFault
from ..symbols import Step, View

FIELDS = ("op", "a", "b", "c")


def find_onnx_dir(model_dir) -> Path:
    d = Path(model_dir)
    for cand in (d / "onnx", d):
        if (cand / "model.json").is_file():
            return cand
    raise InputError(f"no ONNX export in {d} (run `sketchpad export --model {d} --out {d / 'onnx'}`)")


class OnnxStepper:
    name = "onnx"

    def __init__(self, model_dir, gate: float = 1.0, threads: int = 2):
        import onnxruntime as ort
        self.dir = find_onnx_dir(model_dir)
        self.meta = json.loads((self.dir / "model.json").read_text())
        self.path = self.dir / self.meta["onnx"]
        if not self.path.is_file():
            raise InputError(f"model.json names {self.path}, which does not exist")
        self.gate = float(gate)
        self.steps = [Step(*s) for s in self.meta["steps"]]
        enc = self.meta["encoding"]
        self._template = np.asarray(enc["template"], dtype=np.int64)
        # field -> (positions, {symbol: ids at those positions})
        self._fields = [(np.asarray(enc["fields"][f]["positions"], dtype=np.int64),
                         {s: np.asarray(ids, dtype=np.int64) for s, ids in enc["fields"][f]["ids"].items()})
                        for f in FIELDS]
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(self.path), opts, providers=["CPUExecutionProvider"])
        self._gated = any(i.name == "gate" for i in self.session.get_inputs())

    def encode(self, views: list[View]) -> np.ndarray:
        ids = np.tile(self._template, (len(views), 1))
        for f, (pos, table) in enumerate(self._fields):
            if len(pos) == 0:
                continue
            try:
                ids[:, pos] = np.stack([table[v[f]] for v in views])
            except KeyError as e:
                raise StepperFault(f"the model cannot read symbol {e.args[0]!r} in field {FIELDS[f]}") from None
        return ids

    def logits(self, views: list[View]) -> np.ndarray:
        if not views:
            return np.zeros((0, len(self.steps)), dtype=np.float32)
        feeds = {"input_ids": self.encode(views)}
        if self._gated:
            feeds["gate"] = np.array([self.gate], dtype=np.float32)
        return self.session.run(None, feeds)[0]

    def __call__(self, views: list[View]) -> list[Step]:
        if not views:
            return []
        best = self.logits(views).argmax(axis=1)
        steps = self.steps
        return [steps[k] for k in best]
