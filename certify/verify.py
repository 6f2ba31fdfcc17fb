"""Re-check a certificate later: are the files it names still the files it checked?

Hash checks catch any changed weight, adapter, tokenizer, vocabulary or view-set file.  With
`rerun=True` the views are run again on the same backend and each view's step must match the
recorded one (and still pass), with every margin within `tolerance` of the recorded margin.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from . import statement


@dataclass
class Report:
    ok: bool = True
    problems: list = field(default_factory=list)
    gate: float = 1.0
    backend: str = ""
    checked_files: int = 0

    def fail(self, msg: str) -> None:
        self.ok = False
        self.problems.append(msg)


def _default_model_dir(cert_path: Path, pred: dict) -> Path:
    """certificates/<backend>.json inside a model dir, else the dir the certificate recorded."""
    if cert_path.parent.name == "certificates":
        return cert_path.parent.parent
    recorded = pred.get("model", {}).get("dir")
    if recorded:
        return Path(recorded)
    from sketchpad.model import DEFAULT_MODEL_DIR      # e.g. a certificate a browser produced
    return DEFAULT_MODEL_DIR


def verify_certificate(cert_path: Path, model_dir: Path | None = None, rerun: bool = False,
                       tolerance: float = 1e-3) -> Report:
    from .run import PREDICATE_TYPE
    cert_path = Path(cert_path)
    rep = Report()
    try:
        stmt = json.loads(cert_path.read_text())
    except (OSError, ValueError) as e:
        rep.fail(f"cannot read certificate {cert_path}: {e}")
        return rep
    if stmt.get("_type") != statement.STATEMENT_TYPE or stmt.get("predicateType") != PREDICATE_TYPE:
        rep.fail("not a sketchpad certificate (wrong _type or predicateType)")
        return rep
    pred = stmt.get("predicate", {})
    rep.gate = float(pred.get("adapter", {}).get("gate", 1.0))
    rep.backend = pred.get("backend", {}).get("name", "")
    model_dir = Path(model_dir) if model_dir else _default_model_dir(cert_path, pred)
    for s in stmt.get("subject", []):
        path = statement.resolve(s["name"], model_dir)
        if not path.is_file():
            rep.fail(f"{s['name']}: file missing ({path})")
            continue
        got = statement.sha256_file(path)
        rep.checked_files += 1
        if got != s["digest"]["sha256"]:
            rep.fail(f"{s['name']}: sha256 {got[:12]}... does not match the certificate's "
                     f"{s['digest']['sha256'][:12]}...")
    result = pred.get("result", {})
    if not result.get("passed"):
        rep.fail(f"the certificate records {result.get('failed_views')} failing views")
    if rerun and rep.ok:
        _rerun(pred, model_dir, rep, tolerance)
    return rep


def _rerun(pred: dict, model_dir: Path, rep: Report, tolerance: float) -> None:
    from .run import certify
    again = certify(model_dir, backend=rep.backend, gate=rep.gate,
                    batch_sizes=tuple(pred.get("batch_sizes") or ()) or None)["predicate"]
    old = {r["view"]: r for r in pred.get("per_view", [])}
    for r in again["per_view"]:
        o = old.get(r["view"])
        if o is None:
            rep.fail(f"view {r['view']} was not in the certificate")
        elif not r["pass"] or r["got"] != o["got"]:
            rep.fail(f"view {r['view']}: now gives {r['got']} (pass={r['pass']}), certificate says {o['got']}")
        elif abs(r["margin"] - o["margin"]) > tolerance:
            rep.fail(f"view {r['view']}: margin {r['margin']} differs from recorded {o['margin']} by more than {tolerance}")
    if len(again["per_view"]) != len(old):
        rep.fail(f"re-run checked {len(again['per_view'])} views, certificate has {len(old)}")
