"""`sketchpad certify`: check a model on every view of V and write its certificate, or
`sketchpad certify --verify CERT` to re-check one against the files it names."""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InputError


def register(sub):
    p = sub.add_parser("certify", help="run every view of V through a model and write a certificate")
    p.add_argument("--backend", default="torch",
                   help="how the model runs: torch, onnx (ONNX Runtime), or browser (the web page's suite in headless Chromium)")
    p.add_argument("--model", metavar="DIR", help="model directory (default: the shipped model)")
    p.add_argument("--gate", type=float, default=1.0, help="adapter gate to certify (default 1)")
    p.add_argument("--out", metavar="CERT.json",
                   help="where to write the certificate (default: DIR/certificates/BACKEND.json, "
                        "BACKEND-gateG.json for a gate other than 1)")
    p.add_argument("--batch-sizes", default=None, metavar="N,M",
                   help="the two batch sizes to run V at (default: all of V at once, and 1)")
    p.add_argument("--verify", metavar="CERT.json", help="re-check an existing certificate instead")
    p.add_argument("--rerun", action="store_true", help="with --verify: also run the views again")
    p.set_defaults(func=run)


def _batch_sizes(text):
    if text is None:
        return None
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise InputError(f"--batch-sizes must be integers separated by commas, not {text!r}") from None
    if not sizes or any(s < 1 for s in sizes):
        raise InputError("--batch-sizes must be positive")
    return sizes


def run(args) -> int:
    from certify.verify import verify_certificate
    from ..model.stepper import resolve_model_dir
    if args.verify:
        cert = Path(args.verify)
        if not cert.is_file():
            raise InputError(f"no certificate at {cert}")
        rep = verify_certificate(cert, model_dir=args.model, rerun=args.rerun)
        for p in rep.problems:
            print(f"FAIL  {p}")
        print(f"{'OK' if rep.ok else 'FAILED'}: {cert} ({rep.checked_files} files checked"
              f"{', views re-run' if args.rerun and rep.ok else ''})")
        return 0 if rep.ok else 1

    from certify.run import certify, write
    from ..model.stepper import certificate_path
    model_dir = resolve_model_dir(args.model)
    out = Path(args.out) if args.out else certificate_path(model_dir, args.backend, args.gate)
    if args.backend == "browser":
        # The page's own suite in headless Chromium (web/certify.js): what a user's browser runs.
        if args.gate != 1.0 or args.batch_sizes:
            raise InputError("--backend browser certifies the page's model at gate 1 with its own batch sizes")
        from certify.browser_backend import certify_in_browser
        stmt = certify_in_browser(model_dir)
    else:
        stmt = certify(model_dir, backend=args.backend, gate=args.gate,
                       batch_sizes=_batch_sizes(args.batch_sizes))
    write(stmt, out)
    res = stmt["predicate"]["result"]
    t = stmt["predicate"]["time"]["seconds_by_batch_size"]
    for f in res["failures"]:
        print(f"FAIL  {f['view']:<12} expected {f['expected']:<10} got {f['got']:<10} "
              f"margin {f['margin']:+.3f}  witness: {f['witness']}")
    print(f"{'PASSED' if res['passed'] else 'FAILED'}: {res['passed_views']}/{res['views']} views, "
          f"min margin {res['min_margin']:.3f} at {res['min_margin_view']}, "
          f"max logit diff between batch sizes {stmt['predicate']['batch_consistency']['max_abs_logit_diff']:.2e}, "
          f"seconds by batch size {t}; wrote {out}", file=sys.stdout)
    return 0 if res["passed"] else 1
