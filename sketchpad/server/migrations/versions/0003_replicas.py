"""Schema 3: each row's headline, and an index for the per-model listing.

The summary column lets a page of the registry's listing be read without any certificate
body; the index serves the per-model listing, newest first.  PRAGMA user_version 3 on SQLite.
Rows of formats 1 and 2 keep summary NULL: the server reads their headline from the body.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "summary" not in {c["name"] for c in inspector.get_columns("certificates")}:
        op.add_column("certificates", sa.Column("summary", sa.Text))
    if "ix_certificates_model_id" not in {i["name"] for i in inspector.get_indexes("certificates")}:
        op.create_index("ix_certificates_model_id", "certificates", ["model_sha256", "id"])
    if op.get_context().dialect.name == "sqlite":
        op.execute("PRAGMA user_version = 3")
