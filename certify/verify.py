"""`sketchpad certify --verify CERT [--rerun]`: is a certificate file consistent with a model as
its loader loads it, on this device?  And, with `rerun`, does this device's own suite prove it?

A certificate from a file - shipped in a model directory, kept on a server, downloaded - is a
*claim*: anyone can write one.  The rule (policy.py) re-derives everything it can (the digests
of what the loader loads, the graph's row independence, V, the margin rule's arithmetic over
the rows, the environment); what it cannot re-derive without running the model (the logits,
the drift) it can only take on trust.  So the answer is "claim: consistent" or "claim:
inconsistent (reason)", never "proof".  `rerun` turns the claim into proof: this device runs
the suite itself (the same suite as a first solve), the rule must hold for that run, and every
view's step must equal the step the claim recorded.  The proof is cached like any
self-certification.

A browser certificate is checked against what the page loads (model.json, the graph, its
external data, the page's model code, V); its environment is the browser's, which only the page
can see, so it is not compared here, and its proof is `sketchpad certify --backend browser`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import strictjson
from ..errors import InputError
from ..model.loading import load_stepper, resolve_model_dir
from . import cache, policy
from .rows import NotRowIndependent, check_export


@dataclass
class Report:
    verdict: policy.Verdict  # the claim against the rule
    backend: str
    files_checked: int
    notes: list = field(default_factory=list)
    proof: policy.Verdict | None = None  # with rerun: this device's own run
    proof_line: str = ""

    @property
    def consistent(self) -> bool:
        return self.verdict.ok

    @property
    def ok(self) -> bool:
        return self.verdict.ok and (self.proof is None or self.proof.ok)


def read(cert_path) -> dict:
    try:
        return strictjson.loads(Path(cert_path).read_text())
    except OSError as e:
        raise InputError(f"cannot read certificate {cert_path}: {e.strerror}") from None
    except ValueError as e:
        raise InputError(f"{cert_path} is not a JSON certificate: {e}") from None


def model_dir_for(cert_path: Path, model_dir=None) -> Path:
    """--model, else the model whose certificates/ folder holds the file, else the shipped model."""
    if model_dir:
        return resolve_model_dir(model_dir)
    cert_path = Path(cert_path)
    if cert_path.parent.name == "certificates":
        return cert_path.parent.parent
    return resolve_model_dir(None)


def browser_expectation(model_dir, gate: float) -> policy.Expectation:
    """What the page loads for a model, with the verifier's own verdict on its graph."""
    # lazy: onnx_stepper loads onnxruntime; the verifier reads files without it
    from ..model.onnx_stepper import BROWSER_CODE, find_onnx_dir, read_export

    manifest, meta, graph, _ = read_export(find_onnx_dir(model_dir), BROWSER_CODE)
    return policy.Expectation("browser", manifest.files, gate, None, check_export(graph, meta).as_dict())


def verify(cert_path, model_dir=None, backend: str | None = None, rerun: bool = False) -> Report:
    cert = read(cert_path)
    d = model_dir_for(cert_path, model_dir)
    claimed = policy._get(cert, "predicate", "backend", "name")
    backend = backend or (claimed if claimed in ("torch", "onnx", "browser") else "onnx")
    gate = policy._get(cert, "predicate", "adapter", "gate")
    gate = float(gate) if policy._finite(gate) else 1.0
    notes = []
    if backend == "browser":
        expect = browser_expectation(d, gate)
        notes.append("environment not compared: a browser certificate is checked against its browser by the page")
        stepper = None
    else:
        stepper = load_stepper(d, backend, gate)
        expect = policy.expect_from(stepper)
    report = Report(policy.check(cert, expect), backend, len(expect.required_files()), notes)
    if rerun and stepper is not None:
        _rerun(cert, stepper, expect, report)
    elif rerun:
        notes.append("--rerun: a browser certificate is proved in the page (sketchpad certify --backend browser)")
    return report


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _rerun(cert: dict, stepper, expect: policy.Expectation, report: Report) -> None:
    """This device's own suite: the proof, and whether the claim's steps agree with it."""
    from .run import certify  # lazy: the suite runner loads numpy and tqdm; only --rerun runs it

    try:
        mine = certify(stepper, seed=cache.suite_seed(), resume=True, announce=_stderr)
    except NotRowIndependent as e:
        report.proof = policy.Verdict()
        report.proof.fail("rows", str(e))
        report.proof_line = f"proof: refused ({e})"
        return
    proof = policy.check(mine, expect)
    claimed = {r.get("view"): r for r in policy._get(cert, "predicate", "per_view") or [] if isinstance(r, dict)}
    disagree = [r for r in mine["predicate"]["per_view"] if claimed.get(r["view"], {}).get("got") != r["got"]]
    if disagree:
        r = disagree[0]
        report.verdict.fail(
            "rerun",
            f"{len(disagree)} views disagree with this device's run (first: {r['view']} gives {r['got']} here, "
            f"the claim says {claimed.get(r['view'], {}).get('got')})",
        )
    res = mine["predicate"]["result"]
    where = cache.store(expect, mine) if proof.ok else None
    report.proof = proof
    report.proof_line = (
        f"proof: this device ran the suite: {res['passed_views']}/{res['views']} views in "
        f"{mine['predicate']['suite']['runs']} batch compositions, smallest margin {res['min_margin']:.3f}, drift "
        f"{mine['predicate']['drift']['max_abs_logit_diff']:.2e}: "
        + ("the rule holds" + (f"; cached in {where}" if where else "") if proof.ok else f"FAILED ({proof.summary()})")
    )
