"""The in-toto Statement v1 wrapper: which files a certificate is about, by sha256.

Subjects are every file that determines a step: the base model's weights, config and
tokenizer files, the adapter's weights and config, the view/step vocabulary, any backend
files (an ONNX graph), and the view-set export.  Model files are named relative to the model
directory; the view set is named by its path in the package.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VIEW_SET_NAME = "sketchpad/data/views.jsonl"
_SKIP = {"README.md", "generation_config.json"}       # documentation / sampling defaults only


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def model_files(model_dir: Path) -> list[Path]:
    model_dir = Path(model_dir)
    out = []
    for sub in ("base", "adapter"):
        out += sorted(p for p in (model_dir / sub).iterdir()
                      if p.is_file() and p.name not in _SKIP and p.suffix in (".json", ".safetensors", ".txt", ".model"))
    out.append(model_dir / "sketchpad_vocab.json")
    return out


def view_set_path() -> Path:
    from sketchpad.views import EXPORT_PATH
    return EXPORT_PATH


def subjects(model_dir: Path, extra: list[Path] = ()) -> list[dict]:
    model_dir = Path(model_dir)
    files = model_files(model_dir) + [Path(p) for p in extra]
    subj = [{"name": p.relative_to(model_dir).as_posix(), "digest": {"sha256": sha256_file(p)}}
            for p in files]
    subj.append({"name": VIEW_SET_NAME, "digest": {"sha256": sha256_file(view_set_path())}})
    return subj


def resolve(name: str, model_dir: Path) -> Path:
    """Where a subject name points on this machine."""
    return view_set_path() if name == VIEW_SET_NAME else Path(model_dir) / name


def statement(subj: list[dict], predicate_type: str, predicate: dict) -> dict:
    return {"_type": STATEMENT_TYPE, "subject": subj, "predicateType": predicate_type,
            "predicate": predicate}
