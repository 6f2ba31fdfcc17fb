"""`sketchpad baseline train|evaluate`: the no-sheet baseline (same backbone, same budget,
the whole problem in and the answer digits out) against Sketchpad, by operand length."""

from __future__ import annotations

import json
from pathlib import Path

from ..baseline import DEFAULT_BASELINE_DIR
from ..errors import InputError
from ..extras import require_train


def register(sub):
    p = sub.add_parser("baseline", help="train / evaluate the no-sheet baseline against Sketchpad")
    bs = p.add_subparsers(dest="baseline_command", required=True)

    t = bs.add_parser("train", help="train the baseline from scratch on the default model's budget")
    t.add_argument("--out", metavar="DIR", help="where to save it (default: sketchpad/data/baseline)")
    t.add_argument("--tokens", type=int, help="budget in token positions (default: the default model's)")
    t.add_argument(
        "--max-seconds",
        type=float,
        default=300.0,
        help="wall-clock cap; training stops at whichever comes first (default 300)",
    )
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument(
        "--operands-as-written",
        action="store_true",
        help="write operands most-significant digit first (default: reversed, like the answer)",
    )
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--add-max", type=int, default=30, help="longest addition operand trained on")
    t.add_argument("--mul-max", type=int, default=12, help="longest multiplication operand trained on")
    t.set_defaults(func=run_train)

    e = bs.add_parser("evaluate", help="exact match by operand length, baseline and Sketchpad")
    e.add_argument("--model", metavar="DIR", help="baseline directory (default: sketchpad/data/baseline)")
    e.add_argument("--per-length", type=int, default=50, help="problems per operation and length")
    e.add_argument("--add-max", type=int, default=30)
    e.add_argument("--mul-max", type=int, default=12)
    e.add_argument("--seed", type=int, default=20261129)
    e.add_argument("--no-sketchpad", action="store_true", help="evaluate the baseline only")
    e.add_argument("--json", default="benchmarks/results/baseline.json")
    e.add_argument("--md", default="benchmarks/results/baseline.md")
    e.add_argument("--png", default="docs/baseline-accuracy.png")
    e.set_defaults(func=run_evaluate)


def _positive(name, v):
    if v is not None and v < 1:
        raise InputError(f"{name} must be at least 1 (got {v})")


def run_train(args) -> int:
    require_train("`sketchpad baseline train`")

    # lazy: the baseline trainer imports torch, the [train] extra
    from ..baseline.train import default_model_budget, train

    for name in ("tokens", "batch", "add_max", "mul_max"):
        _positive("--" + name.replace("_", "-"), getattr(args, name))
    budget = default_model_budget()
    tokens = args.tokens or budget["tokens"]
    out = Path(args.out) if args.out else DEFAULT_BASELINE_DIR
    print(f"budget: {tokens:,} token positions ({budget['source']}); cap {args.max_seconds:.0f} s")
    _, _, info = train(
        out,
        tokens,
        add_max=args.add_max,
        mul_max=args.mul_max,
        batch=args.batch,
        lr=args.lr,
        seed=args.seed,
        max_seconds=args.max_seconds,
        reverse_operands=not args.operands_as_written,
    )
    info["default_model_budget"] = budget
    (out / "baseline_meta.json").write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps(info, indent=1))
    print(f"saved to {out}")
    return 0


def run_evaluate(args) -> int:
    require_train("`sketchpad baseline evaluate`")

    # lazy: the evaluator imports torch (the [train] extra) and tqdm
    from ..baseline.evaluate import evaluate, markdown, write_outputs
    from ..baseline.model import CharCodec, load  # lazy: the baseline model imports torch, the [train] extra
    from ..baseline.train import default_model_budget  # lazy: the baseline trainer imports torch, the [train] extra

    for name in ("per_length", "add_max", "mul_max"):
        _positive("--" + name.replace("_", "-"), getattr(args, name))
    d = Path(args.model) if args.model else DEFAULT_BASELINE_DIR
    if not (d / "baseline_meta.json").is_file():
        raise InputError(f"no trained baseline in {d} (run `sketchpad baseline train` first)")
    model, tok = load(d)
    info = json.loads((d / "baseline_meta.json").read_text())
    budget = info.get("default_model_budget") or default_model_budget()
    result = evaluate(
        model,
        CharCodec(tok),
        info,
        budget,
        range(1, args.add_max + 1),
        range(1, args.mul_max + 1),
        args.per_length,
        args.seed,
        with_sketchpad=not args.no_sketchpad,
    )
    write_outputs(result, Path(args.json), Path(args.md), Path(args.png))
    print(markdown(result))
    print(f"wrote {args.json}, {args.md}, {args.png}")
    return 0
