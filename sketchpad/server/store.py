"""Certificates that browsers (or anyone) uploaded, kept in an embedded SQLite database.

One connection per call: sqlite3 connections are not shared between threads, and uvicorn's
thread pool answers requests concurrently.  WAL mode lets readers and one writer overlap.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS certificates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sha256 TEXT NOT NULL UNIQUE,
    received_at TEXT NOT NULL,
    model_sha256 TEXT NOT NULL,
    backend TEXT NOT NULL,
    passed INTEGER NOT NULL,
    body TEXT NOT NULL
)
"""


class CertificateStore:
    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def add(self, cert: dict, model_sha256: str, backend: str, passed: bool) -> dict:
        """Store a certificate; the same bytes uploaded twice are stored once."""
        body = json.dumps(cert, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(body.encode()).hexdigest()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self._connect() as db:
            row = db.execute("SELECT id, received_at FROM certificates WHERE sha256 = ?", (digest,)).fetchone()
            if row:
                return {"id": row[0], "sha256": digest, "received_at": row[1], "duplicate": True}
            cur = db.execute(
                "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body) "
                "VALUES (?, ?, ?, ?, ?, ?)", (digest, stamp, model_sha256, backend, int(passed), body))
            return {"id": cur.lastrowid, "sha256": digest, "received_at": stamp, "duplicate": False}

    def list(self, limit: int = 100) -> list[dict]:
        with self._connect() as db:
            rows = db.execute("SELECT id, sha256, received_at, model_sha256, backend, passed, body "
                              "FROM certificates ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [{"id": r[0], "sha256": r[1], "received_at": r[2], "model_sha256": r[3], "backend": r[4],
                 "passed": bool(r[5]), "certificate": json.loads(r[6])} for r in rows]
