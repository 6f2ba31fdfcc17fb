"""What a loader read: every model file and every source file that turns a view into a step,
by name and sha256.

A loader opens a model's files only through its Manifest (`path` or `read_bytes`), so the list
a certificate is checked against (sketchpad.certify.policy) is, by construction, the list of
what was loaded: no file can be used without being named.  Model files are named by their path
in the model directory (`onnx/model.onnx`); code and package data by their path in the package
(`sketchpad/model/onnx_stepper.py`, `sketchpad/web/onnx_stepper.js`, `sketchpad/data/views.jsonl`),
which is the same in a checkout and in an installed wheel.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from ..digest import sha256_bytes, sha256_file
from ..errors import InputError


def package_file(name: str) -> Path:
    """Where a package path such as `sketchpad/web/onnx_stepper.js` lies in this installation (a
    checkout installs certify/, export/ and web/ inside the package, see pyproject.toml)."""
    parts = name.split("/")
    for k in range(len(parts) - 1, 0, -1):
        spec = importlib.util.find_spec(".".join(parts[:k]))
        if spec is not None and spec.submodule_search_locations:
            return Path(list(spec.submodule_search_locations)[0], *parts[k:])
    raise ValueError(f"not a file of the sketchpad package: {name}")


class Manifest:
    """{name: sha256} of what one loader read from `root` (a model directory) and the package."""

    def __init__(self, root):
        self.root = Path(root)
        self.files: dict[str, str] = {}

    def _model_path(self, at: str) -> Path:
        p = self.root / at
        if not p.is_file():
            raise InputError(f"{self.root} has no {at}")
        return p

    def path(self, name: str, at: str | None = None) -> Path:
        """The path of a model file a library is about to open; hashed and recorded now.
        `at` is where it lies under root when that differs from its name."""
        p = self._model_path(at or name)
        self.files[name] = sha256_file(p)
        return p

    def read_bytes(self, name: str, at: str | None = None) -> bytes:
        """A model file's bytes, hashed as read: what is hashed is what is used."""
        data = self._model_path(at or name).read_bytes()
        self.files[name] = sha256_bytes(data)
        return data

    def read_json(self, name: str, at: str | None = None):
        data = self.read_bytes(name, at)
        try:
            return json.loads(data)
        except ValueError as e:
            raise InputError(f"{self.root / (at or name)} is not valid JSON: {e}") from None

    def code(self, names) -> Manifest:
        """Record the package files (source code, package data) this loader runs on."""
        for n in names:
            self.files[n] = sha256_file(package_file(n))
        return self

    def subjects(self) -> list[dict]:
        """In-toto subjects, sorted by name."""
        return [{"name": n, "digest": {"sha256": d}} for n, d in sorted(self.files.items())]

    def digest(self) -> str:
        """One sha256 for the whole manifest (a cache key for this exact model and code)."""
        return sha256_bytes("".join(f"{n}\t{d}\n" for n, d in sorted(self.files.items())).encode())
