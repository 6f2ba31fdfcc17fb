"""Schema 1: the certificates table as the first server wrote it.

PRAGMA user_version 1 on SQLite, as that server recorded it.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "certificates",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("sha256", sa.Text, nullable=False, unique=True),
        sa.Column("received_at", sa.Text, nullable=False),
        sa.Column("model_sha256", sa.Text, nullable=False),
        sa.Column("backend", sa.Text, nullable=False),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    if op.get_context().dialect.name == "sqlite":  # what an older server reads as the schema version
        op.execute("PRAGMA user_version = 1")
