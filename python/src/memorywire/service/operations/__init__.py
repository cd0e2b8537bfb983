"""The semantics of every operation (spec/v1/operations.md), on a store
(:class:`~memorywire.service.storage.Storage`).

A ``Service`` takes requests that the codec has read and checked (documents
in their JSON form) and answers with the canonical Protobuf bytes of the
response, so that the binding sends them as they are and a replayed mutating
request gets the very bytes of the first response. Failures raise
ServiceError (or the codec's MemorywireError).

One module per chapter of operations.md holds the operations it describes,
as a class whose methods are the handlers the registry names:
:mod:`.capabilities`, :mod:`.put`, :mod:`.get`, :mod:`.history`,
:mod:`.search`, :mod:`.update`, :mod:`.delete`, :mod:`.expire`,
:mod:`.merge`, :mod:`.compact`, :mod:`.review`, :mod:`.watch` (Watch and
CommitOffset), :mod:`.export_import` and :mod:`.erase`. :mod:`.common` holds what they
share: documents, checks, the transaction of a mutating operation, and the
writing of records. ``Service`` gathers them.
"""

from __future__ import annotations

from memorywire._version import SPECVERSION as SPECVERSION
from memorywire.service.context import Call
from memorywire.service.operations.capabilities import Capabilities
from memorywire.service.operations.common import (
    BINARY_VECTORS,
    FEATURES,
    IMPLEMENTATION,
    MUTATING,
    OPERATIONS,
    error_document,
    lower_claims,
    request_type,
    response_type,
)
from memorywire.service.operations.compact import Compact
from memorywire.service.operations.delete import Delete
from memorywire.service.operations.erase import Erase
from memorywire.service.operations.expire import Expire
from memorywire.service.operations.export_import import (
    EXPORT_BATCH_BYTES,
    IMPORT_SPOOL_BYTES,
    MAX_IMPORT_RECORDS,
    ExportAndImport,
    ImportStream,
)
from memorywire.service.operations.get import Get
from memorywire.service.operations.history import History
from memorywire.service.operations.merge import Merge
from memorywire.service.operations.put import Put
from memorywire.service.operations.review import Review
from memorywire.service.operations.search import Search
from memorywire.service.operations.update import Update
from memorywire.service.operations.watch import WatchAndOffsets

__all__ = ["BINARY_VECTORS", "EXPORT_BATCH_BYTES", "FEATURES", "IMPLEMENTATION", "IMPORT_SPOOL_BYTES",
           "MAX_IMPORT_RECORDS", "MUTATING", "OPERATIONS", "SPECVERSION", "Call", "ImportStream", "Service",
           "error_document", "lower_claims", "request_type", "response_type"]


class Service(Capabilities, Put, Get, History, Search, Update, Delete, Expire, Merge, Compact, Review,
              WatchAndOffsets, ExportAndImport, Erase):
    """The operations of memorywire on a store."""
