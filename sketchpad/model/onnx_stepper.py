"""The batched stepper on the exported ONNX graph, run by ONNX Runtime (CPU).  No torch.

    stepper = load(model_dir, gate=1.0)   # reads onnx/model.json and onnx/model.onnx
    steps = stepper(views)                # list[Step], one forward pass per view, one run per batch
    logits = stepper.logits(views)        # numpy float32 [B, n_steps], model.json's step order

The token table and step list in model.json are the ones the browser uses (web/onnx_stepper.js), so
Python ONNX Runtime and the page encode views identically.  The gate is the graph's `gate`
input.  Every file is read once, through the manifest, and handed to ONNX Runtime as the bytes
that were hashed: the graph as bytes, and the external data files it names (a graph over 2 GB
keeps its weights beside it) from memory (SessionOptions.add_external_initializers_from_files_
in_memory), so nothing is read again by path.  An external data file must be a plain file name
in the export's own directory, named in model.json with its sha256 and size; a graph that
names anything else, or a file that does not match, is refused.

A large export (over LARGE_MODEL_BYTES, e.g. a 0.8B-parameter model's 3 GB) keeps memory at
about one copy of its weights: ONNX Runtime copies what it is handed, so the stepper lets go of
the bytes once its session holds them (another session - another thread count - reads and
hashes the files again, and refuses them unless every digest is the one first loaded); it runs
one session at its thread count for every batch size; and it splits batches above
LARGE_MAX_BATCH views, so no solve or suite ever needs the activations of more.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np

from ..errors import InputError, StepperFault
from ..symbols import Step, View
from .environment import cpu_device, environment
from .manifest import Manifest, sha256_bytes
from .onnx_proto import external_files, read_model
from .readout import argmax_steps, steps_and_margins

CODE = ("sketchpad/model/onnx_stepper.py", "sketchpad/model/readout.py")
BROWSER_CODE = ("sketchpad/web/onnx_stepper.js",)  # this file's port to the page: what runs there
FIELDS = ("op", "a", "b", "c")
META = "onnx/model.json"
PROVIDER = "CPUExecutionProvider"
THREADS = 2
# Batches under ONE_THREAD_BELOW views run on one intra-op thread: for a small model their ops
# are tiny, and handing them between threads costs more than it saves (measured on the 2-core
# build machine: 250 views 18 ms on one thread, 26-40 ms on two; a second thread that must wait
# for a busy core makes every op wait).  The certifier runs both (batch 1 and all of V on this
# stepper, and all of V on one thread), so what a solve uses is what was certified.
ONE_THREAD_BELOW = 1024
LARGE_MODEL_BYTES = 64 << 20  # graph + external data above this: the large-model mode above
LARGE_MAX_BATCH = 256  # views per ONNX Runtime run for a large model


def find_onnx_dir(model_dir) -> Path:
    """A model directory's onnx/ export, or a directory that is an export itself."""
    d = Path(model_dir)
    for cand in (d / "onnx", d):
        if (cand / "model.json").is_file():
            return cand
    raise InputError(f"no ONNX export in {d} (run `sketchpad export --model {d} --out {d / 'onnx'}`)")


class OnnxStepper:
    backend = "onnx"

    def __init__(self, model_dir, gate: float = 1.0, threads: int = THREADS):
        """model_dir: a model directory with an onnx/ export, or an export directory itself.
        threads: intra-op threads for large batches (smaller ones run on one: ONE_THREAD_BELOW)."""
        self.dir = find_onnx_dir(model_dir)
        self.manifest, self.meta, model_bytes, self.external = read_export(self.dir, CODE)
        meta = self.meta
        self.gate = float(gate)
        self.threads = threads
        self.steps = [Step(*s) for s in meta["steps"]]
        self.name = "onnx"
        enc = meta["encoding"]
        self._template = np.asarray(enc["template"], dtype=np.int64)
        # field -> (positions, {symbol: ids at those positions})
        self._fields = [
            (
                np.asarray(enc["fields"][f]["positions"], dtype=np.int64),
                {s: np.asarray(ids, dtype=np.int64) for s, ids in enc["fields"][f]["ids"].items()},
            )
            for f in FIELDS
        ]
        self._model_bytes = model_bytes
        self.large = len(model_bytes) + sum(len(b) for b in self.external.values()) > LARGE_MODEL_BYTES
        self.max_batch = LARGE_MAX_BATCH if self.large else None
        self.session = self._session(threads)
        self._one_thread = self.session if threads == 1 or self.large else None  # made on first use
        self._gated = any(i.name == "gate" for i in self.session.get_inputs())
        self._gate_feed = np.array([self.gate], dtype=np.float32)

    def _session(self, threads: int):
        import onnxruntime as ort  # lazy: a 0.3 s import; certify.policy reads only constants

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # Threads that spin between runs take the core the runtime's own work needs.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        external = self.external if self.external is not None else self._read_again()
        if external:
            names = list(external)
            data = [external[n] for n in names]
            opts.add_external_initializers_from_files_in_memory(names, data, [len(b) for b in data])
        session = ort.InferenceSession(self._model_bytes, opts, providers=[PROVIDER])
        if self.large:
            self.external = None  # the session holds its own copy: one copy in memory, not two
        return session

    def _read_again(self) -> dict:
        """The external data files once more, each refused unless its sha256 is the one loaded first."""
        out = {}
        for name in external_files(read_model(self._model_bytes)):
            data = (self.dir / name).read_bytes() if (self.dir / name).is_file() else b""
            if sha256_bytes(data) != self.manifest.files.get(f"onnx/{name}"):
                raise InputError(f"{self.dir / name} changed on disk since it was loaded and hashed: refused")
            out[name] = data
        return out

    def session_for(self, n: int):
        """The session a batch of n views runs on (threads chosen by batch size)."""
        if n >= ONE_THREAD_BELOW or self.threads == 1 or self.large:
            return self.session
        if self._one_thread is None:
            self._one_thread = self._session(1)
        return self._one_thread

    gate_value = property(lambda self: self.gate)
    graph_bytes = property(lambda self: self._model_bytes)

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
        if self.max_batch and len(views) > self.max_batch:
            return np.concatenate(
                [self.logits(views[i : i + self.max_batch]) for i in range(0, len(views), self.max_batch)]
            )
        feeds = {"input_ids": self.encode(views)}
        if self._gated:
            feeds["gate"] = self._gate_feed
        return self.session_for(len(views)).run(None, feeds)[0]

    def steps_and_margins(self, views: list[View]):
        return steps_and_margins(self.logits(views), self.steps)

    def __call__(self, views: list[View]) -> list[Step]:
        return argmax_steps(self.logits(views), self.steps)

    def with_threads(self, threads: int) -> OnnxStepper:
        """The same export - the same bytes, not read again - on another intra-op thread count
        (the certifier measures the drift between them)."""
        other = copy.copy(self)
        other.threads = threads
        other.session = other._session(threads)
        other._one_thread = other.session if threads == 1 or self.large else None
        return other

    def describe(self) -> dict:
        src = self.meta.get("source") or {}
        return {k: src[k] for k in ("model", "adapter") if k in src}

    def environment(self) -> dict:
        import onnxruntime  # lazy: a 0.3 s import; certify.policy reads only constants

        library = {"onnxruntime": onnxruntime.__version__, "onnxruntime_build": onnxruntime.get_build_info()}
        threads = {"intra_op": self.threads, "one_thread_below": ONE_THREAD_BELOW, "inter_op": 1}
        if self.large:  # one session for every batch size, batches split above max_batch
            threads.update(one_thread_below=None, max_batch=self.max_batch)
        return environment("onnx", PROVIDER, library, cpu_device(), threads=threads)


def plain_name(name) -> bool:
    """A file name in the export's own directory: letters, digits, ".", "_", "-"; no folders, nothing
    hidden, nothing a URL would read otherwise (web/onnx_stepper.js applies the same test)."""
    return isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name) is not None


def read_export(onnx_dir, code) -> tuple[Manifest, dict, bytes, dict]:
    """(manifest, model.json, graph bytes, {external data file: bytes}) of an export, as this
    loader and the page load it.  Files are named by role (onnx/...) whatever the folder is
    called, as certificates name them."""
    d = Path(onnx_dir)
    m = Manifest(d).code(code)
    meta = m.read_json(META, at="model.json")
    graph = meta.get("onnx") if isinstance(meta, dict) else None
    if not plain_name(graph):
        raise InputError(f"{d / 'model.json'} names no graph file in this directory")
    data = m.read_bytes(f"onnx/{graph}", at=graph)
    listed = meta.get("external_data") if isinstance(meta.get("external_data"), dict) else {}
    external = {}
    for name in external_files(read_model(data)):
        if not plain_name(name):
            raise InputError(f"the graph {d / graph} names external data outside its directory: {name!r}")
        external[name] = m.read_bytes(f"onnx/{name}", at=name)
        check_listed(d, name, listed.get(name), m.files[f"onnx/{name}"], len(external[name]))
    return m, meta, data, external


def check_listed(d: Path, name: str, want, sha256: str, size: int) -> None:
    """An external data file must be the one model.json names (web/onnx_stepper.js: the same)."""
    if not isinstance(want, dict):
        raise InputError(f"{d / 'model.json'} does not name the graph's external data file {name} (sha256, bytes)")
    if want.get("sha256") != sha256 or want.get("bytes") != size:
        raise InputError(
            f"{d / name} does not match model.json ({size:,} bytes, sha256 {sha256[:12]}...; model.json: "
            f"{want.get('bytes')} bytes, {str(want.get('sha256'))[:12]}...): a tampered or incomplete file is refused"
        )


def browser_manifest(model_dir) -> Manifest:
    """What the page loads for this model (web/onnx_stepper.js fetches model.json, its graph and
    the graph's external data files)."""
    return read_export(find_onnx_dir(model_dir), BROWSER_CODE)[0]


def load(model_dir, gate: float = 1.0) -> OnnxStepper:
    return OnnxStepper(model_dir, gate=gate)
