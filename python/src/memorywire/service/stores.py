"""Which store a name opens: ``open_store``, for the server and
``memorywire serve --store``."""

from __future__ import annotations

from typing import Any

from memorywire import _extras
from memorywire.service.storage import Storage

__all__ = ["is_postgres", "open_store"]


def is_postgres(text: str) -> bool:
    """Whether a store's name is the URL of a PostgreSQL database."""
    return text.startswith(("postgresql://", "postgres://"))


def open_store(text: str, **options: Any) -> Storage:
    """Open the store that ``text`` names: a PostgreSQL database for a
    ``postgresql://`` or ``postgres://`` URL, else a SQLite file (or
    ``:memory:``). ``options``: the keyword options of the store.
    ValueError, in one line that names the store, when it cannot be opened."""
    if is_postgres(text):
        try:
            from memorywire.service.postgres import PostgresStore
        except ImportError as e:
            if _extras.missing(e, "postgresql"):
                raise ValueError(_extras.install_hint("a PostgreSQL store", "postgresql")) from None
            raise
        return PostgresStore(text, **options)
    from memorywire.service.store import Store

    return Store(text, **options)
