"""The model as the runtime's batched Stepper: one forward pass per view, no memo.

`ModelStepper(views)` tokenizes the batch, runs the network once over it, and reads each step
as the argmax of the last position's logits restricted to the step tokens.  Nothing maps a
view to a step except the network: every call runs every view through it, so what the
certificate measured is what a solve uses.

`load_stepper` is the product's entry point.  It refuses a model without a passing
certificate for the backend in use (sketchpad.errors.InputError) unless allow_uncertified.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..errors import InputError
from ..symbols import Step, View
from . import DEFAULT_MODEL_DIR
from .backbone import forward_logits

MAX_BATCH = 4096          # larger batches are split (memory), results are unchanged per view
# Intra-op threads: a forward pass of a model under SMALL_MODEL parameters, or of a batch of
# up to SMALL_BATCH views, is all per-op overhead; handing such tiny ops between threads costs
# more than it saves, and on a busy machine a second thread that must wait for a core makes
# every op wait (measured: 0.09 s vs 1.8 s for all of V on a loaded 2-core machine).
SMALL_BATCH = 32
SMALL_MODEL = 10_000_000


class _threads:
    """Run a block with n intra-op threads (None = leave as is), then restore."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.old = torch.get_num_threads()
        if self.n is not None and self.n != self.old:
            torch.set_num_threads(self.n)

    def __exit__(self, *exc):
        if torch.get_num_threads() != self.old:
            torch.set_num_threads(self.old)


class ModelStepper:
    backend = "torch"

    def __init__(self, model, vocab, gate, model_dir: Path | None = None):
        self.model = model
        self.vocab = vocab
        self.gate = gate
        self.model_dir = Path(model_dir) if model_dir else None
        self.name = f"model:{self.model_dir.name if self.model_dir else 'in-memory'}"
        self.small = sum(p.numel() for p in model.parameters()) < SMALL_MODEL

    @classmethod
    def from_dir(cls, model_dir: Path, gate: float = 1.0) -> "ModelStepper":
        from .adapter import load_adapted
        model, vocab, g = load_adapted(model_dir, gate)
        return cls(model, vocab, g, model_dir)

    def step_logits(self, views: list[View]) -> torch.Tensor:
        """[B, n_steps] float32 logits of the step tokens, one forward pass per view."""
        outs = []
        with torch.inference_mode(), _threads(1 if self.small or len(views) <= SMALL_BATCH else None):
            for k in range(0, len(views), MAX_BATCH):
                ids = self.vocab.encode(views[k:k + MAX_BATCH])
                outs.append(forward_logits(self.model, ids)[:, self.vocab.step_ids])
        if not outs:
            return torch.empty(0, len(self.vocab.steps))
        return torch.cat(outs) if len(outs) > 1 else outs[0]

    def logits(self, views: list[View]) -> np.ndarray:
        return self.step_logits(views).float().numpy()

    def steps_and_margins(self, views: list[View]) -> tuple[list[Step], np.ndarray]:
        return steps_and_margins(self.logits(views), self.vocab.steps)

    def __call__(self, views: list[View]) -> list[Step]:
        idx = self.step_logits(views).argmax(1).tolist()
        steps = self.vocab.steps
        return [steps[i] for i in idx]


def steps_and_margins(logits: np.ndarray, steps: list[Step]) -> tuple[list[Step], np.ndarray]:
    """Argmax step per row, and its margin: top-1 minus top-2 logit (0 = a tie)."""
    if len(logits) == 0:
        return [], np.zeros(0, dtype=np.float32)
    top2 = np.sort(logits, axis=1)[:, -2:]
    idx = logits.argmax(axis=1)
    return [steps[i] for i in idx], (top2[:, 1] - top2[:, 0]).astype(np.float32)


def resolve_model_dir(model_dir=None) -> Path:
    d = Path(model_dir) if model_dir else DEFAULT_MODEL_DIR
    if not d.is_dir():
        raise InputError(f"no model directory at {d}")
    for part in ("base/config.json", "adapter/adapter_config.json", "sketchpad_vocab.json"):
        if not (d / part).is_file():
            raise InputError(f"{d} is not a sketchpad model directory (missing {part})")
    return d


def certificate_path(model_dir: Path, backend: str, gate: float = 1.0) -> Path:
    """certificates/<backend>.json for the sheet executor (gate 1), <backend>-gate<g>.json else."""
    name = backend if gate == 1.0 else f"{backend}-gate{gate:g}"
    return Path(model_dir) / "certificates" / f"{name}.json"


def check_certified(model_dir: Path, backend: str, gate: float) -> None:
    """Raise InputError unless the certificate for (backend, gate) passes and matches the files."""
    from certify.verify import verify_certificate
    cert = certificate_path(model_dir, backend, gate)
    hint = "(run `sketchpad certify --backend {b} --model {d}{g}`, or pass --allow-uncertified)".format(
        b=backend, d=model_dir, g="" if gate == 1.0 else f" --gate {gate:g}")
    if not cert.is_file():
        raise InputError(f"the model at {model_dir} has no certificate for backend {backend!r}"
                         f"{'' if gate == 1.0 else f' at gate {gate:g}'} {hint}")
    report = verify_certificate(cert, model_dir=model_dir)
    if not report.ok:
        raise InputError(f"the {backend} certificate of {model_dir} does not hold: "
                         f"{'; '.join(report.problems[:3])} {hint}")
    if abs(report.gate - gate) > 0.0:
        raise InputError(f"the {backend} certificate of {model_dir} is for gate {report.gate}, "
                         f"not {gate} {hint}")


def load_stepper(model_dir=None, backend: str = "torch", gate: float = 1.0,
                 allow_uncertified: bool = False):
    """The model stepper for `backend` ('torch' or 'onnx'), refused if uncertified."""
    d = resolve_model_dir(model_dir)
    if not allow_uncertified:
        check_certified(d, backend, gate)
    if backend == "torch":
        return ModelStepper.from_dir(d, gate)
    if backend == "onnx":
        try:
            from .onnx_stepper import OnnxStepper
        except ImportError as e:
            raise InputError(f"the onnx backend is not available: {e}") from None
        return OnnxStepper(d, gate=gate)
    raise InputError(f"unknown backend {backend!r} (use 'torch' or 'onnx')")


def load_default_stepper():
    return load_stepper(None)
