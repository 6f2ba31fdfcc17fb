"""Certificates a device made for itself, kept in the user's cache directory
(platformdirs' user cache dir, or $SKETCHPAD_CACHE_DIR), one file per model digest,
environment and gate.  An entry is only ever a candidate: it is read strictly and checked
against the rule like any other certificate, and a corrupt or stale entry is ignored."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from .. import strictjson
from .policy import Expectation


def cache_dir() -> Path:
    env = os.environ.get("SKETCHPAD_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("sketchpad")) / "certificates"


def key(expect: Expectation) -> str:
    """Model digest (every loaded file and the code), backend, gate and environment."""
    text = strictjson.dumps(
        {"backend": expect.backend, "files": expect.files, "gate": expect.gate, "environment": expect.environment},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def path_for(expect: Expectation) -> Path:
    return cache_dir() / f"{expect.backend}-gate{expect.gate:g}-{key(expect)}.json"


def load(expect: Expectation):
    """The cached certificate for this model and environment, or None."""
    try:
        return strictjson.loads(path_for(expect).read_text())
    except (OSError, ValueError):
        return None


def store(expect: Expectation, cert: dict) -> Path:
    """Write atomically (a reader never sees half a file)."""
    path = path_for(expect)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(strictjson.dumps(cert, indent=1) + "\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path
