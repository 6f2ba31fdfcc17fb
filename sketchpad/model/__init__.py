"""The step model: a Qwen-family causal LM plus a gated LoRA adapter.

A model directory holds
  base/        the base LM in Hugging Face format (config.json, model.safetensors, tokenizer files)
  adapter/     the LoRA adapter, saved by peft's save_pretrained
  sketchpad_vocab.json   which token each operation, cell symbol and step is (tokenizer.py)
  meta.json    how it was trained (seeds, settings, corpus hash, final margin, times)
  certificates/<backend>.json   in-toto statements written by `sketchpad certify`

Modules: loading (model directory + backend -> stepper), torch_stepper and onnx_stepper (the
runtime's batched Stepper on each backend), manifest (every file a loader read, by sha256),
environment (where a stepper runs), readout (logits -> step and margin), vocab and tokenizer
(views -> token ids, the step vocabulary), backbone (config, load, save, the forward call),
gate (the multiplicative adapter gate), adapter (peft LoRA), train and corpus (training).
Nothing here decides whether a model may run: that is the certificate rule, in
sketchpad.certify, one layer up.
"""

from pathlib import Path

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "data" / "default_model"
# `sketchpad train`'s step budgets (read by the CLI without importing torch, and by the baseline).
DEFAULT_BASE_STEPS = 300
DEFAULT_MAX_STEPS = 3000
