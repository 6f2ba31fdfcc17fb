"""`sketchpad certify`: run every view of V through a model on this device and write its
certificate; `sketchpad certify --verify CERT` checks an existing one against the rule."""

from __future__ import annotations

import sys
from pathlib import Path

from ..certify import policy
from ..certify.certified import certify_and_cache, write
from ..errors import InputError
from ..model.loading import load_stepper, resolve_model_dir


def register(sub):
    p = sub.add_parser("certify", help="run every view of V through a model here and write a certificate")
    p.add_argument(
        "--backend",
        choices=("onnx", "torch", "browser"),
        default=None,
        help="how the model runs: onnx (ONNX Runtime; the default when the model has an export), "
        "torch (PyTorch), or browser (the web page's own suite in headless Chromium)",
    )
    p.add_argument("--model", metavar="DIR", help="model directory (default: the shipped model)")
    p.add_argument("--gate", type=float, default=1.0, help="adapter gate to certify (default 1)")
    p.add_argument(
        "--out",
        metavar="CERT.json",
        help="write the certificate here too.  With --backend onnx or torch it also goes to this device's "
        "certificate cache when it holds (where solve, poly, bench and serve look for it); a --backend "
        "browser certificate is never cached (it is the browser's, not this Python's): only --out keeps it",
    )
    p.add_argument(
        "--batch-sizes",
        default=None,
        metavar="N,M",
        help="run V in order at exactly these batch sizes instead of the suite's compositions "
        "(all of V, one view per pass, shuffled batches of 1-512 from this device's seed); "
        "such a run is not cached as this device's proof",
    )
    p.add_argument("--verify", metavar="CERT.json", help="check an existing certificate against the rule instead")
    p.add_argument(
        "--rerun",
        action="store_true",
        help="with --verify: run the suite on this device, which turns the claim into proof (or refutes it)",
    )
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


def verify(args) -> int:
    """A certificate file is a claim: "claim: consistent" or "claim: inconsistent (reason)";
    with --rerun this device's own run says "proof: ...".  Exit 0 only when the claim is
    consistent (and, with --rerun, proved here)."""
    from ..certify.verify import verify  # lazy: cold path, the verifier loads only for --verify

    rep = verify(args.verify, model_dir=args.model, backend=args.backend, rerun=args.rerun)
    if rep.consistent:
        print(
            f"claim: consistent ({args.verify} holds for the {rep.backend} model under the rule, "
            f"{rep.files_checked} files checked against what the loader loads; it is a claim until this "
            f"device runs the suite{'' if args.rerun else ': --rerun'})"
        )
    else:
        print(f"claim: inconsistent ({rep.verdict.summary(limit=2)})")
        for code, message in rep.verdict.reasons:
            print(f"  [{code}] {message}")
    for note in rep.notes:
        print(f"note  {note}")
    if rep.proof_line:
        print(rep.proof_line)
    return 0 if rep.ok else 1


def run(args) -> int:
    if args.verify:
        return verify(args)
    sizes = _batch_sizes(args.batch_sizes)
    model_dir = resolve_model_dir(args.model)
    if args.backend == "browser":
        return _browser(args, model_dir, sizes)
    return certify_model(model_dir, args.backend, args.gate, sizes, args.out)


def certify_model(model_dir, backend, gate: float = 1.0, batch_sizes=None, out=None) -> int:
    """Certify the model in `model_dir` here (cached when it holds), report; `certify` and
    `train` both end here."""
    stepper = load_stepper(model_dir, backend, gate)
    cert, verdict, where = certify_and_cache(stepper, batch_sizes, out, resume=True, announce=_stderr)
    return report(cert, verdict, [str(p) for p in where])


def _browser(args, model_dir: Path, sizes) -> int:
    if args.gate != 1.0 or sizes:
        raise InputError("--backend browser certifies the page's model at gate 1 with its own batch sizes")
    # lazy: the browser backend (asyncio, the page server) loads only for --backend browser
    from ..certify.browser_backend import certify_in_browser

    # lazy: the browser backend (asyncio, the page server) loads only for --backend browser
    from ..certify.rows import NotRowIndependent

    # lazy: the browser backend (asyncio, the page server) loads only for --backend browser
    from ..certify.verify import browser_expectation

    # lazy: the browser backend (asyncio, the page server) loads only for --backend browser
    from ..server.live import page_server

    # lazy: the server's models load SQLAlchemy; only --backend browser needs them
    from ..server.models import VARIANT_DIR

    expect = browser_expectation(model_dir, 1.0)  # refuses a model with no export, before Chromium starts
    if not expect.rows["ok"]:
        raise NotRowIndependent(f"the graph is not shown to be row-independent: {expect.rows['message']}")
    # --model M/onnx-int8: the page of M, running its int8 variant
    variant = VARIANT_DIR.fullmatch(model_dir.name) if (model_dir / "model.json").is_file() else None
    served, name = (model_dir.parent, variant.group(1)) if variant else (model_dir, "float32")
    with page_server(served) as url:
        cert = certify_in_browser(url, variant=name)
    verdict = policy.check(cert, expect)
    return report(cert, verdict, [str(write(cert, args.out))] if args.out else [])


SHOW_FAILURES = 10  # failing views printed; all of them are in the certificate


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def report(cert: dict, verdict, where: list) -> int:
    p = cert["predicate"]
    res = p["result"]
    for f in res["failures"][:SHOW_FAILURES]:
        print(
            f"FAIL  {f['view']:<12} expected {f['expected']:<10} got {f['got']:<10} "
            f"margin {f['margin']:+.3f}  witness: {f['witness']}"
        )
    if len(res["failures"]) > SHOW_FAILURES:
        print(
            f"FAIL  ... and {len(res['failures']) - SHOW_FAILURES:,} more failing views "
            f"(every one is in the certificate{': --out FILE writes it' if not where else ''})"
        )
    for code, message in verdict.reasons:
        if code != "failed-views":
            print(f"FAIL  [{code}] {message}")
    rule = p["margin_rule"]
    margin = f"{res['min_margin']:.3f}" if res["min_margin"] is not None else "n/a"
    print(
        _headline(verdict.ok, res["passed_views"], res["views"]) + ", smallest margin "
        f"{margin} at {res['min_margin_view']} (rule: > {rule['factor']:g} x drift {rule['drift']:.2e} + "
        f"{rule['floor']:g} = {rule['required']:.3f}), {p['backend']['name']} on "
        f"{p['environment'].get('device', {}).get('name') or p['environment'].get('execution_provider')}, "
        f"seconds by run {p['time']['seconds_by_run']}" + (f"; wrote {', '.join(where)}" if where else "")
    )
    return 0 if verdict.ok else 1


def _headline(ok: bool, passed: int, views: int) -> str:
    # A failure leads with the views that fail: "FAILED: 10/1436 views" read as ten failures.
    if ok:
        return f"PASSED: {passed}/{views} views pass"
    return f"FAILED: {views - passed} of {views} views fail ({passed} pass)"
