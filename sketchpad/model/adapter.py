"""Attach, save and load the gated LoRA adapter with peft.

Targets are module-name suffixes; peft adapts the ones a base has (Qwen3.5's DeltaNet and
attention projections, the MLPs, and lm_head - the step tokens are new to the base, so their
output directions must be learnable).  Embeddings are not adapted: peft's embedding LoRA has
no lora_B module to gate, and the base's (untrained, distinct) rows for view tokens suffice.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from ..errors import InputError
from .adapter_config import AdapterConfig
from .backbone import base_from_files
from .gate import AdapterGate
from .manifest import Manifest
from .tokenizer import ViewTokenizer
from .vocab import VOCAB_FILE, StepVocab

ADAPTER_DIR = "adapter"
BASE_DIR = "base"


def new_adapter(base, config: AdapterConfig = AdapterConfig(), seed: int = 0):
    """peft-wrap `base` with a fresh LoRA adapter (lora_B = 0, so it starts equal to the base)."""
    from peft import get_peft_model  # lazy: peft is the [train] extra

    torch.manual_seed(seed)
    names = {n.rsplit(".", 1)[-1] for n, _ in base.named_modules()}
    present = [t for t in config.targets if t in names]
    if not present:
        raise ValueError(f"none of the LoRA targets {config.targets} exist in this base model")
    return get_peft_model(base, config.lora_config(present))


ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors")


def load_adapted(model_dir: Path, gate: float = 1.0, manifest=None):
    """(peft model in eval mode, ViewTokenizer, AdapterGate) from a model directory.  Every file
    is read once, through `manifest` (sketchpad.model.manifest), which hashes the bytes it
    reads; the model is built from those same bytes, so what was hashed is what runs."""

    model_dir = Path(model_dir)
    m = manifest if manifest is not None else Manifest(model_dir)
    vocab = StepVocab.parse(m.read_bytes(VOCAB_FILE))
    base = base_from_files(model_dir / BASE_DIR, lambda name: m.read_bytes(f"{BASE_DIR}/{name}"))
    model = adapter_from_bytes(
        base,
        m.read_bytes(f"{ADAPTER_DIR}/adapter_config.json"),
        m.read_bytes(f"{ADAPTER_DIR}/adapter_model.safetensors"),
    )
    g = AdapterGate(gate).attach(model)
    return model, ViewTokenizer.from_vocab(vocab), g


def adapter_from_bytes(base, config_bytes: bytes, weight_bytes: bytes):
    """peft's PeftModel.from_pretrained(base, dir) for inference, from the files' bytes."""

    from peft import PeftConfig, PeftModel, set_peft_model_state_dict  # lazy: peft is the [train] extra
    from peft.auto import MODEL_TYPE_TO_PEFT_MODEL_MAPPING  # lazy: peft is the [train] extra
    from safetensors.torch import load as load_safetensors  # lazy: safetensors.torch needs torch, the [train] extra

    try:
        cfg = json.loads(config_bytes)
        cfg.pop("runtime_config", None)
        config = PeftConfig.from_peft_type(**PeftConfig.check_kwargs(**cfg))
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"the adapter config is not a peft config: {e}") from None
    config.inference_mode = True
    cls = MODEL_TYPE_TO_PEFT_MODEL_MAPPING.get(config.task_type, PeftModel)
    model = cls(base, config, "default", autocast_adapter_dtype=True)
    result = set_peft_model_state_dict(model, load_safetensors(weight_bytes), adapter_name="default")
    missing = [k for k in result.missing_keys if "lora_" in k]
    if missing:
        raise InputError(f"the adapter weights lack {len(missing)} tensors (first {missing[0]})")
    return model.eval()
