"""The step model: a Qwen-family causal LM plus a gated LoRA adapter.

A model directory holds
  base/        the base LM in Hugging Face format (config.json, model.safetensors, tokenizer files)
  adapter/     the LoRA adapter, saved by peft's save_pretrained
  sketchpad_vocab.json   which token each operation, cell symbol and step is (tokenizer.py)
  meta.json    how it was trained (seeds, settings, corpus hash, final margin, times)
  certificates/<backend>.json   in-toto statements written by `sketchpad certify`

Modules: tokenizer (views -> token ids, step vocabulary), backbone (config, load, save, the
forward call), gate (the multiplicative adapter gate), train (base LM and adapter training),
stepper (the runtime's batched Stepper, with certificate refusal).
"""
from pathlib import Path

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "data" / "default_model"
