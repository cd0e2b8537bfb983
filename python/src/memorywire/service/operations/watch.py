"""Watch and CommitOffset (operations.md section 16): the requests; the
change log, cursors and offsets are :mod:`memorywire.service.watch`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import memorywire
import memorywire.protobuf
from memorywire.service import cursors, watch
from memorywire.service.context import Call
from memorywire.service.operations.common import Base, response_type
from memorywire.service.storage import TenantState, Transaction


class WatchAndOffsets(Base):
    """The operations of this chapter; the registry names their handlers, ``watch`` and ``commit_offset``."""

    def watch(self, call: Call, req: Mapping[str, Any]) -> Iterator[bytes]:
        assert call.tenant is not None
        pred = self.compile_filter(req)
        self.check_tenant(call.tenant, req)
        stream = watch.open_stream(self.store, call, req, pred)
        enc = memorywire.protobuf.Encoder(response_type("Watch"), limits=self.limits)
        encode = enc.encode if self.strict else enc.encode_valid

        def frames() -> Iterator[bytes]:
            for event in stream:
                yield encode(self.envelope(req, event=event))

        return frames()

    def commit_offset(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        self.check_tenant(call.tenant, req)
        position = cursors.decode_position(self.store.secret, call.tenant, req["cursor"])

        def perform(tx: Transaction, t: TenantState) -> dict[str, Any]:
            watch.commit(tx, t, req["consumer"], position, req["cursor"])
            return self.envelope(req, cursor=req["cursor"])

        return self.mutate("CommitOffset", call, req, perform)

