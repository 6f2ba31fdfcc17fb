"""The model the server serves, and the checks on certificates uploaded to it.

A served model is a model directory (sketchpad/model's layout) with its ONNX export in onnx/
(model.onnx + model.json from `sketchpad export`).  /api/model describes it by the sha256 of
every file that fixes a step and lists its committed certificates.  An uploaded certificate
must be an in-toto Statement in certify/'s schema, internally consistent, for the current view
set, and about this model: every subject it names that this server holds must have the same
sha256 here.  Otherwise it is refused with a 4xx that says why.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import InputError

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
KEY_FILES = ("onnx/model.onnx", "adapter/adapter_model.safetensors")   # what identifies a model


class UnknownModel(InputError):
    """The certificate is well formed but names a model this server does not serve."""


class ServedModel:
    def __init__(self, model_dir: Path):
        self.model_dir = Path(model_dir)
        onnx = self.model_dir / "onnx"
        self.onnx_dir = onnx if (onnx / "model.json").is_file() else None
        self.meta = json.loads((onnx / "model.json").read_text()) if self.onnx_dir else None
        self._digests = None

    @classmethod
    def find(cls, model_dir=None) -> "ServedModel | None":
        if model_dir is None:
            from ..model import DEFAULT_MODEL_DIR
            if not (DEFAULT_MODEL_DIR / "adapter").is_dir():
                return None
            model_dir = DEFAULT_MODEL_DIR
        model_dir = Path(model_dir)
        if not model_dir.is_dir():
            raise InputError(f"no model directory at {model_dir}")
        return cls(model_dir)

    def digests(self) -> dict[str, str]:
        """{subject name: sha256} for every file that fixes a step (computed once)."""
        if self._digests is None:
            from certify.statement import subjects
            extra = [self.onnx_dir / "model.onnx", self.onnx_dir / "model.json"] if self.onnx_dir else []
            self._digests = {s["name"]: s["digest"]["sha256"] for s in subjects(self.model_dir, extra)}
        return self._digests

    def certificates(self) -> dict:
        out = {}
        for p in sorted((self.model_dir / "certificates").glob("*.json")):
            try:
                out[p.stem] = json.loads(p.read_text())
            except ValueError:
                continue
        return out

    def describe(self, store) -> dict:
        d = self.digests()
        key = {n: d[n] for n in KEY_FILES if n in d}
        return {"name": self.model_dir.name, "files": d, "key_digests": key,
                "onnx": None if not self.meta else {
                    "url": "/model/model.json", "sha256": self.meta["onnx_sha256"], "bytes": self.meta["onnx_bytes"],
                    "dtype": self.meta["dtype"], "opset": self.meta.get("opset"), "parity": self.meta["parity"]},
                "certificates": {k: summary(c) for k, c in self.certificates().items()},
                "recorded_certificates": [dict(summary(r["certificate"]), id=r["id"], received_at=r["received_at"])
                                          for r in store.list(50) if r["model_sha256"] in key.values()]}


def summary(cert: dict) -> dict:
    p = cert.get("predicate", {})
    r = p.get("result", {})
    return {"backend": p.get("backend", {}).get("name"), "device": p.get("backend", {}).get("device"),
            "passed": r.get("passed"), "views": r.get("views"), "passed_views": r.get("passed_views"),
            "min_margin": r.get("min_margin"), "min_margin_view": r.get("min_margin_view"),
            "gate": p.get("adapter", {}).get("gate"), "finished": p.get("time", {}).get("finished")}


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise ValueError(what)


def validate(cert) -> dict:
    """Schema and consistency of a certificate (ValueError says what is wrong)."""
    from certify.run import PREDICATE_TYPE
    from certify.statement import STATEMENT_TYPE
    _need(isinstance(cert, dict), "not a JSON object")
    _need(cert.get("_type") == STATEMENT_TYPE, f"_type must be {STATEMENT_TYPE}")
    _need(cert.get("predicateType") == PREDICATE_TYPE, f"predicateType must be {PREDICATE_TYPE}")
    subj = cert.get("subject")
    _need(isinstance(subj, list) and subj, "subject must be a non-empty list")
    for s in subj:
        _need(isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("digest"), dict)
              and isinstance(s["digest"].get("sha256"), str) and _HEX64.match(s["digest"]["sha256"]),
              "every subject needs a name and a hex sha256 digest")
    p = cert.get("predicate")
    _need(isinstance(p, dict), "predicate must be an object")
    backend = p.get("backend")
    _need(isinstance(backend, dict) and isinstance(backend.get("name"), str), "predicate.backend.name is missing")
    r = p.get("result")
    _need(isinstance(r, dict), "predicate.result is missing")
    for k in ("views", "passed_views", "failed_views"):
        _need(isinstance(r.get(k), int) and not isinstance(r.get(k), bool) and r[k] >= 0, f"result.{k} must be a count")
    _need(isinstance(r.get("passed"), bool), "result.passed must be true or false")
    _need(r["passed_views"] + r["failed_views"] == r["views"], "result counts do not add up")
    _need(r["passed"] == (r["failed_views"] == 0 and r["views"] > 0), "result.passed contradicts the counts")
    per_view = p.get("per_view")
    _need(isinstance(per_view, list) and len(per_view) == r["views"], "per_view must list every view")
    _need(all(isinstance(x, dict) and isinstance(x.get("pass"), bool) for x in per_view), "per_view rows need pass")
    _need(sum(x["pass"] for x in per_view) == r["passed_views"], "per_view passes contradict result.passed_views")
    vs = p.get("view_set")
    _need(isinstance(vs, dict) and vs.get("count") == r["views"], "view_set.count must equal result.views")
    names = {s["name"]: s["digest"]["sha256"] for s in subj}
    _need(names.get("sketchpad/data/views.jsonl") == vs.get("sha256"), "the view-set subject and view_set.sha256 differ")
    key = next((names[n] for n in KEY_FILES if n in names), None)
    _need(key is not None, f"no subject names the model ({' or '.join(KEY_FILES)})")
    return {"model_sha256": key, "backend": backend["name"], "passed": r["passed"], "subjects": names}


def check_uploaded(cert, served: ServedModel | None) -> dict:
    """Validate an uploaded certificate for `served`; returns {model_sha256, backend, passed}."""
    from ..views import file_sha256
    try:
        info = validate(cert)
    except ValueError as e:
        raise InputError(f"malformed certificate: {e}") from None
    if info["subjects"]["sketchpad/data/views.jsonl"] != file_sha256():
        raise InputError("the certificate is for another view set than this server's")
    if served is None:
        raise UnknownModel("this server serves no model, so it records no certificates")
    ours = served.digests()
    differ = [n for n, d in info["subjects"].items() if n in ours and ours[n] != d]
    if differ or not any(n in ours for n in KEY_FILES if n in info["subjects"]):
        raise UnknownModel(f"the certificate names a model this server does not serve "
                           f"({', '.join(differ[:3]) or 'no matching model file'} differ)")
    return {k: info[k] for k in ("model_sha256", "backend", "passed")}
