"""Which database holds the certificate registry, and how the server reaches it.

`sketchpad serve --db` (or the SKETCHPAD_DB_URL environment variable) names it:
  - a file path or sqlite:///PATH: the embedded SQLite file (the default; no database server),
    for one server process;
  - postgresql://USER:PASSWORD@HOST:PORT/DATABASE: PostgreSQL (driver: psycopg 3), for any
    number of server processes (replicas) on one database.
Nothing else: another scheme is a clear error, never a guess.  Messages name the database
with its password hidden.

The PostgreSQL engine is built to ride out a database that restarts or goes away: every
connection is pinged when taken from the pool (a stale one is replaced), connecting gives up
after a few seconds, and no statement runs longer than the statement timeout, so a registry
request fails fast (503) instead of hanging, and the next one reconnects by itself.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from ..errors import InputError

ENV = "SKETCHPAD_DB_URL"  # the database, for containers and process managers (below --db)
CONNECT_SECONDS = 3  # give up connecting to PostgreSQL after this long (the request answers 503)
STATEMENT_MS = 15_000  # no registry statement runs longer (PostgreSQL's statement_timeout)
POOL = {"pool_size": 5, "max_overflow": 10, "pool_timeout": 10}  # per process


def database_url(spec: str | Path) -> URL:
    """The SQLAlchemy URL for `spec` (a path or a URL); InputError when it is neither."""
    text = str(spec).strip()
    if not text:
        raise InputError("--db is empty: give a file path, sqlite:///PATH or postgresql://...")
    if "://" not in text:
        return URL.create("sqlite", database=text if text == ":memory:" else str(Path(text).expanduser()))
    try:
        url = sa.make_url(text)
    except ArgumentError:
        raise InputError(f"--db {text.split('://')[0]}://...: not a database URL") from None
    backend, _, driver = url.drivername.partition("+")
    if backend == "sqlite" and driver in ("", "pysqlite"):
        return url
    if backend in ("postgresql", "postgres") and driver in ("", "psycopg"):
        if importlib.util.find_spec("psycopg") is None:
            raise InputError("--db postgresql://... needs psycopg 3: pip install 'sketchpad[postgres]'")
        return url.set(drivername="postgresql+psycopg")
    raise InputError(
        f"--db {url.drivername}://...: the registry runs on sqlite:///PATH (the default) or postgresql://..."
    )


def shown(url: URL) -> str:
    """The URL as messages show it: no password."""
    if url.get_backend_name() == "sqlite":
        return url.database or ":memory:"
    return url.set(drivername="postgresql").render_as_string(hide_password=True)


def make_engine(url: URL) -> Engine:
    """An engine for `url` (no connection is made yet)."""
    if url.get_backend_name() == "sqlite":
        if url.database in (None, "", ":memory:"):  # one shared in-memory database (tests, embedding)
            return sa.create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        return sa.create_engine(url, connect_args={"timeout": 30})  # wait for the file's one writer
    return sa.create_engine(
        url,
        pool_pre_ping=True,
        **POOL,
        connect_args={
            "connect_timeout": CONNECT_SECONDS,
            "options": f"-c statement_timeout={STATEMENT_MS}",
            "application_name": "sketchpad-serve",
        },
    )
