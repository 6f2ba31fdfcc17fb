"""The model the server serves, and the check on certificates uploaded to it.

A served model is a model directory with its ONNX export in onnx/ (model.onnx + model.json from
`sketchpad export`).  The page loads model.json, the graph it names (and its external data) and
its own model code; /api/model describes the model by exactly those files (sketchpad.certify.
verify's browser_expectation), with the server's own row-independence verdict on the graph.
Certificates are claims here, all of them: those the model ships in certificates/ (made on the
machines that made them) and those browsers uploaded.  An upload is checked against the one
rule (sketchpad.certify.policy) for that browser load, the graph's verdict included, and
refused with a 4xx that says why when the rule does not hold.  Its environment is the
sender's, which the server cannot see: the page compares it with its own, and still runs the
suite itself before it trusts the model.

Variants of the export (`sketchpad export --dtype float16 --quantize int8`: onnx-float16/ and
onnx-int8/ beside onnx/) are served too, at /model-float16/ and /model-int8/, and listed in
/api/model with their sizes: the page runs the smallest whose certificate holds on its device.
Each is a model of its own: an upload is checked against the variant whose files it names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..certify import policy
from ..certify.verify import browser_expectation
from ..errors import InputError
from ..model import DEFAULT_MODEL_DIR
from .records import nested, summary
from .store import StoreUnavailable

KEY_FILE = "onnx/model.onnx"  # what identifies a served model in the certificate registry
VARIANT_DIR = re.compile(r"onnx-([a-z0-9]+)")  # onnx-float16, onnx-int8 (export/variants.py)


def export_bytes(onnx_dir: Path, meta: dict) -> int:
    """What the page downloads for an export: its graph and the external data model.json names."""
    ext = meta.get("external_data") if isinstance(meta.get("external_data"), dict) else {}
    return int(meta.get("onnx_bytes") or 0) + sum(int(e.get("bytes") or 0) for e in ext.values() if isinstance(e, dict))


class UnknownModel(InputError):
    """The certificate is well formed but is not about the model this server serves."""


class ServedModel:
    def __init__(self, model_dir: Path):
        self.model_dir = Path(model_dir)
        onnx = self.model_dir / "onnx"
        self.onnx_dir = onnx if (onnx / "model.json").is_file() else None
        self.meta = json.loads((onnx / "model.json").read_text()) if self.onnx_dir else None
        self._expect = None
        self._variant_expect: dict[str, object] = {}

    def variants(self) -> list[dict]:
        """[{name, dir, url, meta}]: the float32 export first, then the variants beside it."""
        if self.onnx_dir is None:
            return []
        out = [{"name": "float32", "dir": self.onnx_dir, "url": "/model/model.json", "meta": self.meta}]
        for d in sorted(self.model_dir.glob("onnx-*")):
            m = VARIANT_DIR.fullmatch(d.name)
            if m and (d / "model.json").is_file() and m.group(1) != "float32":
                try:
                    meta = json.loads((d / "model.json").read_text())
                except ValueError:
                    continue
                out.append({"name": m.group(1), "dir": d, "url": f"/model-{m.group(1)}/model.json", "meta": meta})
        return out

    def variant_expectation(self, name: str):
        """What a browser certificate for variant `name` must cover (computed once)."""
        if name == "float32":
            return self.expectation()
        if name not in self._variant_expect:
            d = next(v["dir"] for v in self.variants() if v["name"] == name)
            self._variant_expect[name] = browser_expectation(d, 1.0)
        return self._variant_expect[name]

    @classmethod
    def find(cls, model_dir=None) -> ServedModel | None:
        if model_dir is None:
            if not (DEFAULT_MODEL_DIR / "adapter").is_dir():
                return None
            model_dir = DEFAULT_MODEL_DIR
        model_dir = Path(model_dir)
        if not model_dir.is_dir():
            raise InputError(f"no model directory at {model_dir}")
        return cls(model_dir)

    def expectation(self):
        """What a browser certificate for this model must cover (computed once): the files the
        page loads and the server's own row-independence verdict on the graph."""
        if self._expect is None:
            if self.onnx_dir is None:
                raise UnknownModel(f"the served model {self.model_dir} has no ONNX export, so no page runs it")

            self._expect = browser_expectation(self.model_dir, 1.0)
        return self._expect

    def files(self) -> dict[str, str]:
        """{subject name: sha256} of what the page loads for this model."""
        return self.expectation().files

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
            "row_independence": self.expectation().rows if self.onnx_dir else None,
            "variants": [
                {
                    "name": v["name"],
                    "url": v["url"],
                    "dtype": v["meta"].get("dtype"),
                    "bytes": export_bytes(v["dir"], v["meta"]),
                    "sha256": v["meta"].get("onnx_sha256"),
                }
                for v in self.variants()
            ],
            "certificates_are": "claims: a certificate shipped with the model or uploaded by a browser was made on "
            "another device (or this one, earlier); only a suite a device runs itself is proof there",
            "certificates": {
                k: dict(summary(c), kind="claim", claim=self.claim(c)) for k, c in self.certificates().items()
            },
            "recorded_certificates": recorded(store, d.get(KEY_FILE)) if d else [],
        }

    def claim(self, cert) -> str:
        """A committed certificate as the server can judge it: a browser one against what the page
        loads; another backend's is checked by the device that runs it."""

        if nested(cert, "predicate", "backend", "name") != "browser" or self.onnx_dir is None:
            return "not checked here: the device that runs this backend checks it, and runs its own suite"
        v = policy.check(cert, self.expectation())
        return "consistent" if v.ok else f"inconsistent ({v.summary(limit=2)})"


def recorded(store, key: str) -> list[dict]:
    """Summaries of the uploads recorded for the model `key`: claims, with who sent them."""

    try:
        rows = store.list(50, model_sha256=key)["certificates"]
    except StoreUnavailable:
        return []
    return [
        dict(
            r["summary"],
            environment=r["device"],
            kind="claim",
            id=r["id"],
            received_at=r["received_at"],
            client=r["client"],
            device=r["device"],
        )
        for r in rows
    ]


def check_uploaded(cert, served: ServedModel | None) -> dict:
    """The rule on an uploaded browser certificate for `served`; returns what the store keeps."""

    if not isinstance(cert, dict):
        raise InputError("malformed certificate: not a JSON object")
    if served is None:
        raise UnknownModel("this server serves no model, so it records no certificates")
    verdict, key = policy.check(cert, served.expectation()), None
    if verdict.ok:
        key = served.key()
    else:  # perhaps a certificate of one of the variants the page may run instead
        for v in served.variants()[1:]:
            expect = served.variant_expectation(v["name"])
            if policy.check(cert, expect).ok:
                verdict, key = policy.check(cert, expect), expect.files[KEY_FILE]
                break
    if not verdict.ok:
        unknown = {"subject-missing", "subject-digest"} & set(verdict.codes())  # another model, not a bad upload
        cls = UnknownModel if unknown and len(verdict.codes()) == len(unknown) else InputError
        hint = (
            (" (the server records the page's certificates; a Python device keeps its own in its certificate cache)")
            if "backend" in verdict.codes()
            else ""
        )
        raise cls(f"the certificate does not hold for the served model: {verdict.summary()}{hint}")
    return {
        "model_sha256": key,
        "backend": "browser",
        "passed": True,
        "environment": cert["predicate"].get("environment"),
    }
