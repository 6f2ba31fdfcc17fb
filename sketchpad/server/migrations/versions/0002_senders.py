"""Schema 2: who sent each certificate, and each row's format.

The client address, User-Agent and the device as reported; PRAGMA user_version 2 on SQLite.
Columns a hand-migrated database already has are left as they are.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("certificates")}
    for column in (
        sa.Column("row_version", sa.Integer, nullable=False, server_default="1"),
        sa.Column("client", sa.Text),
        sa.Column("user_agent", sa.Text),
        sa.Column("device", sa.Text),
    ):
        if column.name not in have:
            op.add_column("certificates", column)
    if op.get_context().dialect.name == "sqlite":
        op.execute("PRAGMA user_version = 2")
