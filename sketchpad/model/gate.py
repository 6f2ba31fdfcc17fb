"""The adapter gate: every LoRA layer computes  W x + g * (B A x) * scale.

peft's LoRA layers add `lora_B(lora_A(x)) * scaling` to the base layer's output.  A forward
hook on each `lora_B` module multiplies its output by one shared gate tensor g (shape [1]):
at g = 0 the added term is exactly +0.0, so the logits equal the base model's bit for bit;
at g = 1 it is multiplication by 1.0, i.e. the plain adapter.  Because g is a tensor (not a
Python float baked into the graph), an ONNX export can take it as a graph input.
"""

from __future__ import annotations

import torch


class AdapterGate:
    def __init__(self, value: float = 1.0):
        self.value = torch.tensor([float(value)], dtype=torch.float32)
        self._handles = []

    def attach(self, peft_model) -> AdapterGate:
        """Hook every lora_B module of every adapter; returns self."""
        for name, module in peft_model.named_modules():
            if ".lora_B." in name and isinstance(module, torch.nn.Linear):
                self._handles.append(module.register_forward_hook(self._hook))
        if not self._handles:
            raise ValueError("no LoRA layers found to gate")
        return self

    def _hook(self, module, inputs, output):
        return output * self.value.to(output.dtype)

    def set(self, value: float) -> None:
        self.value.fill_(float(value))

    @property
    def layers(self) -> int:
        return len(self._handles)

    def detach(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()
