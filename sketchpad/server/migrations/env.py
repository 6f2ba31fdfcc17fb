"""Alembic's environment for the registry: migrations run on the connection that the server
hands over (sketchpad/server/migrate.py), inside its transaction; there is no alembic.ini."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection)
with context.begin_transaction():
    context.run_migrations()
