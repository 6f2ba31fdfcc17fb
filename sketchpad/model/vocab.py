"""The model's step vocabulary file, `sketchpad_vocab.json`: which token id each operation,
cell symbol and step is, and the step list (logit index -> Step).  torch-free, so that the
ONNX path and the certifier can read it without importing torch."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..symbols import Step

VOCAB_FILE = "sketchpad_vocab.json"
FORMAT = "sketchpad-vocab/1"


@dataclass(frozen=True)
class StepVocab:
    ids: dict  # token string -> id in the base vocabulary
    steps: list  # step index -> Step

    @classmethod
    def parse(cls, data: bytes | str) -> StepVocab:
        d = json.loads(data)
        return cls({k: int(v) for k, v in d["token_ids"].items()}, [Step(*s) for s in d["steps"]])

    def dumps(self, seq_len: int) -> str:
        return (
            json.dumps(
                {"format": FORMAT, "seq_len": seq_len, "steps": [list(s) for s in self.steps], "token_ids": self.ids},
                indent=1,
                sort_keys=True,
            )
            + "\n"
        )
