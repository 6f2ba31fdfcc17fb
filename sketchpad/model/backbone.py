"""The base LM: a Qwen3.5-family config, and loading/saving it with transformers' Auto classes.

The flagship is Qwen3.5-0.8B; the shipped default is the same architecture shrunk to hidden
size 64 with one Gated DeltaNet layer and one full-attention layer (~100k parameters), so it
trains on a CPU in minutes and one forward pass costs about a millisecond.

`forward_logits` is the one place the network is called.  Three things keep it fast without
changing what is computed: the DeltaNet fallback's chunk is set to the sequence length (the
default pads every sequence to 64 positions); for fixed-length, unpadded view batches the
attention masks are passed as None (plain causal attention, what transformers builds anyway);
and with `rows` (the step tokens) the output layer is applied to the last position and those
rows only - at Qwen3.5-0.8B's size that is 170 of 248,320 vocabulary rows at 1 of 5 positions.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch

from ..errors import InputError

HYBRID_MODEL_TYPES = ("qwen3_5_text", "qwen3_5", "qwen3_next")


def tiny_config(vocab_size: int, **overrides):
    """The default model's shape: a Qwen3.5 text model at its smallest sensible size."""
    from transformers import Qwen3_5TextConfig  # lazy: transformers is the [train] extra

    kw = dict(
        vocab_size=vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        layer_types=["linear_attention", "full_attention"],
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        linear_key_head_dim=16,
        linear_value_head_dim=16,
        linear_conv_kernel_dim=4,
        max_position_embeddings=512,
        tie_word_embeddings=False,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    kw.update(overrides)
    return Qwen3_5TextConfig(**kw)


def build_base(config, seed: int = 0):
    """A randomly initialised causal LM for `config` (seeded)."""
    from transformers import AutoModelForCausalLM  # lazy: transformers is the [train] extra

    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(config, dtype=torch.float32)


def save_base(model, hf_tokenizer, directory: Path) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory, safe_serialization=True)
    hf_tokenizer.save_pretrained(directory)
    return directory


def quiet() -> None:
    """Silence transformers' loading bars and its one-time notices that the DeltaNet kernels
    fall back to PyTorch (true, expected, and noise on every CLI call)."""

    from transformers.utils import logging  # lazy: transformers is the [train] extra

    logging.set_verbosity_error()
    logging.disable_progress_bar()
    warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*")


def checkpoint_files(directory: Path) -> list[str]:
    """The files `load_base_model` reads from a checkpoint directory: its config and its
    safetensors weights (one file, or an index and its shards); never the tokenizer."""

    directory = Path(directory)
    if not (directory / "config.json").is_file():
        raise InputError(f"{directory} is not a Hugging Face checkpoint directory (no config.json)")
    if (directory / "model.safetensors").is_file():
        return ["config.json", "model.safetensors"]
    index = directory / "model.safetensors.index.json"
    if index.is_file():
        return ["config.json", "model.safetensors.index.json"] + shard_names(json.loads(index.read_bytes()), directory)
    raise InputError(f"{directory} has no safetensors weights (model.safetensors or its index)")


def shard_names(index: dict, directory) -> list[str]:
    """The shard files a safetensors index names: plain file names in the checkpoint directory."""

    try:
        names = sorted(set(index["weight_map"].values()))
    except (KeyError, TypeError, AttributeError):
        raise InputError(f"{directory}/model.safetensors.index.json has no weight_map") from None
    for n in names:
        if not isinstance(n, str) or "/" in n or "\\" in n or n.startswith("."):
            raise InputError(f"{directory}/model.safetensors.index.json names a shard outside the checkpoint: {n!r}")
    return names


def base_from_files(directory: Path, read):
    """The base LM alone, float32, eval mode, built from the bytes `read(name)` returns for the
    files of `checkpoint_files` (the loader's manifest hashes them as it reads them).  The
    config and the weights come from those bytes, never from the path again, so the bytes that
    were hashed are the bytes that run (transformers' own loading does the rest: key names,
    tied weights, buffers)."""

    from safetensors.torch import load as load_safetensors  # lazy: safetensors.torch needs torch, the [train] extra
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # lazy: transformers is the [train] extra

    # lazy: transformers is the [train] extra
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING

    quiet()
    names = checkpoint_files(directory)
    try:
        cfg = json.loads(read("config.json"))
        config = CONFIG_MAPPING[cfg["model_type"]].from_dict(cfg)
        model_class = MODEL_FOR_CAUSAL_LM_MAPPING[type(config)]
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"{directory}/config.json is not a causal LM config transformers knows: {e}") from None
    if "model.safetensors.index.json" in names:
        index = json.loads(read("model.safetensors.index.json"))
        names = ["config.json", "model.safetensors.index.json"] + shard_names(index, directory)
    state = {}
    for name in names:
        if name.endswith(".safetensors"):
            state.update(load_safetensors(read(name)))
    model = model_class.from_pretrained(None, config=config, state_dict=state, dtype=torch.float32)
    return model.eval()


def load_base_model(directory: Path):
    """The base LM alone, float32, eval mode, read from `directory` (training and text use)."""
    directory = Path(directory)
    return base_from_files(directory, lambda name: (directory / name).read_bytes())


def load_base(directory: Path):
    """(model, tokenizer) from a local HF checkpoint directory (training and text use)."""
    from transformers import AutoTokenizer  # lazy: transformers is the [train] extra

    model = load_base_model(directory)
    return model, AutoTokenizer.from_pretrained(Path(directory))


def _config(model):
    cfg = model.config
    return getattr(cfg, "text_config", None) or cfg


def forward_logits(
    model, input_ids: torch.Tensor, padded: bool = False, rows: torch.Tensor | None = None
) -> torch.Tensor:
    """Next-token logits at the last position: [B, vocab], or [B, len(rows)] for the vocabulary
    rows `rows` only (the step tokens).  `model` may be peft-wrapped."""
    cfg = _config(model)
    kw = {}
    if cfg.model_type in HYBRID_MODEL_TYPES:
        kw["chunk_size"] = input_ids.shape[1]  # one DeltaNet chunk, no padding to 64
    if not padded and getattr(cfg, "layer_types", None):
        # No masks: plain causal attention.  Without this, transformers builds the mask by
        # indexing with arange(batch size), which an exported graph then reads as a batch
        # dependence that sketchpad.certify.rows cannot prove harmless (and refuses).
        kw["attention_mask"] = {t: None for t in {*cfg.layer_types, "full_attention"}}
    causal = model.get_base_model() if hasattr(model, "get_base_model") else model
    if rows is not None and _plain_causal_lm(causal):
        hidden = causal.model(input_ids=input_ids, use_cache=False, **kw).last_hidden_state
        # The last position as its own contiguous [B, H] tensor: the output layer's matmul then
        # reads the same memory layout whether or not its weight requires grad, so a peft model
        # at gate 0 and the plain base give the same bits.
        return _output_rows(causal.lm_head, hidden[:, -1, :].contiguous(), rows)
    # All positions, then the last: with logits_to_keep=1 lm_head reads a non-contiguous slice,
    # and torch's matmul then picks its kernel by whether the weight requires grad - so a peft
    # model (frozen base) and the plain base would differ in the last bit.  Five rows cost nothing.
    out = model(input_ids=input_ids, use_cache=False, **kw)
    logits = out.logits[:, -1, :]
    return logits if rows is None else logits[:, rows]


def _plain_causal_lm(causal) -> bool:
    """A decoder-only LM laid out as transformers' *ForCausalLM: .model (the body, whose
    last_hidden_state is normed) and .lm_head."""
    return (
        type(causal).__name__.endswith("ForCausalLM")
        and hasattr(causal, "model")
        and isinstance(getattr(causal, "lm_head", None), torch.nn.Module)
    )


def _output_rows(head, hidden: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """head(hidden)[:, rows] computed for those rows only.  head is an nn.Linear, or peft's LoRA
    Linear around one: W_rows h + (B_rows A h) * scaling, where B's forward hooks (the adapter
    gate) act on B's rows exactly as they act on B's whole output."""
    import torch.nn.functional as F  # lazy: torch is the [train] extra

    base = getattr(head, "base_layer", None)
    if base is None:
        if type(head) is not torch.nn.Linear:
            return head(hidden)[:, rows]
        return F.linear(hidden, head.weight[rows], None if head.bias is None else head.bias[rows])
    out = F.linear(hidden, base.weight[rows], None if base.bias is None else base.bias[rows])
    if getattr(head, "disable_adapters", False) or getattr(head, "merged", False):
        return out
    for name in head.active_adapters:
        if name not in head.lora_A:
            continue
        if getattr(head, "use_dora", {}).get(name) or getattr(head, "lora_variant", {}).get(name):
            return head(hidden)[:, rows]  # a LoRA variant: the layer's own forward
        A, B = head.lora_A[name], head.lora_B[name]
        z = A(head.lora_dropout[name](hidden))
        y = F.linear(z, B.weight[rows], None if B.bias is None else B.bias[rows])
        for hook in B._forward_hooks.values():
            r = hook(B, (z,), y)
            if r is not None:
                y = r
        out = out + y * head.scaling[name]
    return out


def text_logits(model, input_ids: torch.Tensor) -> torch.Tensor:
    """All-position logits for ordinary text (training the base, gate tests)."""
    cfg = _config(model)
    kw = {"chunk_size": 64} if cfg.model_type in HYBRID_MODEL_TYPES else {}
    return model(input_ids=input_ids, use_cache=False, **kw).logits
