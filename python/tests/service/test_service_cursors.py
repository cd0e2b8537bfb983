"""Paging cursors expire (operations.md section 4.5): a History or Search
cursor older than the service's page_cursor_ttl is CURSOR_EXPIRED; a cursor
whose MAC fails is INVALID_CURSOR, however old. The clock is injected, so
nothing sleeps."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
from service_helpers import fact, fails, message

from memorywire.client import Client
from memorywire.service import cursors
from memorywire.service.server import MemoryServer

START = 1_800_000_000.25
HOUR = 3600


class Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _client(clock: Clock, ttl: float | None) -> Iterator[Client]:
    server = MemoryServer(":memory:", "127.0.0.1:0", page_cursor_ttl=ttl, clock=clock, log=None)
    port = server.start()
    try:
        with Client(f"127.0.0.1:{port}", tenant="acme", timeout=10) as mw:
            mw.put([message(f"m{i}", "user", f"message {i}") for i in range(4)])
            mw.put([fact(f"f{i}", f"coffee fact {i}") for i in range(4)])
            yield mw
    finally:
        server.stop(grace=0.5)


@pytest.fixture
def mw(clock: Clock) -> Iterator[Client]:
    yield from _client(clock, HOUR)


def _expired(call: object) -> None:
    e = fails("CURSOR_EXPIRED", call, "/cursor")  # type: ignore[arg-type]
    assert e.code == "OUT_OF_RANGE"


def _tampered(cursor: str) -> str:
    """The cursor with one bit of its time of issue changed: the MAC fails."""
    raw = bytearray(base64.urlsafe_b64decode(cursor[3:] + "=" * (-len(cursor[3:]) % 4)))
    raw[23] ^= 1
    return cursor[:3] + base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode("ascii")


def test_history_cursor_expires(mw: Client, clock: Clock) -> None:
    first = mw.history(kinds=["message"], limit=1)
    assert [r["id"] for r in first["records"]] == ["m0"]
    # Valid for the whole hour, to the second.
    clock.now += HOUR
    second = mw.history(kinds=["message"], limit=1, cursor=first["next_cursor"])
    assert [r["id"] for r in second["records"]] == ["m1"]
    # Then expired; the cursor issued an hour later is still valid.
    clock.now += 1
    _expired(lambda: mw.history(kinds=["message"], limit=1, cursor=first["next_cursor"]))
    third = mw.history(kinds=["message"], limit=2, cursor=second["next_cursor"])
    assert [r["id"] for r in third["records"]] == ["m2", "m3"]
    assert "next_cursor" not in third
    # An expired cursor used with another request, or changed, is INVALID_CURSOR.
    fails("INVALID_CURSOR", lambda: mw.history(limit=1, cursor=first["next_cursor"]), "/cursor")
    fails("INVALID_CURSOR", lambda: mw.history(kinds=["message"], limit=1,
                                               cursor=_tampered(first["next_cursor"])), "/cursor")


def test_search_cursor_expires(mw: Client, clock: Clock) -> None:
    first = mw.search("coffee", limit=2)
    assert len(first["hits"]) == 2
    clock.now += HOUR
    second = mw.search("coffee", limit=2, cursor=first["next_cursor"])
    assert len(second["hits"]) == 2
    assert {h["record"]["id"] for h in first["hits"] + second["hits"]} == {f"f{i}" for i in range(4)}
    clock.now += 1
    _expired(lambda: mw.search("coffee", limit=2, cursor=first["next_cursor"]))
    fails("INVALID_CURSOR", lambda: mw.search("tea", limit=2, cursor=first["next_cursor"]), "/cursor")
    fails("INVALID_CURSOR", lambda: mw.search("coffee", limit=2, cursor=_tampered(first["next_cursor"])),
          "/cursor")
    # A plain Search (no text, no vector) pages the same way.
    plain = mw.search(limit=3)
    clock.now += HOUR + 1
    _expired(lambda: mw.search(limit=3, cursor=plain["next_cursor"]))


def test_a_cursor_dated_ahead_of_the_clock_expires(mw: Client, clock: Clock) -> None:
    """A clock set back a little leaves cursors valid; one set back more
    (the cursors were issued while it ran fast) expires them, or they would
    live until the clock caught up."""
    first = mw.history(limit=1)
    clock.now -= cursors.CLOCK_SKEW - 1
    assert [r["id"] for r in mw.history(limit=1, cursor=first["next_cursor"])["records"]] == ["m1"]
    clock.now -= 10 * HOUR
    _expired(lambda: mw.history(limit=1, cursor=first["next_cursor"]))


def test_a_cursor_is_exactly_the_text_issued(mw: Client) -> None:
    """Text that decodes to a cursor's bytes but is not the text the service
    issued (characters outside the alphabet, padding, other unused bits in
    the last character) is a string the service did not issue."""
    cursor = mw.history(limit=1)["next_cursor"]
    prefix, body = cursor[:3], cursor[3:]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(body[-1])
    unused = len(body) * 6 - len(body) * 6 // 8 * 8  # bits of the last character that carry nothing
    same_bytes = [c for c in alphabet if c != body[-1] and alphabet.index(c) >> unused == last >> unused]
    assert same_bytes
    for variant in (prefix + body[:5] + "!*" + body[5:], cursor + "==", prefix + body[:-1] + same_bytes[0]):
        fails("INVALID_CURSOR", lambda v=variant: mw.history(limit=1, cursor=v), "/cursor")  # type: ignore[misc]


def test_cursors_without_ttl_never_expire(clock: Clock) -> None:
    for mw in _client(clock, None):
        first = mw.history(limit=1)
        clock.now += 100 * 365 * 24 * HOUR
        assert [r["id"] for r in mw.history(limit=1, cursor=first["next_cursor"])["records"]] == ["m1"]


def test_default_ttl_is_a_day(clock: Clock) -> None:
    server = MemoryServer(":memory:", "127.0.0.1:0", clock=clock, log=None)
    try:
        assert server.service.paging.ttl == cursors.DEFAULT_PAGE_TTL == 24 * HOUR
    finally:
        server.store.close()


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf")])
def test_ttl_is_positive(ttl: float) -> None:
    with pytest.raises(ValueError, match="positive number of seconds"):
        cursors.Paging(ttl)


def test_cursor_codec(clock: Clock) -> None:
    paging = cursors.Paging(HOUR, clock)
    secret, digest = b"k" * 32, b"d" * 32
    cursor = cursors.encode_page(secret, "acme", digest, 1.5, 42, paging)
    assert cursors.decode_page(secret, "acme", digest, cursor, paging) == (1.5, 42)
    # The time of issue is rounded up: a cursor is valid for at least the TTL.
    clock.now = START + HOUR + 0.75
    assert cursors.decode_page(secret, "acme", digest, cursor, paging) == (1.5, 42)
    clock.now = START + HOUR + 0.76
    fails("CURSOR_EXPIRED", lambda: cursors.decode_page(secret, "acme", digest, cursor, paging))
    # The MAC is checked first: another secret, tenant or request is INVALID_CURSOR.
    for args in ((b"x" * 32, "acme", digest), (secret, "globex", digest), (secret, "acme", b"e" * 32)):
        fails("INVALID_CURSOR", lambda: cursors.decode_page(*args, cursor, paging))  # noqa: B023
    # Every cursor is as long as every other: responses are sized with one.
    assert len(cursors.encode_page(secret, "acme", digest, -0.0, 2**64 - 1, paging)) == len(cursor)
