"""The registry's table as this server reads and writes it (the newest schema).

The schema is made and changed only by the Alembic migrations in migrations/versions/ (one
file per schema version, for SQLite and PostgreSQL alike); this is the same table described
for SQLAlchemy Core's queries.  Migrations only add (columns, an index), never change a
meaning, so a server reads every row an older server wrote.

Row formats (the row_version column; the rows of one database may differ):
  1 (schema 1): id, sha256, received_at, model_sha256, backend, passed, body.
  2 (schema 2): + row_version, client, user_agent, device (the environment as reported).
  3 (schema 3): + summary (the certificate's headline, so a listing never reads bodies).
"""

from __future__ import annotations

import sqlalchemy as sa

SCHEMA_VERSION = 3  # the newest migration (migrations/versions/000N_*.py)
ROW_VERSION = 3  # the newest row format this server reads and writes

metadata = sa.MetaData()
certificates = sa.Table(
    "certificates",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
    sa.Column("sha256", sa.Text, nullable=False, unique=True),  # of the body: uploads are idempotent
    sa.Column("received_at", sa.Text, nullable=False),  # ISO 8601, UTC
    sa.Column("model_sha256", sa.Text, nullable=False),
    sa.Column("backend", sa.Text, nullable=False),
    sa.Column("passed", sa.Integer, nullable=False),
    sa.Column("body", sa.Text, nullable=False),  # the certificate, canonical strict JSON
    sa.Column("row_version", sa.Integer, nullable=False, server_default="1"),
    sa.Column("client", sa.Text),
    sa.Column("user_agent", sa.Text),
    sa.Column("device", sa.Text),
    sa.Column("summary", sa.Text),
    sqlite_autoincrement=True,
)
