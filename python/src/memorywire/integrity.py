"""The integrity block of an Export (operations.md section 17.1): a SHA-256
over the records in the order sent, each in its canonical Protocol Buffers
encoding preceded by its length as a varint.

The service computes it as it sends (``ExportDigest.add_framed``); a reader
computes it as it reads (``ExportDigest.add``) and compares with
:func:`check`: ``memorywire verify`` on a saved export, and
``Client.export(integrity=True)`` on a live one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memorywire import protobuf
from memorywire._compiled import varint
from memorywire.errors import ValidationError, violation

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = ["ExportDigest", "check"]

#: The pointer of the block inside an ExportResponse.
POINTER = "/integrity"


class ExportDigest:
    """The running digest and count of the records of one export."""

    def __init__(self) -> None:
        self._sha256 = hashlib.sha256()
        self._encoder: protobuf.Encoder | None = None
        #: The number of records added.
        self.records = 0

    def add_framed(self, framed: bytes) -> None:
        """Add one record given as its canonical encoding preceded by its
        length as a varint."""
        self._sha256.update(framed)
        self.records += 1

    def add(self, record: Mapping[str, Any]) -> None:
        """Add one record as read: a record nested in a response, which
        carries no ``specversion``, valid as the reader checked it."""
        if self._encoder is None:
            self._encoder = protobuf.Encoder("memorywire.v1.MemoryRecord")
        data = self._encoder.encode_valid(record)
        self.add_framed(varint(len(data)) + data)

    @property
    def digest(self) -> str:
        """``sha256:`` and the lowercase hexadecimal digest."""
        return "sha256:" + self._sha256.hexdigest()

    def block(self) -> dict[str, Any]:
        """The integrity block of the records added, unsigned."""
        return {"records": self.records, "digest": self.digest}


def check(block: Mapping[str, Any] | None, digest: ExportDigest,
          public_key: Ed25519PublicKey | None = None) -> ValidationError | None:
    """None when ``block`` is the integrity block of the records added to
    ``digest`` (and, with a public key, signed by it); otherwise the error
    that names the member at fault: REQUIRED_FIELD_MISSING when there is no
    block, the errors of :func:`memorywire.signing.check`, DIGEST_MISMATCH
    at ``/integrity/records`` for another count of records and at
    ``/integrity/digest`` for another digest."""
    if block is None:
        return violation("REQUIRED_FIELD_MISSING", POINTER,
                         "the export has no integrity block: it was not asked for, or its last "
                         "message is missing")
    if public_key is not None:
        from memorywire import signing

        fault = signing.check(block, public_key)
        if fault is not None:
            return fault
    if block.get("records", 0) != digest.records:
        return violation("DIGEST_MISMATCH", POINTER + "/records",
                         f"{digest.records} records were read, the integrity block says "
                         f"{block.get('records', 0)}")
    if block.get("digest") != digest.digest:
        return violation("DIGEST_MISMATCH", POINTER + "/digest",
                         f"the records read give {digest.digest}, the integrity block says "
                         f"{block.get('digest')}")
    return None
