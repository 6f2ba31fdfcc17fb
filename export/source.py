"""The PyTorch side of an export: a model directory (or a loaded model) seen as
  encode(view) -> token ids, steps (logit index -> Step), torch_logits(views, gate),
  step_module(gated) -> nn.Module for the exporter, describe() -> what the export came from.

The model itself (base LM, gated LoRA, tokenizer) is sketchpad.model's; nothing is re-implemented.
"""

from __future__ import annotations

import torch

from sketchpad.model.backbone import forward_logits
from sketchpad.model.torch_stepper import load as load_torch


class GatedStepLogits(torch.nn.Module):
    """(input_ids [B, L], gate [1]) -> step logits [B, S]: the gate becomes a graph input.

    AdapterGate multiplies every lora_B output by its `value` tensor; for the trace we point
    `value` at the graph input instead of a constant, then put the real tensor back.
    """

    def __init__(self, model, gate, step_ids: torch.Tensor):
        super().__init__()
        self.model, self.gate = model, gate
        self.register_buffer("step_ids", step_ids.clone(), persistent=False)

    def forward(self, input_ids, gate):
        saved = self.gate.value
        self.gate.value = gate
        try:
            return forward_logits(self.model, input_ids, rows=self.step_ids)
        finally:
            self.gate.value = saved


class BaseStepLogits(torch.nn.Module):
    """input_ids -> step logits of the base LM alone (the adapter disabled, not gated)."""

    def __init__(self, model, step_ids: torch.Tensor):
        super().__init__()
        self.model = model
        self.register_buffer("step_ids", step_ids.clone(), persistent=False)

    def forward(self, input_ids):
        with self.model.disable_adapter():
            return forward_logits(self.model, input_ids, rows=self.step_ids)


class Handle:
    def __init__(self, model, gate, tokenizer, description: dict):
        self.model, self.gate, self.tok = model.eval(), gate, tokenizer
        self.steps = list(tokenizer.steps)
        self._description = description

    def encode(self, view) -> list[int]:
        return self.tok.encode([view])[0].tolist()

    def step_module(self, gated: bool = True) -> torch.nn.Module:
        if gated:
            return GatedStepLogits(self.model, self.gate, self.tok.step_ids)
        return BaseStepLogits(self.model, self.tok.step_ids)

    @torch.no_grad()
    def torch_logits(self, views, gate: float = 1.0, batch: int | None = None, tick=None):
        """Step logits [len(views), n_steps] as the torch backend computes them (the step rows at
        the last position only), `batch` views at a time (default: by the model's size, so that
        a 0.8B-parameter model never holds more than a few hundred MB of activations)."""
        batch = batch or (4096 if self.parameters() < 10_000_000 else 32)
        saved = float(self.gate.value[0])
        self.gate.set(gate)
        parts = []
        try:
            for i in range(0, len(views), batch):
                chunk = views[i : i + batch]
                parts.append(forward_logits(self.model, self.tok.encode(chunk), rows=self.tok.step_ids))
                if tick:
                    tick(len(chunk))
        finally:
            self.gate.set(saved)
        return torch.cat(parts).numpy()

    def parameters(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    def describe(self) -> dict:
        return dict(self._description)


def load(model_dir) -> Handle:
    """A model directory as the torch backend loads it (sketchpad.model.torch_stepper)."""

    st = load_torch(model_dir, gate=1.0)
    return Handle(st.model, st.gate, st.vocab, describe_model(st))


def describe_model(stepper) -> dict:
    """What the export came from: every file the torch loader read (by sha256) and the model's
    shape.  model.json keeps it as provenance; the browser's certificates cover model.json."""
    return {"subjects": stepper.manifest.subjects(), "model": stepper.describe()}
