"""Shared helpers for the model tests: a tiny random Qwen3.5 base, built in well under a second."""

from __future__ import annotations

import pytest
import torch

from sketchpad.model.backbone import build_base, tiny_config
from sketchpad.model.tokenizer import build_char_tokenizer, step_vocabulary


def tiny_random_base(seed: int = 0, with_sketch_tokens: bool = True):
    """(model, hf_tokenizer): random init, the default model's shape."""
    steps = step_vocabulary()
    tok = build_char_tokenizer(steps if with_sketch_tokens else [])
    if not with_sketch_tokens:  # a foreign base: text tokens only, no view/step tokens
        tok = _text_only(tok)
    model = build_base(tiny_config(len(tok)), seed=seed).eval()
    return model, tok


def _text_only(tok):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from sketchpad.model.tokenizer import SPECIAL_TOKENS, TEXT_CHARS

    vocab = {t: i for i, t in enumerate(SPECIAL_TOKENS + TEXT_CHARS)}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tk.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(
        tokenizer_object=tk, pad_token="<pad>", bos_token="<bos>", eos_token="<eos>", unk_token="<unk>"
    )


def randomise_lora_B(model, seed: int = 1, std: float = 0.5) -> int:
    """peft starts lora_B at zero (adapter = identity); give it random values so it matters."""
    g = torch.Generator().manual_seed(seed)
    n = 0
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g) * std)
                n += 1
    return n


TEXT = (
    "Return a new list containing all items from the iterable in ascending order.\n"
    "A custom key function can be supplied to customize the sort order."
)


@pytest.fixture(scope="module", autouse=False)
def one_thread():
    """These models have ~100k parameters: one torch thread is faster, and far faster on a
    busy CI machine (see sketchpad.model.stepper).  Restored afterwards."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)
