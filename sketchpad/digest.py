"""The one digest helper: sha256 of bytes and of a file, as lowercase hex (what manifests,
certificates, the view set and exports record)."""

from __future__ import annotations

import hashlib


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path) -> str:
    """The file's sha256, read in 1 MB chunks (a model's weights need not fit in memory twice)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
