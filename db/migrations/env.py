"""Alembic environment: async engine from $DATABASE_URL, or a connection handed over by
db.Store.migrate (config.attributes["connection"]) when the bot upgrades on start."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig
from typing import Any

from alembic import context
from sqlalchemy.pool import NullPool

from db.config import async_url, database_url, make_engine
from db.models import Base

config = context.config
target_metadata = Base.metadata


def _configure(**kwargs: Any) -> None:
    context.configure(target_metadata=target_metadata, compare_type=True,
                      # SQLite alters tables by copying them; batch mode does that for us.
                      render_as_batch=True, **kwargs)


def run_on(connection: Any) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_async() -> None:
    engine = make_engine(config.get_main_option("sqlalchemy.url") or None, patient=True,
                         poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_on)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    _configure(url=async_url(config.get_main_option("sqlalchemy.url") or database_url()),
               literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
elif (shared := config.attributes.get("connection")) is not None:
    run_on(shared)
else:
    if config.config_file_name is not None:
        fileConfig(config.config_file_name, disable_existing_loggers=False)
    asyncio.run(run_async())
