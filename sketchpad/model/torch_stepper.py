"""The model in PyTorch as the runtime's batched Stepper: one forward pass per view, no memo.

`TorchStepper(views)` tokenizes the batch, runs the network once over it, and reads each step
as the argmax of the last position's logits restricted to the step tokens (only those rows of
the output layer are computed, at the last position only: backbone.forward_logits).  Nothing maps a
view to a step except the network: every call runs every view through it, so what the
certificate measured is what a solve uses.  `load(model_dir, gate)` builds one and records
every file it read in `stepper.manifest`.  Whether a stepper may be used is decided above
this layer, by the certificate rule (sketchpad.certify).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..symbols import Step, View
from .adapter import load_adapted
from .backbone import forward_logits
from .environment import cpu_device, environment
from .manifest import Manifest
from .readout import argmax_steps, steps_and_margins

# The source files that turn a view into a step on this backend (covered by certificates).
CODE = (
    "sketchpad/model/adapter.py",
    "sketchpad/model/backbone.py",
    "sketchpad/model/gate.py",
    "sketchpad/model/readout.py",
    "sketchpad/model/tokenizer.py",
    "sketchpad/model/torch_stepper.py",
    "sketchpad/model/vocab.py",
)
MAX_BATCH = 4096  # larger batches are split (memory), results are unchanged per view
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


class TorchStepper:
    backend = "torch"

    def __init__(self, model, vocab, gate, model_dir: Path | None = None, manifest=None):
        self.model = model
        self.vocab = vocab
        self.gate = gate
        self.steps = list(vocab.steps)
        self.model_dir = Path(model_dir) if model_dir else None
        self.manifest = manifest
        self.name = f"model:{self.model_dir.name if self.model_dir else 'in-memory'}"
        self.small = sum(p.numel() for p in model.parameters()) < SMALL_MODEL

    @property
    def gate_value(self) -> float:
        return float(self.gate.value[0])

    def threads_for(self, n: int):
        """Intra-op threads for a batch of n views (None: leave torch's setting)."""
        return 1 if self.small or n <= SMALL_BATCH else None

    def _step_logits(self, views: list[View]) -> torch.Tensor:
        outs = []
        for k in range(0, len(views), MAX_BATCH):
            ids = self.vocab.encode(views[k : k + MAX_BATCH])
            outs.append(forward_logits(self.model, ids, rows=self.vocab.step_ids))
        if not outs:
            return torch.empty(0, len(self.steps))
        return torch.cat(outs) if len(outs) > 1 else outs[0]

    def step_logits(self, views: list[View]) -> torch.Tensor:
        """[B, n_steps] float32 logits of the step tokens, one forward pass per view."""
        with torch.inference_mode(), _threads(self.threads_for(len(views))):
            return self._step_logits(views)

    def logits(self, views: list[View]) -> np.ndarray:
        with torch.inference_mode(), _threads(self.threads_for(len(views))):
            return self._step_logits(views).float().numpy()

    def steps_and_margins(self, views: list[View]) -> tuple[list[Step], np.ndarray]:
        with torch.inference_mode(), _threads(self.threads_for(len(views))):
            return steps_and_margins(self._step_logits(views).float().numpy(), self.steps)

    def __call__(self, views: list[View]) -> list[Step]:
        # The read-out (argmax) inside the same thread block: after the block torch's other
        # threads may spin for the core the read-out needs.
        with torch.inference_mode(), _threads(self.threads_for(len(views))):
            return argmax_steps(self._step_logits(views).float().numpy(), self.steps)

    def describe(self) -> dict:
        cfg = getattr(self.model.config, "text_config", None) or self.model.config
        return {
            "architecture": (cfg.architectures or [type(self.model.get_base_model()).__name__])[0],
            "model_type": cfg.model_type,
            "hidden_size": cfg.hidden_size,
            "layers": getattr(cfg, "layer_types", None) or cfg.num_hidden_layers,
            "parameters": sum(p.numel() for p in self.model.parameters()),
        }

    def environment(self) -> dict:
        import peft  # lazy: peft is the [train] extra
        import transformers  # lazy: transformers is the [train] extra

        library = {
            "torch": torch.__version__,
            "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),  # the ATen kernels' ISA
            "transformers": transformers.__version__,
            "peft": peft.__version__,
        }
        threads = {"intra_op": 1 if self.small else torch.get_num_threads(), "small_batch": SMALL_BATCH}
        return environment("torch", "cpu", library, cpu_device(), threads=threads)


def load(model_dir, gate: float = 1.0) -> TorchStepper:
    """The gated model of a model directory (base/, adapter/, sketchpad_vocab.json)."""

    manifest = Manifest(model_dir).code(CODE)
    model, vocab, g = load_adapted(model_dir, gate, manifest)
    return TorchStepper(model, vocab, g, model_dir, manifest)
