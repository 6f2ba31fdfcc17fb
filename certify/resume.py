"""Per-chunk results of a certification suite in progress, so that an interrupted suite resumes
where it stopped (at full size the suite runs for many minutes; a closed laptop or a Ctrl-C
must not throw the work away).  web/certify/resume.js keeps the same in the page's IndexedDB.

    journal = Journal.open(expect, plan)         # None where the cache is not usable
    got = journal.get(run, chunk)                # (logits, seconds) kept from an earlier run, or None
    journal.put(run, chunk, logits, seconds)
    journal.finish()                             # the certificate is written: the chunks go

A journal lives in this user's certificate cache (certify/cache.py), in a folder named by the
cache slot of this model, environment, gate and graph verdict plus a digest of the suite's plan
(every run's order and batch sizes, from this device's seed), so a chunk can only be reused by
the same suite on the same bytes.  Each chunk file carries an HMAC tag of this user's key over
its slot, run, chunk, shape, seconds and the sha256 of its logits: a chunk anyone else wrote or
changed is ignored with a warning and run again, like a cache entry.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from . import cache

FORMAT = "sketchpad-suite-chunk/1"
FOLDER = "partial"


def plan_digest(runs: list[dict], n: int) -> str:
    """What the suite will compute, run by run: labels, orders and batch sizes."""
    text = json.dumps(
        [[r["label"], r["order"] or list(range(n)), r["sizes"]] for r in runs], separators=(",", ":")
    ).encode()
    return hashlib.sha256(text).hexdigest()


class Journal:
    def __init__(self, folder: Path, secret: bytes, slot: str, warn=cache.warn):
        self.folder, self.secret, self.slot, self.warn = folder, secret, slot, warn
        self.resumed_chunks = self.resumed_views = 0
        self.started = self._started()

    @classmethod
    def open(cls, expect, runs: list[dict], n: int, warn=cache.warn):
        """The journal of this suite on this model here (made if new), or None without a usable cache."""
        secret = cache.user_key(create=True, warn=warn)
        if secret is None:
            return None
        slot = hashlib.sha256(f"{cache.key(expect)}|{plan_digest(runs, n)}".encode()).hexdigest()[:32]
        folder = cache.cache_dir() / FOLDER / slot
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            warn(f"not keeping the suite's partial results in {folder}: {e.strerror}")
            return None
        problem = cache.unsafe_dir(folder.parent) or cache.unsafe_dir(folder)
        if problem:
            warn(f"not keeping the suite's partial results in {folder}: {problem}")
            return None
        return cls(folder, secret, slot, warn)

    def _started(self) -> str:
        path = self.folder / "started"
        try:
            return path.read_text().strip()
        except OSError:
            now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            path.write_text(now + "\n")
            return now

    def _tag(self, run: int, chunk: int, shape, seconds: float, digest: str) -> str:
        text = f"{FORMAT}\n{self.slot}\n{run}\n{chunk}\n{list(shape)}\n{seconds!r}\n{digest}"
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()

    def _path(self, run: int, chunk: int) -> Path:
        return self.folder / f"run{run}-chunk{chunk}.bin"

    def get(self, run: int, chunk: int):
        path = self._path(run, chunk)
        if not path.exists():
            return None
        try:
            head, body = path.read_bytes().split(b"\n", 1)
            meta = json.loads(head)
            shape, seconds = tuple(meta["shape"]), float(meta["seconds"])
            logits = np.frombuffer(body, dtype="<f4").reshape(shape)
        except (OSError, ValueError, KeyError, TypeError):
            self.warn(f"ignoring the suite's partial result {path}: it is not readable")
            return None
        want = self._tag(run, chunk, shape, seconds, hashlib.sha256(body).hexdigest())
        if meta.get("format") != FORMAT or not hmac.compare_digest(str(meta.get("hmac")), want):
            self.warn(f"ignoring the suite's partial result {path}: its HMAC tag does not match this user's key")
            return None
        self.resumed_chunks += 1
        self.resumed_views += shape[0]
        return logits.astype(np.float32), seconds

    def put(self, run: int, chunk: int, logits: np.ndarray, seconds: float) -> None:
        """Keep a chunk (atomically).  Never fatal: a chunk that cannot be kept is only run again
        if the suite is interrupted (another run of the same suite may have finished and removed
        the folder meanwhile: it is made again)."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._write(run, chunk, logits, seconds)
        except OSError as e:
            self.warn(f"could not keep a chunk of the suite in {self.folder}: {e.strerror or e}")

    def _write(self, run: int, chunk: int, logits: np.ndarray, seconds: float) -> None:
        body = np.ascontiguousarray(logits, dtype="<f4").tobytes()
        shape = list(logits.shape)
        head = {
            "format": FORMAT,
            "shape": shape,
            "seconds": seconds,
            "hmac": self._tag(run, chunk, shape, seconds, hashlib.sha256(body).hexdigest()),
        }
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(json.dumps(head).encode() + b"\n" + body)
            os.replace(tmp, self._path(run, chunk))
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def finish(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
