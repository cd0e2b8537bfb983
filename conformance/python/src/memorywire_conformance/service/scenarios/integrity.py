"""The integrity block of an Export."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from memorywire_conformance.service.framework import Ctx, fact, message, scenario
from memorywire_conformance.service.wire import to_message


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def digest(records: Iterable[Mapping[str, Any]]) -> str:
    """The digest of records (operations.md section 17.1): their canonical
    Protobuf encodings, each preceded by its length, in order."""
    h = hashlib.sha256()
    for record in records:
        data = to_message("memorywire.v1.MemoryRecord", record).SerializeToString(
            deterministic=True)
        h.update(_varint(len(data)) + data)
    return "sha256:" + h.hexdigest()


@scenario("Required.Service.Export.Integrity", "operations.md#17.1", "protobuf-format.md#6",
          needs=("export.integrity",))
def export_integrity(ctx: Ctx) -> None:
    """An Export that asks for integrity ends with a message that carries the
    integrity block and no records: the number of records sent and the
    SHA-256 of their canonical Protobuf encodings, each preceded by its
    length; an Export of nothing is that message alone."""
    ctx.put_ok(fact("f1", "first", tags=["a"]), message("m1", "second"), fact("f2", "third"))
    messages = ctx.mw.export({"integrity": True})
    ctx.check(messages, "the Export sent no message")
    *batches, last = messages
    ctx.check("integrity" in last and not last.get("records"),
              "the last message does not carry the integrity block alone", got=last)
    ctx.check(all("integrity" not in m for m in batches),
              "a message before the last carries an integrity block")
    sent = [r for m in batches for r in m.get("records", [])]
    ctx.eq(len(sent), 3, "the records sent")
    block = last.get("integrity", {})
    ctx.eq((block.get("records", 0), block.get("digest")), (3, digest(sent)), "the integrity block")
    empty = ctx.mw.export({"integrity": True, "scope": {"session": "none-here"}})
    ctx.eq([m.get("integrity") for m in empty], [{"digest": digest([])}],
           "the integrity block of an Export of nothing")
