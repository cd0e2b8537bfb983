"""The reference memory service of memorywire: ``memorywire.v1.MemoryService``
over gRPC on an embedded SQLite store, or on a PostgreSQL database that
several service processes may share.

- :mod:`memorywire.service.storage`: the storage interface, which the
  operations, search and watch use, with no SQL crossing it;
- :mod:`memorywire.service.store`: the SQLite store that implements it, its
  schema and transactions;
- :mod:`memorywire.service.postgres`: the PostgreSQL store (the
  ``postgresql`` extra), for replicas on one database;
- :mod:`memorywire.service.stores_common`: what the two stores do alike
  beside their SQL (numbering, the bookkeeping of writes, selections as
  conditions, warming and housekeeping);
- :mod:`memorywire.service.stores`: which store a name opens (``open_store``);
- :mod:`memorywire.service.registry`: the list of operations, with their
  message types, streaming, whether they write and their handlers;
- :mod:`memorywire.service.context`: the context of one call (``Call``);
- :mod:`memorywire.service.operations`: the semantics of the operations, one
  module per chapter of operations.md, gathered in ``Service``;
- :mod:`memorywire.service.filters`: the filter language;
- :mod:`memorywire.service.search`: full text, vectors and their fusion;
- :mod:`memorywire.service.vectors`: exact vector ranking without native code;
- :mod:`memorywire.service.watch`: the change log, cursors and consumer offsets;
- :mod:`memorywire.service.server`: the gRPC binding and ``memorywire serve``
  (also ``python -m memorywire.service``);
- :mod:`memorywire.service.process`: ``memorywire serve`` as a process of its
  own on loopback, for tests, benchmarks and demonstrations.

Example::

    from memorywire.service import MemoryServer
    with MemoryServer("memories.sqlite3", "127.0.0.1:50051") as server:
        server.wait()
"""

from __future__ import annotations

from typing import Any

__all__ = ["Call", "MemoryServer", "PostgresStore", "Service", "ServiceError", "Store", "main", "open_store"]

_WHERE = {
    "Call": "memorywire.service.context",
    "Service": "memorywire.service.operations",
    "ServiceError": "memorywire.service.errors",
    "Store": "memorywire.service.store",
    "PostgresStore": "memorywire.service.postgres",
    "open_store": "memorywire.service.stores",
    "MemoryServer": "memorywire.service.server",
    "main": "memorywire.service.server",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memorywire.service' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
