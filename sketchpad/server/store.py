"""The registry of certificates that browsers (or anyone) uploaded: one store, two engines.

A stored certificate is a claim, and the row says whose: the device as it described itself
(the certificate's environment), when it arrived, the client address that sent it and its
User-Agent header.  The server re-checks every upload with the one rule before storing it
(models.check_uploaded); what it cannot see (the sender's device) it records as reported.

Engines (database.py): the embedded SQLite file (the default) or PostgreSQL, both through
SQLAlchemy Core; the schema is made and migrated by Alembic (migrate.py, schema.py).  Nothing
a request needs lives in the process, so any number of servers on one PostgreSQL answer
alike: ids come from the database; an upload is one INSERT in one transaction, idempotent by
the unique digest of its canonical body (the second upload of the same certificate, to any
replica, returns the first row); listings page by id (keyset: `before`), newest first, and
show summaries; one whole certificate is read by its id.

Faults.  A row that cannot be read is skipped and reported (`list` returns it under
"skipped", and the log says so), never fatal: one bad row must not take the registry down.
A database that cannot be reached or used (PostgreSQL down or restarting, a file that is not
a database) makes registry calls raise StoreUnavailable (the API answers 503 with
Retry-After) and nothing else: solves never touch the store.  The store recovers by itself:
opening (migrating) is retried on a later call, and a pooled connection is pinged before use
and replaced when the database has restarted.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from pathlib import Path

import sqlalchemy as sa
from alembic.util import CommandError
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from .. import strictjson
from . import records
from .database import database_url, make_engine, shown
from .migrate import upgrade
from .schema import ROW_VERSION, SCHEMA_VERSION, certificates

__all__ = ["CertificateStore", "StoreUnavailable", "Unreadable", "ROW_VERSION", "SCHEMA_VERSION"]

log = logging.getLogger("sketchpad.server")

RETRY_AFTER = 5  # seconds a client is told to wait when the database is unavailable
REOPEN_SECONDS = 2.0  # at most one attempt to open (migrate) an unusable database per this
T = certificates


class StoreUnavailable(Exception):
    """The database cannot be used now (unreachable, restarting, not a database, ...)."""

    def __init__(self, message: str, retry_after: int = RETRY_AFTER):
        super().__init__(message)
        self.retry_after = retry_after


class Unreadable(ValueError):
    """The row exists but cannot be read (a listing skips it)."""


def reason(e: BaseException) -> str:
    """One line that says why a database call failed (the driver's own words when it has some)."""
    orig = getattr(e, "orig", None) or e
    lines = str(orig).strip().splitlines()
    return (lines[0] if lines else type(orig).__name__)[:300]


class CertificateStore:
    def __init__(self, db: str | Path):
        """`db`: a SQLite file path, sqlite:///PATH or postgresql://... (database.py).  A database
        that cannot be used now is not an error here: the store says why (`problem`), registry
        calls raise StoreUnavailable, and it is tried again later."""
        self.url = database_url(db)
        self.where = shown(self.url)
        self.engine: sa.Engine | None = None
        self.problem: str | None = None  # why the store cannot be used, while it cannot
        self.schema_version: int | None = None
        self._opened = False
        self._lock = threading.Lock()
        self._next_try = 0.0
        self._open()

    @property
    def engine_name(self) -> str:
        return self.url.get_backend_name()

    def _open(self) -> None:
        try:
            if self.engine is None:
                self.engine = make_engine(self.url)
            self.schema_version = upgrade(self.engine, self.where)
        except (SQLAlchemyError, OSError, CommandError) as e:
            self.problem = f"the certificate database {self.where} cannot be used: {reason(e)}"
            self._next_try = time.monotonic() + REOPEN_SECONDS
            log.error("sketchpad: %s (certificate uploads and listings answer 503 until it can)", self.problem)
            return
        if self.problem:
            log.warning("sketchpad: the certificate database %s is usable again", self.where)
        self.problem = None
        self._opened = True

    def _usable(self) -> sa.Engine:
        if not self._opened:
            with self._lock:
                if not self._opened and time.monotonic() >= self._next_try:
                    self._open()
        if not self._opened:
            raise StoreUnavailable(self._public(self.problem or f"the certificate database {self.where} is opening"))
        return self.engine

    def _failed(self, e: SQLAlchemyError, doing: str) -> StoreUnavailable:
        why = f"the certificate database {self.where} cannot be {doing} now: {reason(e)}"
        log.warning("sketchpad: %s", why)
        return StoreUnavailable(self._public(why))

    def _public(self, why: str) -> str:
        """What a client is told: the whole reason for the local SQLite file (as before); for a
        database server only that it is unavailable (its address and the driver's words, which
        name hosts and users, stay in the server's log)."""
        if self.engine_name == "sqlite":
            return why
        return "the certificate registry's database cannot be used now (the server's log says why); try again later"

    # -- writing ------------------------------------------------------------------------------

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
        stored) in one transaction: the whole row or none.  The same certificate uploaded twice
        (to any replica) is stored once: the answer is then the first row, "duplicate": true."""
        body = strictjson.dumps(cert, sort_keys=True, separators=(",", ":"))
        row = {
            "sha256": hashlib.sha256(body.encode()).hexdigest(),
            "received_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "model_sha256": model_sha256,
            "backend": backend,
            "passed": int(passed),
            "body": body,
            "row_version": ROW_VERSION,
            "client": client,
            "user_agent": (user_agent or "")[:300] or None,
            "device": strictjson.dumps(device, sort_keys=True, separators=(",", ":")),
            "summary": records.stored_summary(cert),
        }
        engine = self._usable()
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        insert = dialect.insert(T).values(**row).on_conflict_do_nothing(index_elements=[T.c.sha256])
        first = sa.select(T.c.id, *_raw(engine, T.c.received_at, T.c.client)).where(T.c.sha256 == row["sha256"])
        try:
            with engine.begin() as conn:
                # Look first (a duplicate costs no insert); the unique digest settles a race
                # between replicas: the loser's insert does nothing and it reads the winner's row.
                found = conn.execute(first).one_or_none()
                if found is None:
                    new_id = conn.execute(insert.returning(T.c.id)).scalar()
                    if new_id is not None:
                        return {"id": new_id, **_ack(row), "duplicate": False}
                    found = conn.execute(first).one()
        except SQLAlchemyError as e:
            raise self._failed(e, "written") from e
        return {
            "id": found.id,
            "sha256": row["sha256"],
            "received_at": records.text(found.received_at),
            "client": records.text(found.client),
            "duplicate": True,
        }

    # -- reading ------------------------------------------------------------------------------

    def list(
        self,
        limit: int = 100,
        *,
        before: int | None = None,
        model_sha256: str | None = None,
        backend: str | None = None,
    ) -> dict:
        """{"certificates": [...], "skipped": [{"id", "reason"}], "next_before": id or None}: the
        newest `limit` rows with an id below `before` (matching the filters), each readable one
        as a summary record (records.record), each unreadable one reported.  `next_before` is
        the `before` of the next page (None: this was the last)."""
        engine = self._usable()
        body = sa.case((T.c.summary.is_(None), _raw(engine, T.c.body)[0]), else_=sa.null()).label("body")
        q = sa.select(*_columns(engine), body).order_by(T.c.id.desc()).limit(limit)
        if before is not None:
            q = q.where(T.c.id < before)
        if model_sha256 is not None:
            q = q.where(T.c.model_sha256 == model_sha256)
        if backend is not None:
            q = q.where(T.c.backend == backend)
        try:
            with engine.connect() as conn:
                rows = conn.execute(q).mappings().all()
        except SQLAlchemyError as e:
            raise self._failed(e, "read") from e
        out, skipped = [], []
        for r in rows:
            try:
                out.append(records.record(dict(r), whole=False))
            except (ValueError, TypeError, KeyError) as e:
                skipped.append({"id": r["id"], "reason": str(e)[:300]})
                log.warning("sketchpad: skipped certificate row %s of %s: %s", r["id"], self.where, e)
        return {
            "certificates": out,
            "skipped": skipped,
            "next_before": rows[-1]["id"] if len(rows) == limit else None,
        }

    def get(self, id: int) -> dict | None:
        """The whole record of certificate `id` (with "certificate"), None when there is none;
        Unreadable when the row cannot be read."""
        engine = self._usable()
        q = sa.select(*_columns(engine), *_raw(engine, T.c.body)).where(T.c.id == id)
        try:
            with engine.connect() as conn:
                r = conn.execute(q).mappings().one_or_none()
        except SQLAlchemyError as e:
            raise self._failed(e, "read") from e
        if r is None:
            return None
        try:
            return records.record(dict(r), whole=True)
        except (ValueError, TypeError, KeyError) as e:
            log.warning("sketchpad: certificate row %s of %s cannot be read: %s", id, self.where, e)
            raise Unreadable(f"certificate #{id} is stored but cannot be read: {str(e)[:300]}") from None

    def close(self) -> None:
        if self.engine is not None:
            self.engine.dispose()


def _raw(engine: sa.Engine, *cols) -> list:
    """Text columns as the driver hands them: on SQLite as bytes (CAST AS BLOB), so that one row
    that is not UTF-8 is skipped (records.text) instead of failing the whole query.  A
    PostgreSQL database only ever holds valid text."""
    if engine.dialect.name != "sqlite":
        return list(cols)
    return [sa.cast(c, sa.LargeBinary).label(c.name) for c in cols]


def _columns(engine: sa.Engine) -> list:
    text = [T.c[k] for k in records.SUMMARY_FIELDS if k not in ("id", "passed", "row_version")]
    return [T.c.id, T.c.passed, T.c.row_version, *_raw(engine, *text)]


def _ack(row: dict) -> dict:
    return {k: row[k] for k in ("sha256", "received_at", "client")}
