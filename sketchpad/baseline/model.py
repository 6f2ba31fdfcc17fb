"""The baseline network: exactly the shipped base LM's architecture and size.

Same config (`sketchpad.model.backbone.tiny_config`), same character tokenizer
(`build_char_tokenizer` over the same step vocabulary, so the same vocabulary size and hence
the same parameter count), saved and loaded with the same `save_base` / `load_base`.  Only
the characters 0-9 + * = and <bos> <eos> <pad> are ever used.  It is trained from scratch
(random initialisation, seeded): the base LM's docstring pre-training teaches nothing about
arithmetic, and from scratch the baseline spends its whole budget on the task.
"""

from __future__ import annotations

from pathlib import Path

import torch

from ..model.backbone import HYBRID_MODEL_TYPES, build_base, load_base, save_base, tiny_config
from ..model.tokenizer import build_char_tokenizer, step_vocabulary

ANSWER_CHARS = "0123456789"
CHUNK = 16  # DeltaNet fallback chunk length


class CharCodec:
    """Characters <-> token ids of the base LM's character tokenizer (a table lookup)."""

    def __init__(self, hf_tokenizer):
        vocab = hf_tokenizer.get_vocab()
        self.tok = hf_tokenizer
        self.id = {c: vocab[c] for c in "0123456789+*="}
        self.bos, self.eos, self.pad = (hf_tokenizer.bos_token_id, hf_tokenizer.eos_token_id, hf_tokenizer.pad_token_id)
        self.char = {i: c for c, i in self.id.items()}
        self.answer_ids = torch.tensor([self.id[c] for c in ANSWER_CHARS] + [self.eos])

    def encode(self, text: str) -> list[int]:
        return [self.id[c] for c in text]

    def check(self) -> None:
        """The table agrees with the HF tokenizer (raises if not)."""
        s = "0123456789+*="
        if self.tok(s, add_special_tokens=False)["input_ids"] != self.encode(s):
            raise ValueError("character table disagrees with the tokenizer")


def new_model(seed: int = 0):
    """(model, tokenizer): the base LM's shape and vocabulary, randomly initialised."""

    tok = build_char_tokenizer(step_vocabulary())
    return build_base(tiny_config(len(tok)), seed=seed), tok


def save(model, tok, directory: Path) -> Path:
    return save_base(model, tok, directory)


def load(directory: Path):
    return load_base(directory)


def all_logits(model, ids: torch.Tensor) -> torch.Tensor:
    """[B, T, vocab].  Right padding needs no mask: the model is causal, so pad tokens after a
    sequence cannot change the logits at its real positions."""
    kw = {}
    if model.config.model_type in HYBRID_MODEL_TYPES:
        kw["chunk_size"] = min(ids.shape[1], CHUNK)  # the same maths at any chunk size; 16 is fastest here
        kw["attention_mask"] = {"full_attention": None, "linear_attention": None}
    return model(input_ids=ids, use_cache=False, **kw).logits


@torch.no_grad()
def greedy_answers(model, codec: CharCodec, prompts: list[str], max_len: int) -> list[str]:
    """Greedy decoding of the answer for prompts of equal length (one batch, no padding).
    Each step takes the arg-max over the answer alphabet (digits and <eos>); decoding stops at
    <eos> or after max_len tokens.  Returns the written answers (reversed digits)."""
    if len({len(p) for p in prompts}) != 1:
        raise ValueError("greedy_answers needs prompts of equal length")
    ids = torch.tensor([[codec.bos] + codec.encode(p) for p in prompts], dtype=torch.long)
    allowed = codec.answer_ids
    out = [[] for _ in prompts]
    done = torch.zeros(len(prompts), dtype=torch.bool)
    for _ in range(max_len):
        nxt = allowed[all_logits(model, ids)[:, -1, allowed].argmax(-1)]
        for k, t in enumerate(nxt.tolist()):
            if not done[k]:
                if t == codec.eos:
                    done[k] = True
                else:
                    out[k].append(codec.char[t])
        if bool(done.all()):
            break
        ids = torch.cat([ids, nxt[:, None]], dim=1)
    return ["".join(o) for o in out]
