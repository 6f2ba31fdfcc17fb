"""The LoRA adapter's settings, in one place (peft-style: a config dataclass, as peft's own
`LoraConfig`): `sketchpad train --rank`'s default, train_adapter, new_adapter and meta.json
all read them from here.  No torch or peft import, so the command line can show the defaults."""

from __future__ import annotations

from dataclasses import dataclass

# Module-name suffixes peft adapts where a base has them: Qwen3.5's DeltaNet and attention
# projections, the MLPs, and lm_head (the step tokens are new to the base, so their output
# directions must be learnable).
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


@dataclass(frozen=True)
class AdapterConfig:
    """rank and alpha are peft's `r` and `lora_alpha`; targets are module-name suffixes."""

    rank: int = 8
    alpha: float = 16.0
    targets: tuple[str, ...] = DEFAULT_TARGETS

    def lora_config(self, present: list[str]):
        """peft's LoraConfig for the targets a base has (`present`); no dropout, no bias."""
        from peft import LoraConfig  # the [train] extra: only when an adapter is made

        return LoraConfig(
            r=self.rank, lora_alpha=self.alpha, lora_dropout=0.0, target_modules=list(present), bias="none"
        )
