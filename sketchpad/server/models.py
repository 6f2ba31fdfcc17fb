"""The model the server serves, and the check on certificates uploaded to it.

A served model is a model directory with its ONNX export in onnx/ (model.onnx + model.json from
`sketchpad export`).  The page loads model.json, the graph it names and its own model code;
/api/model describes the model by exactly those files (sketchpad.model.onnx_stepper's
browser_manifest).  An uploaded certificate is a claim from the device that sent it: it is
checked against the one rule (sketchpad.certify.policy) for that browser load and refused
with a 4xx that says why when the rule does not hold.  Its environment is the sender's, which
the server cannot see: the page compares it with its own.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from .records import summary

KEY_FILE = "onnx/model.onnx"  # what identifies a served model in the certificate registry


class UnknownModel(InputError):
    """The certificate is well formed but is not about the model this server serves."""


class ServedModel:
    def __init__(self, model_dir: Path):
        self.model_dir = Path(model_dir)
        onnx = self.model_dir / "onnx"
        self.onnx_dir = onnx if (onnx / "model.json").is_file() else None
        self.meta = json.loads((onnx / "model.json").read_text()) if self.onnx_dir else None
        self._files = None

    @classmethod
    def find(cls, model_dir=None) -> ServedModel | None:
        if model_dir is None:
            from ..model import DEFAULT_MODEL_DIR

            if not (DEFAULT_MODEL_DIR / "adapter").is_dir():
                return None
            model_dir = DEFAULT_MODEL_DIR
        model_dir = Path(model_dir)
        if not model_dir.is_dir():
            raise InputError(f"no model directory at {model_dir}")
        return cls(model_dir)

    def files(self) -> dict[str, str]:
        """{subject name: sha256} of what the page loads for this model (computed once)."""
        if self._files is None:
            if self.onnx_dir is None:
                raise UnknownModel(f"the served model {self.model_dir} has no ONNX export, so no page runs it")
            from ..model.onnx_stepper import browser_manifest

            self._files = browser_manifest(self.model_dir).files
        return self._files

    def key(self) -> str:
        return self.files()[KEY_FILE]

    def certificates(self) -> dict:
        out = {}
        for p in sorted((self.model_dir / "certificates").glob("*.json")):
            try:
                out[p.stem] = json.loads(p.read_text())
            except ValueError:
                continue
        return out

    def describe(self, store) -> dict:
        d = self.files() if self.onnx_dir else {}
        return {
            "name": self.model_dir.name,
            "files": d,
            "key_digests": {KEY_FILE: d.get(KEY_FILE)},
            "onnx": None
            if not self.meta
            else {
                "url": "/model/model.json",
                "sha256": self.meta["onnx_sha256"],
                "bytes": self.meta["onnx_bytes"],
                "dtype": self.meta["dtype"],
                "opset": self.meta.get("opset"),
                "parity": self.meta["parity"],
            },
            "certificates": {k: summary(c) for k, c in self.certificates().items()},
            "recorded_certificates": recorded(store, d.get(KEY_FILE)) if d else [],
        }


def recorded(store, key: str) -> list[dict]:
    """Summaries of the uploads recorded for the model `key`: claims, with who sent them."""
    from .store import StoreUnavailable

    try:
        rows = store.list(50, model_sha256=key)["certificates"]
    except StoreUnavailable:
        return []
    return [
        dict(
            r["summary"],
            environment=r["device"],
            id=r["id"],
            received_at=r["received_at"],
            client=r["client"],
            device=r["device"],
        )
        for r in rows
    ]


def check_uploaded(cert, served: ServedModel | None) -> dict:
    """The rule on an uploaded browser certificate for `served`; returns what the store keeps."""
    from ..certify import policy

    if not isinstance(cert, dict):
        raise InputError("malformed certificate: not a JSON object")
    if served is None:
        raise UnknownModel("this server serves no model, so it records no certificates")
    verdict = policy.check(cert, policy.Expectation("browser", served.files(), 1.0, None))
    if not verdict.ok:
        unknown = {"subject-missing", "subject-digest"} & set(verdict.codes())
        cls = UnknownModel if unknown and len(verdict.codes()) == len(unknown) else InputError
        hint = (
            (" (the server records the page's certificates; a Python device keeps its own in its certificate cache)")
            if "backend" in verdict.codes()
            else ""
        )
        raise cls(f"the certificate does not hold for the served model: {verdict.summary()}{hint}")
    return {
        "model_sha256": served.key(),
        "backend": "browser",
        "passed": True,
        "environment": cert["predicate"].get("environment"),
    }
