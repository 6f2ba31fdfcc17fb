"""Training, nanoGPT style: two plain loops with a progress bar and a fixed seed.

1. `pretrain_base`: a character-level Qwen3.5-family LM on the stdlib docstring corpus
   (next-character prediction).  This is the model that gate 0 gives back.
2. `train_adapter`: the LoRA adapter on every view of V (full batch), with the base frozen.
   Loss = cross-entropy over the step tokens + a hinge that pushes the margin
   (true step's logit minus the best other step's) above `stop_margin + 1`.
   Stop rule: every view of V correct AND the smallest margin >= `stop_margin` (default 5
   logits: the certificate's target is >= 4, and the extra logit is room for other backends,
   fp16 and GPU drift), or `max_steps`.
"""

from __future__ import annotations

import json
import math
import platform
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from .. import views as V
from ..version import __version__
from ..views import file_sha256
from . import DEFAULT_BASE_STEPS, DEFAULT_MAX_STEPS, corpus
from .adapter import ADAPTER_DIR, BASE_DIR, new_adapter
from .adapter_config import AdapterConfig
from .backbone import build_base, forward_logits, load_base, save_base, text_logits, tiny_config
from .tokenizer import ViewTokenizer, add_sketch_tokens, build_char_tokenizer, step_vocabulary

DEFAULT_STOP_MARGIN = 5.0


def _seed(seed: int) -> None:
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def _lr(step: int, total: int, peak: float, warmup: int = 50) -> float:
    """Linear warm-up, cosine decay to 10% of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    p = (step - warmup) / max(1, total - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, p))))


# ------------------------------------------------------------------ 1. the base LM


def pretrain_base(
    out_dir: Path,
    steps: int = DEFAULT_BASE_STEPS,
    batch: int = 32,
    seq_len: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    progress: bool = True,
) -> dict:
    """Train a tiny Qwen3.5 LM on stdlib docstrings; save it to out_dir (HF format)."""

    _seed(seed)
    steps_vocab = step_vocabulary()
    tok = build_char_tokenizer(steps_vocab)
    text = corpus.text()
    data = torch.tensor(tok(text, add_special_tokens=False)["input_ids"], dtype=torch.long)
    split = int(len(data) * 0.95)  # last 5% held out
    train, val = data[:split], data[split:]
    model = build_base(tiny_config(len(tok)), seed=seed).train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0, betas=(0.9, 0.95))
    gen = torch.Generator().manual_seed(seed)

    def batch_of(src):
        ix = torch.randint(len(src) - seq_len - 1, (batch,), generator=gen)
        x = torch.stack([src[i : i + seq_len + 1] for i in ix])
        return x[:, :-1], x[:, 1:]

    t0 = time.perf_counter()
    bar = tqdm(range(steps), desc="base LM", unit="step", disable=not progress)
    for step in bar:
        for group in opt.param_groups:
            group["lr"] = _lr(step, steps, lr)
        x, y = batch_of(train)
        loss = F.cross_entropy(text_logits(model, x).flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}")
    model.eval()
    with torch.no_grad():
        vl = [
            F.cross_entropy(text_logits(model, xv).flatten(0, 1), yv.flatten()).item()
            for xv, yv in (batch_of(val) for _ in range(20))
        ]
    save_base(model, tok, out_dir)
    return {
        "steps": steps,
        "batch": batch,
        "seq_len": seq_len,
        "lr": lr,
        "seed": seed,
        "corpus": "docstrings of Python's standard library (sketchpad.model.corpus)",
        "corpus_chars": len(text),
        "corpus_sha256": corpus.sha256(text),
        "val_loss_nats_per_char": round(sum(vl) / len(vl), 4),
        "parameters": sum(p.numel() for p in model.parameters()),
        "seconds": round(time.perf_counter() - t0, 1),
    }


# ------------------------------------------------------------------ 2. the adapter


def margins_of(step_logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """True step's logit minus the best other step's logit, per view (negative = wrong)."""
    true = step_logits.gather(1, target[:, None])[:, 0]
    other = step_logits.scatter(1, target[:, None], float("-inf")).max(1).values
    return true - other


def prepare_base(base_dir: Path, model_dir: Path):
    """Load a base checkpoint, give its tokenizer the view/step tokens, save it as model_dir/base."""
    base, tok = load_base(base_dir)
    steps = step_vocabulary()
    added = add_sketch_tokens(tok, steps)
    if added:
        base.resize_token_embeddings(len(tok))  # new rows only: old tokens are unchanged
    target = Path(model_dir) / BASE_DIR
    if added or Path(base_dir).resolve() != target.resolve():
        save_base(base, tok, target)
    vt = ViewTokenizer.from_hf(tok, steps)
    vt.save(model_dir)
    return base, tok, vt


def train_adapter(
    model_dir: Path,
    base_dir: Path | None = None,
    adapter: AdapterConfig = AdapterConfig(),
    lr: float = 1e-2,
    max_steps: int = DEFAULT_MAX_STEPS,
    stop_margin: float = DEFAULT_STOP_MARGIN,
    seed: int = 0,
    subset: int | None = None,
    progress: bool = True,
) -> dict:
    """Fit the adapter on V (or its first `subset` views); save base, adapter and vocab."""

    model_dir = Path(model_dir)
    model_dir.mkdir(parents=True, exist_ok=True)
    base, tok, vt = prepare_base(base_dir or model_dir / BASE_DIR, model_dir)
    _seed(seed)
    entries = V.load()[:subset] if subset else V.load()
    ids = vt.encode([e["view"] for e in entries])
    target = torch.tensor([vt.index(e["step"]) for e in entries], dtype=torch.long)
    model = new_adapter(base, adapter, seed=seed)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    t0 = time.perf_counter()
    done, step = False, 0
    bar = tqdm(range(max_steps), desc="adapter", unit="step", disable=not progress)
    for step in bar:
        for group in opt.param_groups:
            group["lr"] = _lr(step, max_steps, lr)
        logits = forward_logits(model, ids)[:, vt.step_ids]
        m = margins_of(logits, target)
        wrong, min_m = int((m <= 0).sum()), float(m.detach().min())
        bar.set_postfix(wrong=wrong, min_margin=f"{min_m:.2f}")
        if wrong == 0 and min_m >= stop_margin:  # the stop rule
            done = True
            break
        loss = F.cross_entropy(logits, target) + F.relu(stop_margin + 1.0 - m).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    bar.close()
    model.eval()
    model.save_pretrained(model_dir / ADAPTER_DIR, safe_serialization=True, save_embedding_layers=False)
    return {
        "rank": adapter.rank,
        "alpha": adapter.alpha,
        "targets": list(adapter.targets),
        "lr": lr,
        "seed": seed,
        "max_steps": max_steps,
        "steps": step,
        "stop_margin": stop_margin,
        "stopped_by_rule": done,
        "views_trained": len(entries),
        "wrong_at_stop": wrong,
        "min_margin_at_stop": round(min_m, 4),
        "trainable_parameters": sum(p.numel() for p in params),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def write_meta(model_dir: Path, base_info: dict | None, adapter_info: dict, base_source: str) -> Path:
    import peft  # lazy: peft is the [train] extra
    import transformers  # lazy: transformers is the [train] extra

    meta = {
        "format": "sketchpad-model/1",
        "tool_version": __version__,
        "base_source": base_source,
        "base_training": base_info,
        "adapter_training": adapter_info,
        "view_set_sha256": file_sha256(),
        "gate_default": 1.0,
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "peft": peft.__version__,
        },
        "threads": torch.get_num_threads(),
    }
    path = Path(model_dir) / "meta.json"
    path.write_text(json.dumps(meta, indent=1) + "\n")
    return path
