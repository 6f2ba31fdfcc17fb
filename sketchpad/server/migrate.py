"""Bring a registry database to this server's schema with Alembic, on SQLite and PostgreSQL.

A database written before the registry used Alembic (a hand-versioned SQLite file: PRAGMA
user_version 1 or 2, no alembic_version table) is first stamped with the revision its columns
match, then upgraded like any other: its rows stay as they are.  A database at a revision this
server does not know was written by a newer server; migrations only add, so it is read as it
is (the columns this server knows), and left alone.

Replicas may start together on one PostgreSQL: the upgrade runs under an advisory lock, in
one transaction, so exactly one of them migrates and the others find the work done.
"""

from __future__ import annotations

import logging
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError

log = logging.getLogger("sketchpad.server")

MIGRATIONS = Path(__file__).parent / "migrations"
LOCK_KEY = 0x5E7C4A11  # pg_advisory_xact_lock: one migrating replica at a time
SCHEMA_2_COLUMNS = {"row_version", "client", "user_agent", "device"}


def _config(connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("path_separator", "os")
    cfg.attributes["connection"] = connection
    return cfg


def upgrade(engine: sa.Engine, where: str) -> int | None:
    """Migrate the database of `engine` to the newest schema; its schema version afterwards
    (None: a newer server's, read as it is).  Database errors propagate."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as c:  # outside a transaction: WAL lets readers and one writer overlap
            c.exec_driver_sql("PRAGMA journal_mode=WAL")
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
        cfg = _config(conn)
        script = ScriptDirectory.from_config(cfg)
        current = MigrationContext.configure(conn).get_current_revision()
        if current is None and sa.inspect(conn).has_table("certificates"):
            have = {c["name"] for c in sa.inspect(conn).get_columns("certificates")}
            current = "0002" if SCHEMA_2_COLUMNS <= have else "0001"
            command.stamp(cfg, current)
            log.info("sketchpad: the certificate database %s predates Alembic: schema %s", where, int(current))
        try:
            script.get_revision(current)
        except CommandError:
            log.warning(
                "sketchpad: the certificate database %s is at schema %s, newer than this server's %s: "
                "reading the columns this server knows",
                where,
                current,
                script.get_current_head(),
            )
            return None
        head = script.get_current_head()
        if current != head:
            command.upgrade(cfg, "head")
            log.info("sketchpad: migrated the certificate database %s from schema %s to %s", where, current or 0, head)
        return int(head)
