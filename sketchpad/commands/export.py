"""`sketchpad export --out DIR`: the gated model as ONNX, checked against PyTorch on all of V;
`--dtype float16` and `--quantize int8` also write those variants beside DIR (DIR-float16,
DIR-int8), each a model of its own that needs its own certificate."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import InputError
from ..extras import TRAIN, require_train
from ..model import DEFAULT_MODEL_DIR


def register(sub):
    p = sub.add_parser("export", help="export the gated model to ONNX and check parity on every view")
    p.add_argument("--out", metavar="DIR", required=True, help="where model.onnx, model.json and parity.json go")
    p.add_argument("--model", metavar="DIR", help="model directory (default: the shipped model)")
    p.add_argument("--base", action="store_true", help="also write base.onnx (the adapter removed) for gate-0 checks")
    p.add_argument(
        "--dtype",
        choices=("float32", "float16"),
        default="float32",
        help="float16: also write a float16 variant beside DIR, in DIR-float16 (the float32 export is always "
        "written: the variants are made from it)",
    )
    p.add_argument(
        "--quantize",
        choices=("int8",),
        default=None,
        help="int8: also write an int8 variant in DIR-int8 (ONNX Runtime's static quantiser, activations "
        "calibrated on every view of V)",
    )
    p.add_argument(
        "--external-data",
        choices=("auto", "yes", "no"),
        default="auto",
        help="weights in model.onnx.data beside the graph: auto (above 1 GiB), yes or no",
    )
    p.add_argument(
        "--variants-only",
        action="store_true",
        help="make the --dtype/--quantize variants from the float32 export already in DIR, without PyTorch "
        "(each is compared with that export's logits)",
    )
    p.add_argument("--json", action="store_true", help="print the parity report as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    require_train("`sketchpad export`", TRAIN)

    variants = (("float16",) if args.dtype == "float16" else ()) + ((args.quantize,) if args.quantize else ())
    if args.variants_only:
        return _variants_only(Path(args.out), variants)
    model_dir = Path(args.model) if args.model else DEFAULT_MODEL_DIR
    if not (model_dir / "adapter").is_dir() or not (model_dir / "base").is_dir():
        raise InputError(f"{model_dir} is not a model directory (it needs base/ and adapter/)")
    from sketchpad.export import export_model  # lazy: the export package needs the [train] extra (torch, onnx)

    external = {"auto": None, "yes": True, "no": False}[args.external_data]
    result = export_model(
        model_dir,
        args.out,
        base=args.base,
        variants=variants,
        external=external,
        log=lambda m: print(m, file=sys.stderr, flush=True),
    )
    rep = result["parity"]
    if args.json:
        print(json.dumps({k: v for k, v in rep.items()}, indent=1))
    else:
        print(
            f"{Path(result['onnx'])}: {rep['identical_steps']}/{rep['views']} views give the same step as "
            f"PyTorch; largest logit difference {rep['max_abs_logit_diff']:.3g} (at {' '.join(rep['worst_view'])})"
        )
        _print_variants(result["variants"])
    if not rep["passed"]:
        for m in rep["mismatches"][:10]:
            print(f"  MISMATCH {' '.join(m['view'])}: torch {m['torch']} onnx {m['onnx']}", file=sys.stderr)
        return 1
    return 0


def _print_variants(variants: dict) -> None:
    for name, v in variants.items():
        r = v["parity"]
        print(
            f"{v['dir']}: {name} variant, {r['identical_steps']}/{r['views']} views give the step of {r['against']}; "
            f"largest logit difference {r['max_abs_logit_diff']:.3g}; certify it before use "
            f"(sketchpad certify --model {v['dir']})"
        )


def _variants_only(out: Path, variants: tuple) -> int:
    # lazy: the export package needs the [train] extra (torch, onnx)
    from sketchpad.export.pipeline import export_variants

    if not variants:
        raise InputError("--variants-only needs --dtype float16 and/or --quantize int8")
    if not (out / "model.json").is_file():
        raise InputError(f"{out} holds no export (model.json) to make variants from")
    try:
        result = export_variants(out, variants, log=lambda m: print(m, file=sys.stderr, flush=True))
    except ValueError as e:
        raise InputError(str(e)) from None
    _print_variants(result["variants"])
    return 0
