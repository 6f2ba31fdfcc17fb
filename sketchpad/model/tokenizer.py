"""Views to token ids, and the step vocabulary.

A view is always the same five tokens: <view> <op:OP> <c:A> <c:B> <c:C>.  Fixed length means
a batch needs no padding and every position is real.  A step is one token <s:SF:NEXT>; the
step vocabulary is the sorted set of distinct reference steps over the view set V, so the
model chooses among exactly the steps the spec can ask for.

The base LM's tokenizer is a character-level Hugging Face tokenizer (tokenizer.json) for
ordinary text, with every view and step token added as a special token.  For a foreign base
(e.g. Qwen3.5-0.8B) the same tokens are added to its tokenizer.  `sketchpad_vocab.json`
records the ids, and `ViewTokenizer.check` proves they agree with the HF tokenizer.
"""

from __future__ import annotations

import string
from pathlib import Path

import torch

from ..symbols import CELL_SYMBOLS, OPS, Step, View
from ..views import load
from .vocab import VOCAB_FILE, StepVocab

VIEW_TOKEN = "<view>"
SPECIAL_TOKENS = ["<pad>", "<bos>", "<eos>", "<unk>"]
# Ordinary text the base LM reads: printable ASCII plus newline (no tab: docstrings are expanded).
TEXT_CHARS = [c for c in string.printable if c not in "\t\r\x0b\x0c"]


def op_token(op: str) -> str:
    return f"<op:{op}>"


def cell_token(sym: str) -> str:
    return f"<c:{sym}>"


def step_token(step: Step) -> str:
    return f"<s:{step.sym}{step.flag}:{step.next}>"


def step_vocabulary(entries=None) -> list[Step]:
    """The sorted distinct reference steps over V (from the committed export)."""
    if entries is None:
        entries = load()
    return sorted({e["step"] for e in entries})


def sketch_tokens(steps: list[Step]) -> list[str]:
    """Every token a view or a step needs, in a fixed order."""
    return (
        [VIEW_TOKEN]
        + [op_token(o) for o in OPS]
        + [cell_token(s) for s in CELL_SYMBOLS]
        + [step_token(s) for s in steps]
    )


def build_char_tokenizer(steps: list[Step]):
    """A character-level HF tokenizer for text, with the view and step tokens added."""
    # lazy: tokenizers comes with transformers, the [train] extra
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast  # lazy: transformers is the [train] extra

    vocab = {t: i for i, t in enumerate(SPECIAL_TOKENS + TEXT_CHARS)}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")  # one char = one token
    tk.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tk, pad_token="<pad>", bos_token="<bos>", eos_token="<eos>", unk_token="<unk>"
    )
    fast.add_special_tokens({"additional_special_tokens": sketch_tokens(steps)})
    return fast


def add_sketch_tokens(hf_tokenizer, steps: list[Step]) -> int:
    """Add the view/step tokens a foreign tokenizer lacks; returns how many were added."""
    missing = [t for t in sketch_tokens(steps) if t not in hf_tokenizer.get_vocab()]
    if missing:
        hf_tokenizer.add_special_tokens({"additional_special_tokens": missing}, replace_extra_special_tokens=False)
    return len(missing)


class ViewTokenizer:
    """Fast view -> ids (a table lookup), and step index <-> Step."""

    def __init__(self, ids: dict[str, int], steps: list[Step]):
        self.ids = ids  # token string -> id in the base vocabulary
        self.steps = steps  # step index -> Step
        self.step_ids = torch.tensor([ids[step_token(s)] for s in steps], dtype=torch.long)
        self._view_id = ids[VIEW_TOKEN]
        self._op = {o: ids[op_token(o)] for o in OPS}
        self._cell = {s: ids[cell_token(s)] for s in CELL_SYMBOLS}
        self._index = {s: k for k, s in enumerate(steps)}

    @classmethod
    def from_hf(cls, hf_tokenizer, steps: list[Step]) -> ViewTokenizer:
        vocab = hf_tokenizer.get_vocab()
        return cls({t: vocab[t] for t in sketch_tokens(steps)}, steps)

    seq_len = 5

    def encode(self, views: list[View]) -> torch.Tensor:
        """[B, 5] token ids.  An op or symbol outside the alphabet is a KeyError, not a guess."""
        op, cell, v = self._op, self._cell, self._view_id
        return torch.tensor([[v, op[w[0]], cell[w[1]], cell[w[2]], cell[w[3]]] for w in views], dtype=torch.long)

    def text(self, view: View) -> str:
        """The same view as text for the HF tokenizer (used to check the fast path)."""
        return VIEW_TOKEN + op_token(view.op) + "".join(cell_token(s) for s in view[1:])

    def index(self, step: Step) -> int:
        return self._index[step]

    def check(self, hf_tokenizer, views: list[View]) -> None:
        """The HF tokenizer and the fast table give the same ids (raises if not)."""
        for v in views:
            hf = hf_tokenizer(self.text(v), add_special_tokens=False)["input_ids"]
            if hf != self.encode([v])[0].tolist():
                raise ValueError(f"tokenizer disagreement on {v}: {hf}")

    def save(self, model_dir: Path) -> Path:
        path = Path(model_dir) / VOCAB_FILE
        path.write_text(StepVocab(self.ids, self.steps).dumps(self.seq_len))
        return path

    @classmethod
    def from_vocab(cls, vocab: StepVocab) -> ViewTokenizer:
        return cls(vocab.ids, vocab.steps)

    @classmethod
    def load(cls, model_dir: Path) -> ViewTokenizer:
        return cls.from_vocab(StepVocab.parse((Path(model_dir) / VOCAB_FILE).read_bytes()))
