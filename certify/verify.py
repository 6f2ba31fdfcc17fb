"""`sketchpad certify --verify CERT`: does a certificate hold for a model, as its loader loads
it, on this device?  The rule (policy.py) decides; with `rerun` the views also run again and
each must give the step the certificate recorded.

A browser certificate is checked against what the page loads (model.json, the graph, the
page's model code, V); its environment is the browser's, which only the page can see, so it
is not compared here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import strictjson
from ..errors import InputError
from ..model.loading import load_stepper, resolve_model_dir
from . import policy


@dataclass
class Report:
    verdict: policy.Verdict
    backend: str
    files_checked: int
    notes: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.verdict.ok


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


def verify(cert_path, model_dir=None, backend: str | None = None, rerun: bool = False) -> Report:
    cert = read(cert_path)
    d = model_dir_for(cert_path, model_dir)
    claimed = policy._get(cert, "predicate", "backend", "name")
    backend = backend or (claimed if claimed in ("torch", "onnx", "browser") else "onnx")
    gate = policy._get(cert, "predicate", "adapter", "gate")
    gate = float(gate) if policy._finite(gate) else 1.0
    notes = []
    if backend == "browser":
        from ..model.onnx_stepper import browser_manifest

        expect = policy.Expectation("browser", browser_manifest(d).files, gate, None)
        notes.append("environment not compared: a browser certificate is checked against its browser by the page")
        stepper = None
    else:
        stepper = load_stepper(d, backend, gate)
        expect = policy.expect_from(stepper)
    verdict = policy.check(cert, expect)
    if rerun and verdict.ok and stepper is not None:
        _rerun(cert, stepper, verdict)
    elif rerun and backend == "browser":
        notes.append("--rerun: a browser certificate re-runs in the page (sketchpad certify --backend browser)")
    return Report(verdict, backend, len(expect.required_files()), notes)


def _rerun(cert: dict, stepper, verdict: policy.Verdict) -> None:
    from .run import certify

    again = certify(stepper)["predicate"]["per_view"]
    old = {r.get("view"): r for r in cert["predicate"]["per_view"]}
    for r in again:
        o = old.get(r["view"], {})
        if not r["pass"] or r["got"] != o.get("got"):
            verdict.fail(
                "rerun",
                f"view {r['view']} now gives {r['got']} (pass={r['pass']}), the certificate says {o.get('got')}",
            )
