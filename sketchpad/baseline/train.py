"""Training the no-sheet baseline, nanoGPT style: one loop, a progress bar, a fixed seed.

The compute budget is counted in *token positions through forward and backward* of the same
network (steps x batch x padded sequence length, padding included: it is computed too).  The
default budget is the shipped default model's: its base LM pre-training (steps x batch x
seq_len) plus its adapter training (steps x |V| views x 5 tokens), read from
sketchpad/data/default_model/meta.json, or from `sketchpad train`'s defaults while that file
does not exist.  The baseline spends all of it on arithmetic, from scratch.  Wall-clock time is
recorded next to it (both runs on this CPU, one torch thread), but it is not the budget: the
build machines are shared and their speed varies several-fold from minute to minute.

Each batch is one operation (alternating + and *) with operand lengths from a window of three
consecutive lengths, so a batch needs little padding; the longest length on offer grows over
the first half of the budget (a curriculum), then all lengths are drawn uniformly.  Loss: cross-entropy on the answer
digits and <eos> only (the prompt is given, not predicted).
"""

from __future__ import annotations

import inspect
import json
import math
import random
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from ..model import DEFAULT_MODEL_DIR
from ..model import train as mtrain
from . import data
from .model import CharCodec, all_logits, new_model, save

VIEW_TOKENS = 5  # a view is five tokens (sketchpad.model.tokenizer.ViewTokenizer.seq_len)


def default_model_budget(model_dir: Path | None = None) -> dict:
    """The default model's training compute, in token positions, with where it came from."""

    meta_path = Path(model_dir or DEFAULT_MODEL_DIR) / "meta.json"
    n_views = len((Path(__file__).resolve().parent.parent / "data" / "views.jsonl").read_text().splitlines())
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        b, a = meta.get("base_training") or {}, meta.get("adapter_training") or {}
        base_tokens = b.get("steps", 0) * b.get("batch", 0) * b.get("seq_len", 0)
        # `steps` is the loop index at exit: when the stop rule fired there, that pass was
        # forward-only, so `steps` passes had a backward; otherwise all max_steps did.
        a_steps = a.get("steps", 0) + (0 if a.get("stopped_by_rule") else 1)
        views = a.get("views_trained", n_views)
        try:
            source = str(meta_path.resolve().relative_to(Path(__file__).resolve().parents[2]))
        except ValueError:
            source = str(meta_path)
        seconds = (b.get("seconds") or 0) + (a.get("seconds") or 0)
    else:  # what `sketchpad train` would run by default
        d = {k: v.default for k, v in inspect.signature(mtrain.pretrain_base).parameters.items()}
        base_tokens = mtrain.DEFAULT_BASE_STEPS * d["batch"] * d["seq_len"]
        a_steps, views = mtrain.DEFAULT_MAX_STEPS, n_views
        b = {"steps": mtrain.DEFAULT_BASE_STEPS, "batch": d["batch"], "seq_len": d["seq_len"]}
        source = "`sketchpad train` defaults (no meta.json yet; adapter counted at max_steps)"
        seconds = None
    adapter_tokens = a_steps * views * VIEW_TOKENS
    return {
        "source": source,
        "base_tokens": base_tokens,
        "adapter_tokens": adapter_tokens,
        "tokens": base_tokens + adapter_tokens,
        "base": {k: b.get(k) for k in ("steps", "batch", "seq_len")},
        "adapter": {"steps": a_steps, "batch_views": views, "tokens_per_view": VIEW_TOKENS},
        "default_model_train_seconds": seconds,
    }


def encode_batch(codec: CharCodec, problems, reverse_operands: bool = False):
    """(input ids [B, T], targets [B, T] with -100 everywhere but the answer and <eos>)."""
    seqs, starts = [], []
    for a, op, b in problems:
        p = [codec.bos] + codec.encode(data.prompt(a, op, b, reverse_operands))
        seqs.append(p + codec.encode(data.target(a, op, b)) + [codec.eos])
        starts.append(len(p))
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), codec.pad, dtype=torch.long)
    tgt = torch.full((len(seqs), T), -100, dtype=torch.long)
    for k, (s, st) in enumerate(zip(seqs, starts)):
        ids[k, : len(s)] = torch.tensor(s)
        tgt[k, st - 1 : len(s) - 1] = torch.tensor(s[st:])  # position t predicts token t+1
    return ids, tgt


def loss_of(model, ids, tgt) -> torch.Tensor:
    logits = all_logits(model, ids)
    return F.cross_entropy(logits.flatten(0, 1), tgt.flatten(), ignore_index=-100)


class Batches:
    """Seeded batches: alternate + and *, operand lengths from a window of three consecutive
    lengths.  Curriculum: the longest length on offer grows linearly from 3 to the maximum
    over the first `ramp` of the budget, then every length is drawn uniformly."""

    def __init__(self, add_max: int, mul_max: int, batch: int, seed: int, ramp: float = 0.5):
        self.max = {"+": add_max, "*": mul_max}
        self.batch = batch
        self.ramp = ramp
        self.rng = random.Random(f"baseline-train:{seed}")
        self.k = 0
        self.frac = 0.0  # fraction of the budget spent (set by the loop)

    def __next__(self):
        op = "+*"[self.k % 2]
        self.k += 1
        full = self.max[op]
        grow = min(1.0, self.frac / self.ramp) if self.ramp > 0 else 1.0
        top = min(full, max(3, round(3 + (full - 3) * grow)))
        lo = self.rng.randint(1, max(1, top - 2))
        out = []
        for _ in range(self.batch):
            n = self.rng.randint(lo, min(top, lo + 2))
            out.append((data.random_operand(n, self.rng), op, data.random_operand(n, self.rng)))
        return out


def _lr(frac: float, peak: float, warmup: float = 0.03) -> float:
    if frac < warmup:
        return peak * (frac + 1e-3) / warmup
    p = (frac - warmup) / (1 - warmup)
    return peak * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, p))))


def train(
    out_dir: Path | None,
    budget_tokens: int,
    add_max: int = 30,
    mul_max: int = 12,
    batch: int = 16,
    lr: float = 2e-3,
    seed: int = 0,
    progress: bool = True,
    max_seconds: float | None = None,
    threads: int = 1,
    reverse_operands: bool = True,
    ramp: float = 0.5,
) -> tuple[object, CharCodec, dict]:
    """Train from scratch until `budget_tokens` token positions (or `max_seconds`) are spent.
    Saves to out_dir (HF format) unless it is None.  Returns (model, codec, info).
    One torch thread by default: for a network this small, a second thread costs more in
    synchronisation than it gains (measured: ~5x slower per step on a shared 2-core machine)."""
    old_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _train(
            out_dir, budget_tokens, add_max, mul_max, batch, lr, seed, progress, max_seconds, reverse_operands, ramp
        )
    finally:
        torch.set_num_threads(old_threads)


def _train(out_dir, budget_tokens, add_max, mul_max, batch, lr, seed, progress, max_seconds, reverse_operands, ramp):
    torch.manual_seed(seed)
    model, tok = new_model(seed)
    codec = CharCodec(tok)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01, betas=(0.9, 0.98))
    batches = Batches(add_max, mul_max, batch, seed, ramp)
    spent, step, losses = 0, 0, []
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    stopped_by = "budget"
    bar = tqdm(total=budget_tokens, desc="baseline", unit="tok", unit_scale=True, disable=not progress)
    while spent < budget_tokens:
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            stopped_by = "max_seconds"
            break
        for g in opt.param_groups:
            g["lr"] = _lr(spent / budget_tokens, lr)
        batches.frac = spent / budget_tokens
        ids, tgt = encode_batch(codec, next(batches), reverse_operands)
        loss = loss_of(model, ids, tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        spent += ids.numel()
        step += 1
        losses.append(loss.item())
        bar.update(ids.numel())
        if step % 20 == 0:
            bar.set_postfix(loss=f"{sum(losses[-20:]) / 20:.3f}", step=step)
    bar.close()
    model.eval()
    info = {
        "init": "from scratch (seeded random initialisation)",
        "seed": seed,
        "steps": step,
        "batch": batch,
        "lr": lr,
        "add_lengths": [1, add_max],
        "mul_lengths": [1, mul_max],
        "answer_order": "reversed (least significant digit first)",
        "reverse_operands": reverse_operands,
        "curriculum_ramp": ramp,
        "loss": "cross-entropy on answer digits and <eos> only",
        "budget_tokens": budget_tokens,
        "tokens_spent": spent,
        "stopped_by": stopped_by,
        "first_loss": round(losses[0], 4) if losses else None,
        "final_loss_mean_last_50": round(sum(losses[-50:]) / max(1, len(losses[-50:])), 4),
        "parameters": sum(p.numel() for p in model.parameters()),
        "seconds": round(time.perf_counter() - t0, 1),
        "cpu_seconds": round(time.process_time() - cpu0, 1),
        "threads": torch.get_num_threads(),
    }
    if out_dir is not None:
        save(model, tok, out_dir)
        (Path(out_dir) / "baseline_meta.json").write_text(json.dumps(info, indent=1) + "\n")
    return model, codec, info
