"""Watch and offsets (operations.md section 16).

Every change of a tenant is appended to its change log at the next
position, in the transaction of the operation that made it, so that a
change is visible exactly when its operation has committed. A Watch cursor
names a position; a stream resumed from it reads the changes after it, so
nothing is missed and nothing repeated. The store keeps consumers' committed
offsets (``Transaction.commit_offset``, ``Reads.offset``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from memorywire.service import cursors, filters
from memorywire.service import records as r
from memorywire.service.errors import error
from memorywire.service.storage import CHANGE_NAMES, Change, Storage, TenantState, Transaction

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


def start_position(store: Storage, call: Call, req: Mapping[str, Any]) -> int:
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
        with store.reader() as reads:
            offset = reads.offset(num, consumer)
        if offset is not None:
            if offset <= pruned:
                raise _expired("/consumer")
            return offset
    if req.get("from_start"):
        return pruned
    return last


def open_stream(store: Storage, call: Call, req: Mapping[str, Any],
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
        # The last position when a read found nothing after cur: a position
        # may hold no change (an erasure takes one), so that a log can end
        # before the tenant's last position, and the stream then waits.
        empty_at = -1
        while call.is_active() and not store.closed:
            num = store.tenant_num(tenant)
            batch: list[Change] = []
            if num is not None:
                if store.pruned.get(num, 0) > cur:
                    raise _expired("/cursor")
                with store.reader() as reads:
                    batch = reads.changes_after(num, cur, _BATCH)
            for pos, kind, record in batch:
                cur = pos
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
                    idle = last <= cur or (not batch and last == empty_at)
                    empty_at = last if not batch else -1
                    if idle and not store.closed and call.is_active():
                        store.changed.wait(POLL_SECONDS)

    return events()


def commit(tx: Transaction, t: TenantState, consumer: str, position: int, cursor: str) -> None:
    """Store a consumer's committed offset (section 16.2)."""
    if position > t.last_position or position == 0:
        raise error("INVALID_CURSOR", "the cursor was not issued for this tenant", "/cursor")
    tx.commit_offset(t, consumer, position, cursor)
