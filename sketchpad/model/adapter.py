"""Attach, save and load the gated LoRA adapter with peft.

Targets are module-name suffixes; peft adapts the ones a base has (Qwen3.5's DeltaNet and
attention projections, the MLPs, and lm_head - the step tokens are new to the base, so their
output directions must be learnable).  Embeddings are not adapted: peft's embedding LoRA has
no lora_B module to gate, and the base's (untrained, distinct) rows for view tokens suffice.
"""

from __future__ import annotations

from pathlib import Path

import torch

from .gate import AdapterGate
from .tokenizer import ViewTokenizer

ADAPTER_DIR = "adapter"
BASE_DIR = "base"
DEFAULT_TARGETS = (
    "in_proj_qkv",
    "out_proj",
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "lm_head",
)


def new_adapter(base, rank: int = 8, alpha: float = 16.0, targets=DEFAULT_TARGETS, seed: int = 0):
    """peft-wrap `base` with a fresh LoRA adapter (lora_B = 0, so it starts equal to the base)."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(seed)
    names = {n.rsplit(".", 1)[-1] for n, _ in base.named_modules()}
    present = [t for t in targets if t in names]
    if not present:
        raise ValueError(f"none of the LoRA targets {targets} exist in this base model")
    cfg = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0, target_modules=present, bias="none")
    return get_peft_model(base, cfg)


ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors")


def load_adapted(model_dir: Path, gate: float = 1.0, manifest=None):
    """(peft model in eval mode, ViewTokenizer, AdapterGate) from a model directory.  Every file
    is recorded in `manifest` (sketchpad.model.manifest) before it is loaded."""
    from peft import PeftModel

    from .backbone import checkpoint_files, load_base_model
    from .manifest import Manifest
    from .vocab import VOCAB_FILE, StepVocab

    model_dir = Path(model_dir)
    m = manifest if manifest is not None else Manifest(model_dir)
    for name in checkpoint_files(model_dir / BASE_DIR):
        m.path(f"{BASE_DIR}/{name}")
    for name in ADAPTER_FILES:
        m.path(f"{ADAPTER_DIR}/{name}")
    vocab = StepVocab.parse(m.read_bytes(VOCAB_FILE))
    base = load_base_model(model_dir / BASE_DIR)
    model = PeftModel.from_pretrained(base, model_dir / ADAPTER_DIR, is_trainable=False).eval()
    g = AdapterGate(gate).attach(model)
    return model, ViewTokenizer.from_vocab(vocab), g
