"""`sketchpad train`: train the base LM (unless --base is given) and the gated LoRA adapter,
then certify the result on the torch backend."""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import InputError
from ..extras import require_train
from ..model import DEFAULT_BASE_STEPS, DEFAULT_MAX_STEPS
from ..model.adapter_config import AdapterConfig
from .certify import certify_model


def register(sub):
    p = sub.add_parser("train", help="train the step model (base LM + LoRA adapter) and certify it")
    p.add_argument("--out", required=True, metavar="DIR", help="model directory to write")
    p.add_argument(
        "--base",
        metavar="PATH",
        help="a local Hugging Face checkpoint to adapt (e.g. Qwen3.5-0.8B); "
        "default: pretrain the tiny Qwen3.5 base on stdlib docstrings",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--base-steps",
        type=int,
        default=DEFAULT_BASE_STEPS,
        help=f"base LM training steps (default {DEFAULT_BASE_STEPS})",
    )
    p.add_argument(
        "--max-steps",
        type=int,
        default=DEFAULT_MAX_STEPS,
        help=f"adapter training steps at most (default {DEFAULT_MAX_STEPS})",
    )
    p.add_argument(
        "--stop-margin", type=float, default=None, help="stop when all views pass with at least this margin (default 5)"
    )
    p.add_argument("--rank", type=int, default=AdapterConfig.rank, help=f"LoRA rank (default {AdapterConfig.rank})")
    p.add_argument("--lr", type=float, default=1e-2, help="adapter learning rate")
    p.add_argument("--subset", type=int, default=None, help="train on the first N views only (tests)")
    p.add_argument("--no-certify", action="store_true", help="skip the certification at the end")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch intra-op threads (1 is fastest for this tiny model, and on a busy machine)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args) -> int:
    require_train("`sketchpad train`")
    from ..model import train  # lazy: the trainer imports torch, the [train] extra

    out = Path(args.out)
    if args.base and not (Path(args.base) / "config.json").is_file():
        raise InputError(f"--base {args.base}: not a Hugging Face checkpoint directory (no config.json)")
    if args.rank < 1:
        raise InputError("--rank must be positive")
    if args.subset is not None and args.subset < 1:
        raise InputError("--subset must be positive")
    if args.threads is not None:
        if args.threads < 1:
            raise InputError("--threads must be positive")
        import torch  # lazy: torch is the [train] extra

        torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    base_info = None
    if args.base is None:
        base_info = train.pretrain_base(out / "base", steps=args.base_steps, seed=args.seed, progress=not args.quiet)
        print(
            f"base LM: {base_info['parameters']:,} parameters, held-out loss "
            f"{base_info['val_loss_nats_per_char']} nats/char, {base_info['seconds']} s"
        )
    info = train.train_adapter(
        out,
        base_dir=args.base,
        adapter=AdapterConfig(rank=args.rank),
        lr=args.lr,
        max_steps=args.max_steps,
        stop_margin=args.stop_margin if args.stop_margin is not None else train.DEFAULT_STOP_MARGIN,
        seed=args.seed,
        subset=args.subset,
        progress=not args.quiet,
    )
    train.write_meta(out, base_info, info, base_source=str(args.base or "pretrained here (sketchpad.model.corpus)"))
    print(
        f"adapter: {info['steps']} steps, {info['wrong_at_stop']} wrong, min margin "
        f"{info['min_margin_at_stop']}, stop rule met: {info['stopped_by_rule']}, {info['seconds']} s"
    )
    print(f"trained in {time.perf_counter() - t0:.1f} s; wrote {out}")
    if args.no_certify:
        return 0
    return certify_model(out, "torch", out=out / "certificates" / "torch.json")
