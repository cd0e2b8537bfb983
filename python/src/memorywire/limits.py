"""Resource limits of the codec, with the defaults of spec/v1/security.md, section 4."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Limits a reader enforces before and while it decodes a document.

    Every limit can be changed; the defaults are those the specification
    states. A document that exceeds one fails with a LimitError whose code is
    RESOURCE_EXHAUSTED.
    """

    #: The greatest size of one encoded document, in bytes.
    max_document_bytes: int = 16 * 1024 * 1024
    #: The greatest nesting depth; the top-level object is depth 1. At 32, a
    #: document is at most 95 Protobuf messages deep, within the default
    #: recursion limit (100) of stock Protobuf parsers (security.md, section 4).
    max_depth: int = 32
    #: The greatest length of one string, in bytes of UTF-8.
    max_string_bytes: int = 1024 * 1024
    #: The greatest number of elements of one list or entries of one map.
    max_items: int = 100_000
    #: The greatest number of dimensions of one embedding.
    max_dimensions: int = 65_536
    #: The greatest number of records in one batch.
    max_batch_records: int = 1000


DEFAULT_LIMITS = Limits()

#: The least and the greatest value of each limit that the reference
#: implementation can honour where a person sets it (the ``memorywire``
#: command): a Protobuf message has at most 2^31-1 bytes, the JSON reader
#: nests at most 1024 levels, and the ``(rules)`` cap batches at 1000 records
#: and vectors at 65536 values (spec/v1/security.md, section 4).
BOUNDS: dict[str, tuple[int, int]] = {
    "max_document_bytes": (1, 2**31 - 1),
    "max_depth": (1, 1024),
    "max_string_bytes": (1, 2**31 - 1),
    "max_items": (1, 2**31 - 1),
    "max_dimensions": (1, 65_536),
    "max_batch_records": (1, 1000),
}
