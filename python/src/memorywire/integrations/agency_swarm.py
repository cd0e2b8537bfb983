"""Agency Swarm 1.x thread persistence on a memorywire service: the
``load_threads_callback`` and ``save_threads_callback`` of an ``Agency``.

The one-line swap, for a chat::

    threads = MemorywireThreads("127.0.0.1:50051", tenant="acme", chat_id="chat-1")
    agency = Agency(ceo, communication_flows=[ceo > dev],
                    load_threads_callback=threads.load, save_threads_callback=threads.save)

Agency Swarm hands ``save`` its whole flat message list after every change
and takes back from ``load`` the list it gave, in its order. Each message is
one record of the form ``agency_swarm.thread_message``
(spec/v1/adapters/agency-swarm.md section 6) in the scope ``session`` =
chat id (and ``user`` when given), so its ``agent`` and ``callerAgent`` are
``routing.agent`` and ``routing.caller_agent``: the user thread and each
thread between two agents are the threads of History.

Writing is incremental and idempotent. A message's record id is a
name-based UUID of the scope, the message's content and its occurrence among
equal messages, so an unchanged message keeps its record and is not written
again; ``save`` writes the messages that are new since the list it last saw,
and hard-deletes the records of messages that left the list. The order of
the list is the insertion order of the records: when the list is no longer
the stored list with messages removed and others appended (a message changed
in place, or placed before a stored one), the records from the first
difference on are written again, after the earlier ones.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import orjson

import memorywire._extras

try:
    import agency_swarm.utils.thread  # noqa: F401  (the interface implemented here)
except ImportError as _missing:
    if memorywire._extras.missing(_missing, "agency-swarm"):
        raise ImportError(memorywire._extras.install_hint("memorywire.integrations.agency_swarm", "agency-swarm"),
                          name=_missing.name) from _missing
    raise

from memorywire.adapters import FORMS, AdapterError, Ids, canonical_json, to_value
from memorywire.adapters._kit import ID_NAMESPACE, check_scope
from memorywire.adapters.agency_swarm import THREAD_MESSAGE, _encode_message
from memorywire.client import Client
from memorywire.integrations._kit import DEFAULT_RETRY, DEFAULT_TIMEOUT, Retry, call_with_retry, connect, translate

if TYPE_CHECKING:
    import grpc

__all__ = ["MemorywireThreads", "ThreadPersistenceError"]

FORM = FORMS[THREAD_MESSAGE]
#: Records per Put and ids per Delete (the service's own limit is 1000).
BATCH = 500
#: Records per page of History.
PAGE = 1000

Json = dict[str, Any]
Key = tuple[str, int]


class ThreadPersistenceError(OSError):
    """A load or save that the memorywire service refused or could not
    serve; its text carries the memorywire code, reason and message.
    Agency Swarm's ``ThreadManager`` logs it, as it logs the OSError of a
    file-backed callback, and goes on."""


class _Assigned(Ids):
    """The record ids of a save, one per position of the list."""

    def __init__(self, ids: Sequence[str]) -> None:
        self._ids = ids

    def assign(self, position: int, framework_id: Any = None) -> str:
        return self._ids[position]


def _keys(messages: Sequence[Any]) -> list[Key]:
    """Each message's content digest with its occurrence among equal messages."""
    seen: dict[str, int] = {}
    out = []
    for i, m in enumerate(messages):
        digest = hashlib.sha256(orjson.dumps(to_value(m, f"/{i}"), option=orjson.OPT_SORT_KEYS)).hexdigest()
        n = seen.get(digest, 0)
        seen[digest] = n + 1
        out.append((digest, n))
    return out


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


class MemorywireThreads:
    """The thread load and save callbacks of one chat on a memorywire
    service: ``Agency(..., load_threads_callback=threads.load,
    save_threads_callback=threads.save)``.

    ``service`` is a target (``"127.0.0.1:50051"``) or a
    :class:`memorywire.Client` (used as it is and not closed); ``tenant``,
    ``token``, ``credentials`` and ``timeout`` (the deadline of every call,
    in seconds) are the client's. ``chat_id`` is the chat (``scope.session``);
    ``user`` (``scope.user``) narrows it to one end user. A failed call
    raises :class:`ThreadPersistenceError`; a message that has no record form
    raises :class:`memorywire.adapters.AdapterError`.

    One object keeps the list it last loaded or saved, to write only what
    changed; it assumes it is the only writer of its chat (as a file of
    Agency Swarm's own examples does). After a failed save it reads the
    stored list again before the next.
    """

    def __init__(self, service: str | Client, *, chat_id: str, tenant: str | None = None,
                 user: str | None = None, token: str | None = None, credentials: grpc.ChannelCredentials | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT, retry: Retry = DEFAULT_RETRY) -> None:
        if not isinstance(chat_id, str) or not chat_id:
            raise ValueError("chat_id is a non-empty string")
        self.scope: Json = check_scope({"session": chat_id, "user": user})
        self.client, self._owned = connect(service, tenant=tenant, token=token, credentials=credentials,
                                           timeout=timeout)
        self.retry = retry
        self._prefix = f"{THREAD_MESSAGE}\n{canonical_json(self.scope)}\n"
        # What the store holds, as this object last saw it: the record ids in
        # sequence order, and the record id of each message key.
        self._stored: list[str] | None = None
        self._known: dict[Key, str] = {}

    # -- the callbacks ------------------------------------------------------------------------

    def load(self) -> list[Json]:
        """The chat's messages, in the order they were saved; ``[]`` for a
        chat that has none. Records of the chat that are not thread
        messages (a fact, a summary) are left out."""
        with translate(ThreadPersistenceError):
            messages, stored, known = self._read()
        self._stored, self._known = stored, known
        return messages

    def save(self, messages: list[Json]) -> None:
        """Make the stored chat the list ``messages``: write the messages
        that are new or moved, delete the records of those that are gone."""
        keys = _keys(messages)
        try:
            with translate(ThreadPersistenceError):
                if self._stored is None:
                    _, self._stored, self._known = self._read()
                ids = self._write(messages, keys, self._stored)
        except BaseException:
            self._stored = None  # read the store again before the next save
            raise
        self._stored = ids
        self._known = dict(zip(keys, ids, strict=True))

    def close(self) -> None:
        """Close the client, when this object made it."""
        if self._owned:
            self.client.close()

    def __enter__(self) -> MemorywireThreads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the store ----------------------------------------------------------------------------

    def _id(self, key: Key) -> str:
        name = f"{self._prefix}{key[0]}\n{key[1]}"
        return f"urn:uuid:{uuid.uuid5(ID_NAMESPACE, name)}"

    def _records(self) -> Iterator[Json]:
        cursor = None
        while True:
            page = self.client.history(scope=self.scope, cursor=cursor, limit=PAGE)
            yield from page.get("records", [])
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def _read(self) -> tuple[list[Json], list[str], dict[Key, str]]:
        messages: list[Json] = []
        stored: list[str] = []
        single: list[tuple[int, str]] = []  # a record that gives one message: its position
        for record in self._records():
            try:
                items = FORM.from_records([record])
            except AdapterError:
                continue  # not a thread message
            stored.append(record["id"])
            if len(items) == 1:
                single.append((len(messages), record["id"]))
            messages.extend(items)
        keys = _keys(messages)
        return messages, stored, {keys[i]: rid for i, rid in single}

    def _write(self, messages: Sequence[Any], keys: Sequence[Key], stored: Sequence[str]) -> list[str]:
        ids = [self._known.get(k) or self._id(k) for k in keys]
        wanted = set(ids)
        kept = [i for i in stored if i in wanted]
        same = 0
        while same < len(kept) and ids[same] == kept[same]:
            same += 1
        # From the first difference on, every message is written again, as a
        # record of its own after the ones before it.
        ids[same:] = [self._id(k) for k in keys[same:]]
        present = set(stored)
        final = set(ids)
        gone = [i for i in stored if i not in final] + [i for i in ids[same:] if i in present]
        for batch in _chunks(gone, BATCH):
            call_with_retry(self.client.delete, retry=self.retry, ids=list(batch), mode="hard", scope=self.scope)
        assigned = _Assigned(ids)
        records = [_encode_message(messages[i], i, assigned, self.scope) for i in range(same, len(messages))]
        for batch in _chunks(records, BATCH):
            call_with_retry(self.client.put, retry=self.retry, records=list(batch), scope=self.scope, atomic=True)
        return ids

    def __repr__(self) -> str:
        return f"MemorywireThreads(scope={self.scope!r})"

