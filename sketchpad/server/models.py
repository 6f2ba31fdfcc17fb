"""The model the server serves, and the checks on certificates uploaded to it.

A served model is a model directory (sketchpad/model's layout) with its ONNX export in
onnx/ (model.onnx + model.json from `sketchpad export`).  /api/model describes it by file
hashes and lists its committed certificates; an uploaded certificate must be well formed and
must name this model, or it is refused with a 4xx and a message that says why.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError


class UnknownModel(InputError):
    """The certificate is well formed but names a model this server does not serve."""


class ServedModel:
    def __init__(self, model_dir: Path):
        self.model_dir = Path(model_dir)
        onnx = self.model_dir / "onnx"
        self.onnx_dir = onnx if (onnx / "model.json").is_file() else None
        self.meta = json.loads((onnx / "model.json").read_text()) if self.onnx_dir else None

    @classmethod
    def find(cls, model_dir=None) -> "ServedModel | None":
        if model_dir is None:
            from ..model import DEFAULT_MODEL_DIR
            model_dir = DEFAULT_MODEL_DIR
            if not model_dir.is_dir():
                return None
        model_dir = Path(model_dir)
        if not model_dir.is_dir():
            raise InputError(f"no model directory at {model_dir}")
        return cls(model_dir)

    def certificates(self) -> dict:
        out = {}
        for p in sorted((self.model_dir / "certificates").glob("*.json")):
            try:
                out[p.stem] = json.loads(p.read_text())
            except ValueError:
                continue
        return out

    def known_digests(self) -> set[str]:
        from certify.schema import model_digests
        return model_digests(self.model_dir)

    def describe(self, store) -> dict:
        from certify.schema import summary
        return {"name": self.model_dir.name, "digests": sorted(self.known_digests()),
                "onnx": None if not self.meta else {
                    "url": "/model/model.json", "sha256": self.meta["onnx_sha256"], "bytes": self.meta["onnx_bytes"],
                    "dtype": self.meta["dtype"], "parity": self.meta["parity"]},
                "certificates": {k: summary(c) for k, c in self.certificates().items()},
                "recorded_certificates": [
                    {"id": r["id"], "backend": r["backend"], "passed": r["passed"], "received_at": r["received_at"],
                     "device": summary(r["certificate"]).get("device")}
                    for r in store.list(50) if r["model_sha256"] in self.known_digests()]}


def check_uploaded(cert, served: ServedModel | None) -> dict:
    """Validate an uploaded certificate; returns {model_sha256, backend, passed}."""
    from certify.schema import validate
    if not isinstance(cert, dict):
        raise InputError("a certificate must be a JSON object")
    try:
        info = validate(cert)
    except ValueError as e:
        raise InputError(f"malformed certificate: {e}") from None
    if served is None or info["model_sha256"] not in served.known_digests():
        raise UnknownModel(f"the certificate names model {info['model_sha256'][:16]}…, which this server does not serve")
    return info
