"""Alembic's entry for the club's schema: runs the revisions on the URL the club gives it."""

from alembic import context
from sqlalchemy import create_engine, pool

engine = create_engine(context.config.get_main_option("sqlalchemy.url"), poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
