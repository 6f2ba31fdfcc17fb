"""What a forward row costs at the paper's size, on this CPU (not a test; run once, cached).

Builds a Qwen3.5-0.8B-shaped model with random weights from its public text config (vocabulary
248,320, hidden 1,024, 24 layers: 18 Gated DeltaNet + 6 gated full attention, MLP 3,584, tied
embeddings: 752 M parameters), saves it as a Hugging Face checkpoint directory with
save_pretrained, adds a rank-8 LoRA adapter (peft save_pretrained) and the view/step token
table, and loads the whole model directory through the product's own loader
(sketchpad.model.torch_stepper.load: transformers Auto classes, peft, the adapter gate) - the
real-checkpoint path, only the weights are random.  Then it times the stepper's forward pass
(last position, step-token rows only) on views of V at several batch sizes, and the previous
full-logits path (all 5 positions x 248,320 vocabulary rows) at one, and writes
benchmarks/results/paper_scale.json: seconds per batch of n forward rows.

    python benchmarks/bench_paper_scale.py [--batches 1,16,64,256] [--workdir /tmp/...]

Needs ~3 GB of disk and ~8 GB of memory; takes minutes.  bench_model.py reads the JSON and
adds a paper-scale column (the sum over a solve's batches of the cost of each batch).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from sketchpad.model.adapter_config import AdapterConfig  # noqa: E402
from sketchpad.views import load as load_views  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "paper_scale.json"

# Qwen/Qwen3.5-0.8B's text_config (config.json of the public checkpoint); everything else is
# Qwen3_5TextConfig's default.
QWEN35_08B = dict(
    vocab_size=248320,
    hidden_size=1024,
    intermediate_size=3584,
    num_hidden_layers=24,
    num_attention_heads=8,
    num_key_value_heads=2,
    head_dim=256,
    linear_num_key_heads=16,
    linear_num_value_heads=16,
    linear_key_head_dim=128,
    linear_value_head_dim=128,
    linear_conv_kernel_dim=4,
    rms_norm_eps=1e-6,
    max_position_embeddings=262144,
    tie_word_embeddings=True,
    eos_token_id=248044,
    layer_types=["linear_attention"] * 3 + ["full_attention"],
    rope_parameters={"rope_type": "default", "rope_theta": 10_000_000.0, "partial_rotary_factor": 0.25},
)


def config(**overrides):
    """Qwen3.5-0.8B's text config (overrides: e.g. fewer layers for a smaller model of the same shape)."""
    from transformers import Qwen3_5TextConfig  # lazy: transformers is the [train] extra

    kw = dict(QWEN35_08B, **overrides)
    kw["layer_types"] = kw["layer_types"] * (kw["num_hidden_layers"] // 4)
    return Qwen3_5TextConfig(**kw)


def build_model_dir(d: Path, **overrides) -> int:
    """A model directory (base/, adapter/, sketchpad_vocab.json) of random weights; returns the
    base's parameter count.  overrides: config fields (bench_full_size.py's smaller scales)."""
    import torch  # lazy: torch is the [train] extra

    from sketchpad.model.adapter import ADAPTER_DIR, BASE_DIR, new_adapter  # lazy: imports torch, the [train] extra
    from sketchpad.model.backbone import build_base, quiet  # lazy: imports torch, the [train] extra

    # lazy: imports torch, the [train] extra
    from sketchpad.model.tokenizer import ViewTokenizer, sketch_tokens, step_vocabulary

    quiet()
    cfg = config(**overrides)
    t = time.perf_counter()
    base = build_base(cfg, seed=0)
    n = sum(p.numel() for p in base.parameters())
    print(f"built {n:,} parameters in {time.perf_counter() - t:.0f} s", flush=True)
    base.save_pretrained(d / BASE_DIR, safe_serialization=True)
    steps = step_vocabulary()
    tokens = sketch_tokens(steps)
    first = cfg.vocab_size - len(tokens)  # the view/step tokens: the last ids of the vocabulary
    ViewTokenizer({tok: first + k for k, tok in enumerate(tokens)}, steps).save(d)
    model = new_adapter(base, AdapterConfig(rank=8), seed=0)
    model.save_pretrained(d / ADAPTER_DIR)
    del model, base
    gc.collect()
    torch.cuda.empty_cache() if torch.cuda.is_available() else None
    return n


def best(fn, repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", default="1,16,64,256")
    ap.add_argument("--full-at", type=int, default=64, help="also time the full-logits path at this batch size")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds over the batch sizes (best of)")
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch intra-op threads (default: torch's; on a shared, loaded 2-core machine one "
        "thread is several times faster at every batch size)",
    )
    args = ap.parse_args()
    import torch  # lazy: torch is the [train] extra

    if args.threads:
        torch.set_num_threads(args.threads)
    from sketchpad.model.backbone import forward_logits  # lazy: imports torch, the [train] extra
    from sketchpad.model.torch_stepper import load  # lazy: imports torch, the [train] extra

    work = Path(args.workdir or tempfile.mkdtemp(prefix="sketchpad-paper-"))
    load0 = "/".join(f"{x:.1f}" for x in os.getloadavg())
    try:
        n_params = build_model_dir(work)
        t = time.perf_counter()
        stepper = load(work, gate=1.0)  # the product's loader: transformers + peft + gate
        load_s = time.perf_counter() - t
        print(f"loaded through sketchpad.model.torch_stepper.load in {load_s:.0f} s", flush=True)
        views = [e["view"] for e in load_views()]
        sizes = [int(x) for x in args.batches.split(",")]
        per_batch = {n: float("inf") for n in sizes}
        stepper.logits(views[:1])
        for rnd in range(args.rounds):  # interleaved rounds, best of each: the least disturbed
            for n in sizes:
                vs = (views * (n // len(views) + 1))[:n]
                per_batch[n] = min(per_batch[n], best(lambda: stepper.logits(vs), 2 if n <= 16 else 1))
                print(
                    f"round {rnd + 1}, batch {n}: {per_batch[n]:.3f} s ({per_batch[n] / n * 1e3:.0f} ms per row)",
                    flush=True,
                )
        full = {}
        if args.full_at:
            vs = (views * 2)[: args.full_at]
            ids = stepper.vocab.encode(vs)
            with torch.inference_mode():
                full[args.full_at] = best(lambda: forward_logits(stepper.model, ids)[:, stepper.vocab.step_ids], 1)
            print(f"full-logits path, batch {args.full_at}: {full[args.full_at]:.3f} s", flush=True)
        result = {
            "model": "Qwen3.5-0.8B shape (random weights)",
            "config": QWEN35_08B,
            "parameters": n_params,
            "adapter": "LoRA rank 8 on every projection and lm_head, gated",
            "dtype": "float32",
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "load_seconds": round(load_s, 1),
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "load": f"{load0} at start, " + "/".join(f"{x:.1f}" for x in os.getloadavg()) + " at end",
            "machine": f"{os.cpu_count()} CPUs",
            "seconds_per_batch": {str(n): round(s, 4) for n, s in per_batch.items()},
            "full_logits_seconds_per_batch": {str(n): round(s, 4) for n, s in full.items()},
            "note": "the stepper's path: the last position and the 170 step-token rows of the output "
            "layer; full_logits: all 5 positions and all 248,320 rows, then the slice",
        }
        OUT.write_text(json.dumps(result, indent=1) + "\n")
        print(json.dumps(result, indent=1))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
