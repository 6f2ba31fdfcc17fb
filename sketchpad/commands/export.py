"""`sketchpad export --out DIR`: the gated model as ONNX, checked against PyTorch on all of V."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InputError
from ..extras import TRAIN, require_train


def register(sub):
    p = sub.add_parser("export", help="export the gated model to ONNX and check parity on every view")
    p.add_argument("--out", metavar="DIR", required=True, help="where model.onnx, model.json and parity.json go")
    p.add_argument("--model", metavar="DIR", help="model directory (default: the shipped model)")
    p.add_argument("--base", action="store_true", help="also write base.onnx (the adapter removed) for gate-0 checks")
    p.add_argument("--json", action="store_true", help="print the parity report as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    require_train("`sketchpad export`", TRAIN)
    import json

    from ..model import DEFAULT_MODEL_DIR

    model_dir = Path(args.model) if args.model else DEFAULT_MODEL_DIR
    if not (model_dir / "adapter").is_dir() or not (model_dir / "base").is_dir():
        raise InputError(f"{model_dir} is not a model directory (it needs base/ and adapter/)")
    from sketchpad.export import export_model

    result = export_model(model_dir, args.out, base=args.base, log=lambda m: print(m, file=sys.stderr))
    rep = result["parity"]
    if args.json:
        print(json.dumps({k: v for k, v in rep.items()}, indent=1))
    else:
        print(
            f"{Path(result['onnx'])}: {rep['identical_steps']}/{rep['views']} views give the same step as "
            f"PyTorch; largest logit difference {rep['max_abs_logit_diff']:.3g} (at {' '.join(rep['worst_view'])})"
        )
    if not rep["passed"]:
        for m in rep["mismatches"][:10]:
            print(f"  MISMATCH {' '.join(m['view'])}: torch {m['torch']} onnx {m['onnx']}", file=sys.stderr)
        return 1
    return 0
