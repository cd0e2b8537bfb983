"""Watch and offsets (operations.md section 16).

Every change of a tenant is a row of the ``changes`` table at the next
position of the tenant's change order, written in the transaction of the
operation that made it, so that a change is visible exactly when its
operation has committed. A Watch cursor names a position; a stream resumed
from it reads the rows after it, so nothing is missed and nothing repeated.
Consumers' committed offsets are rows of ``offsets``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from memorywire.service import cursors, filters
from memorywire.service import records as r
from memorywire.service.errors import error
from memorywire.service.store import CHANGE_NAMES, Store, TenantState, WriteTx

if TYPE_CHECKING:
    from memorywire.service.context import Call

__all__ = ["commit", "open_stream"]

_BATCH = 256
#: How long a stream with nothing to send waits before it checks whether
#: its caller is still there.
POLL_SECONDS = 0.5


def _expired(pointer: str) -> Exception:
    return error("CURSOR_EXPIRED", "the change this position names is no longer kept; resume with "
                 "from_start or read the scope again", pointer)


def start_position(store: Store, call: Call, req: Mapping[str, Any]) -> int:
    """The position after which a stream starts (section 16.1, Start)."""
    assert call.tenant is not None
    num = store.tenant_num(call.tenant)
    last = store.positions.get(num, 0) if num is not None else 0
    pruned = store.pruned.get(num, 0) if num is not None else 0
    cursor = req.get("cursor")
    if cursor:
        pos = cursors.decode_position(store.secret, call.tenant, cursor)
        if pos > last or pos == 0:
            raise error("INVALID_CURSOR", "the cursor was not issued for this tenant", "/cursor")
        if pos <= pruned:
            raise _expired("/cursor")
        return pos
    consumer = req.get("consumer")
    if consumer and num is not None:
        with store.read() as conn:
            row = conn.execute("SELECT pos FROM offsets WHERE tenant = ? AND consumer = ?",
                               (num, consumer)).fetchone()
        if row is not None:
            if row[0] <= pruned:
                raise _expired("/consumer")
            return int(row[0])
    if req.get("from_start"):
        return pruned
    return last


def open_stream(store: Store, call: Call, req: Mapping[str, Any],
                pred: filters.Predicate | None) -> Iterator[dict[str, Any]]:
    """The ChangeEvent documents of a Watch, as they happen. The start is
    resolved, and its errors raised, before the first event is asked for."""
    assert call.tenant is not None
    tenant = call.tenant
    position = start_position(store, call, req)
    scope = req.get("scope")
    max_events = req.get("max_events", 0)

    def events() -> Iterator[dict[str, Any]]:
        cur = position
        sent = 0
        while call.is_active() and not store.closed:
            num = store.tenant_num(tenant)
            batch: list[tuple[int, int, bytes]] = []
            if num is not None:
                if store.pruned.get(num, 0) > cur:
                    raise _expired("/cursor")
                with store.read() as conn:
                    batch = conn.execute(
                        "SELECT pos, type, doc FROM changes WHERE tenant = ? AND pos > ? "
                        "ORDER BY pos LIMIT ?", (num, cur, _BATCH)).fetchall()
            for pos, kind, doc in batch:
                cur = pos
                record = r.unpack(doc)
                if not r.within(record.get("scope"), scope) or (pred is not None and not pred(record)):
                    continue
                yield {"cursor": cursors.encode_position(store.secret, tenant, pos),
                       "type": CHANGE_NAMES[kind], "record": record}
                sent += 1
                if max_events and sent >= max_events:
                    return
            if len(batch) < _BATCH:
                with store.changed:
                    last = store.positions.get(num, 0) if num is not None else 0
                    if last <= cur and not store.closed and call.is_active():
                        store.changed.wait(POLL_SECONDS)

    return events()


def commit(tx: WriteTx, t: TenantState, consumer: str, position: int, cursor: str) -> None:
    """Store a consumer's committed offset (section 16.2)."""
    if position > t.last_position or position == 0:
        raise error("INVALID_CURSOR", "the cursor was not issued for this tenant", "/cursor")
    tx.conn.execute("INSERT OR REPLACE INTO offsets VALUES (?, ?, ?, ?, ?)",
                    (t.num, consumer, position, cursor, tx.at))
