"""Certificates that browsers (or anyone) uploaded, kept in an embedded SQLite database.

A stored certificate is a claim, and the row says whose: the device as it described itself
(the certificate's environment), when it arrived, the client address that sent it and its
User-Agent header.  The server re-checks every upload with the one rule before storing it
(models.check_uploaded); what it cannot see (the sender's device) it records as reported.

Versions.  The database carries its schema version (PRAGMA user_version) and every row its
own format (row_version).  Migrations only add (columns, never a change of meaning), and a
server reads every row format up to its own: a database written by an older server is
migrated when opened, and its old rows stay readable.  A row that cannot be read (not
UTF-8, not strict JSON, NaN or Infinity in it, not a certificate object, a row format from a
newer server) is skipped and reported (`list` returns it under "skipped", and the log says
so), never fatal: one bad row must not take the registry down.

One connection per call: sqlite3 connections are not shared between threads, and uvicorn's
thread pool answers requests concurrently.  WAL mode lets readers and one writer overlap.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import time
from pathlib import Path

from .. import strictjson

log = logging.getLogger("sketchpad.server")

SCHEMA_VERSION = 2  # PRAGMA user_version of a database this server writes
ROW_VERSION = 2  # the newest row format this server reads and writes
# Row formats: 1 (schema 1): id, sha256, received_at, model_sha256, backend, passed, body.
#              2 (schema 2): + row_version, client, user_agent, device (the environment as reported).

SCHEMA_1 = """
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
MIGRATIONS = {  # to version: statements (each only adds)
    2: [
        "ALTER TABLE certificates ADD COLUMN row_version INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE certificates ADD COLUMN client TEXT",
        "ALTER TABLE certificates ADD COLUMN user_agent TEXT",
        "ALTER TABLE certificates ADD COLUMN device TEXT",
    ],
}
COLUMNS = (
    "id",
    "sha256",
    "received_at",
    "model_sha256",
    "backend",
    "passed",
    "body",
    "row_version",
    "client",
    "user_agent",
    "device",
)


class StoreUnavailable(Exception):
    """The database file cannot be used at all (not a database, no permission, ...)."""


class CertificateStore:
    def __init__(self, path: str | Path):
        self.path = str(path)
        self.problem: str | None = None  # why the store is unusable, if it is
        self.schema_version = None
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                self.schema_version = self._migrate(db)
        except (sqlite3.Error, OSError) as e:
            self.problem = f"the certificate database {self.path} cannot be used: {e}"
            log.error("sketchpad: %s (certificate uploads and listings answer 503)", self.problem)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.text_factory = bytes  # decode per row: one undecodable row must not fail a listing
        return db

    def _migrate(self, db) -> int:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        have = {
            r[1].decode() if isinstance(r[1], bytes) else r[1] for r in db.execute("PRAGMA table_info(certificates)")
        }
        if not have:
            db.execute(SCHEMA_1)
            version = 1
        elif version == 0:
            version = 1  # a table made before versions were recorded
        if version > SCHEMA_VERSION:
            log.warning(
                "sketchpad: the certificate database %s has schema %d, newer than this server's %d: "
                "reading the columns this server knows",
                self.path,
                version,
                SCHEMA_VERSION,
            )
            return version
        for v in range(version + 1, SCHEMA_VERSION + 1):
            have = {
                r[1].decode() if isinstance(r[1], bytes) else r[1]
                for r in db.execute("PRAGMA table_info(certificates)")
            }
            for stmt in MIGRATIONS[v]:
                column = stmt.split("ADD COLUMN ")[1].split()[0]
                if column not in have:
                    db.execute(stmt)
            db.execute(f"PRAGMA user_version = {v}")
            log.info("sketchpad: migrated the certificate database %s to schema %d", self.path, v)
        return max(version, SCHEMA_VERSION)

    def _usable(self) -> None:
        if self.problem:
            raise StoreUnavailable(self.problem)

    def add(
        self,
        cert: dict,
        model_sha256: str,
        backend: str,
        passed: bool,
        *,
        client: str | None = None,
        user_agent: str | None = None,
        device=None,
    ) -> dict:
        """Store a certificate (strict JSON: NaN or Infinity anywhere is a ValueError, never
        stored); the same bytes uploaded twice are stored once."""
        self._usable()
        body = strictjson.dumps(cert, sort_keys=True, separators=(",", ":"))
        device_json = strictjson.dumps(device, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(body.encode()).hexdigest()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        ua = (user_agent or "")[:300] or None
        try:
            with self._connect() as db:
                row = db.execute(
                    "SELECT id, received_at, client FROM certificates WHERE sha256 = ?", (digest,)
                ).fetchone()
                if row:
                    return {
                        "id": row[0],
                        "sha256": digest,
                        "received_at": _text(row[1]),
                        "client": _text(row[2]),
                        "duplicate": True,
                    }
                cur = db.execute(
                    "INSERT INTO certificates (sha256, received_at, model_sha256, backend, passed, body, row_version, "
                    "client, user_agent, device) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (digest, stamp, model_sha256, backend, int(passed), body, ROW_VERSION, client, ua, device_json),
                )
                return {
                    "id": cur.lastrowid,
                    "sha256": digest,
                    "received_at": stamp,
                    "client": client,
                    "duplicate": False,
                }
        except sqlite3.Error as e:
            raise StoreUnavailable(f"the certificate database {self.path} cannot be written: {e}") from e

    def list(self, limit: int = 100, *, model_sha256: str | None = None, backend: str | None = None) -> dict:
        """{"certificates": [...], "skipped": [{"id", "reason"}]}: the newest `limit` rows
        (matching the filters), each readable one as a record, each unreadable one reported."""
        self._usable()
        where, args = [], []
        if model_sha256 is not None:
            where.append("model_sha256 = ?")
            args.append(model_sha256)
        if backend is not None:
            where.append("backend = ?")
            args.append(backend)
        try:
            with self._connect() as db:
                have = [_text(r[1]) for r in db.execute("PRAGMA table_info(certificates)")]
                cols = [c if c in have else f"NULL AS {c}" for c in COLUMNS]
                rows = db.execute(
                    f"SELECT {', '.join(cols)} FROM certificates "
                    + (f"WHERE {' AND '.join(where)} " if where else "")
                    + "ORDER BY id DESC LIMIT ?",
                    (*args, limit),
                ).fetchall()
        except sqlite3.Error as e:
            raise StoreUnavailable(f"the certificate database {self.path} cannot be read: {e}") from e
        out, skipped = [], []
        for r in rows:
            try:
                out.append(_record(dict(zip(COLUMNS, r))))
            except (ValueError, TypeError, KeyError) as e:
                skipped.append({"id": r[0], "reason": str(e)[:300]})
                log.warning("sketchpad: skipped certificate row %s of %s: %s", r[0], self.path, e)
        return {"certificates": out, "skipped": skipped}


def _text(x):
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, bytes):
        return x.decode("utf-8")  # UnicodeDecodeError is a ValueError: the row is skipped
    raise TypeError(f"expected text, found {type(x).__name__}")


def _record(r: dict) -> dict:
    """One stored row as the API shows it; ValueError/TypeError when it cannot be read."""
    version = r["row_version"] if r["row_version"] is not None else 1
    if not isinstance(version, int) or not 1 <= version <= ROW_VERSION:
        raise ValueError(
            f"row format {version!r} is not one this server reads (1..{ROW_VERSION}); written by a newer server?"
        )
    if not isinstance(r["id"], int):
        raise TypeError("no integer id")
    body = r["body"]
    if not isinstance(body, (str, bytes)):
        raise TypeError(f"the certificate body is {type(body).__name__}, not text")
    try:
        cert = strictjson.loads(_text(body))
    except RecursionError:
        raise ValueError("the certificate body is nested too deeply") from None
    except ValueError as e:
        raise ValueError(f"the certificate body is not strict JSON: {e}") from None
    if not isinstance(cert, dict):
        raise ValueError("the certificate body is not a JSON object")
    device = cert.get("predicate", {}).get("environment") if isinstance(cert.get("predicate"), dict) else None
    if r["device"] is not None:
        device = strictjson.loads(_text(r["device"]))
    fields = {k: _text(r[k]) for k in ("sha256", "received_at", "model_sha256", "backend")}
    for k, v in fields.items():
        if not isinstance(v, str):
            raise ValueError(f"the row has no {k}")
    if r["passed"] not in (0, 1):
        raise ValueError(f"passed is {r['passed']!r}, not 0 or 1")
    return {
        "id": r["id"],
        **fields,
        "passed": bool(r["passed"]),
        "row_version": version,
        "client": _text(r["client"]),
        "user_agent": _text(r["user_agent"]),
        "device": device,
        "certificate": cert,
    }
