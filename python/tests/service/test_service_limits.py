"""Responses stay within max_document_bytes (grpc-binding.md section 2.3):
History and Search shorten a page and continue at its next_cursor
(operations.md section 4.5); Get, which has no pages, fails with
DOCUMENT_TOO_LARGE."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from service_helpers import fact, fails

import memorywire.protobuf
from memorywire.client import Client
from memorywire.limits import Limits
from memorywire.service import MemoryServer, Service, ServiceError, Store
from memorywire.service.operations import Call

LIMIT = 64 * 1024
_ops = itertools.count()


def request(**fields: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "operation_id": f"op-{next(_ops)}", **fields}


def big(id: str, kib: int, word: str = "window") -> dict[str, Any]:
    """A fact of about kib KiB of text."""
    return fact(id, f"{word} " + "x" * (kib * 1024))


class Pair:
    """Two services on one store: one that writes with the default limits,
    one that answers within a small max_document_bytes."""

    def __init__(self) -> None:
        self.store = Store(":memory:")
        self.writer = Service(self.store)
        self.small = Service(self.store, limits=Limits(max_document_bytes=LIMIT), strict=True)

    def put(self, *records: dict[str, Any]) -> None:
        self.writer.put(Call("t"), request(items=[{"record": x} for x in records]))

    def call(self, method: str, **fields: Any) -> dict[str, Any]:
        data = getattr(self.small, method.lower())(Call("t"), request(**fields))
        assert len(data) <= LIMIT
        return memorywire.protobuf.decode(data, type=f"memorywire.v1.{method}Response")

    def pages(self, method: str, **fields: Any) -> Iterator[dict[str, Any]]:
        cursor = None
        while True:
            out = self.call(method, cursor=cursor, **fields) if cursor else self.call(method, **fields)
            yield out
            cursor = out.get("next_cursor")
            if cursor is None:
                return


@pytest.fixture
def pair() -> Iterator[Pair]:
    p = Pair()
    yield p
    p.store.close()


def test_history_pages_are_shortened_to_fit(pair: Pair) -> None:
    pair.put(*[big(f"r{i:02d}", 10) for i in range(20)])
    pages = list(pair.pages("History", limit=100))
    sizes = [len(p["records"]) for p in pages]
    assert len(pages) > 1 and max(sizes) <= 6  # 64 KiB hold six records of 10 KiB
    assert [x["id"] for p in pages for x in p["records"]] == [f"r{i:02d}" for i in range(20)]
    # newest first, the same way
    pages = list(pair.pages("History", limit=100, order="descending"))
    assert [x["id"] for p in pages for x in p["records"]] == [f"r{i:02d}" for i in range(19, -1, -1)]
    # a page that fits is not shortened
    out = pair.call("History", limit=3)
    assert len(out["records"]) == 3 and "next_cursor" in out


@pytest.mark.parametrize("query", [{}, {"text": "window"}, {"touch": True}])
def test_search_pages_are_shortened_to_fit(pair: Pair, query: dict[str, Any]) -> None:
    pair.put(*[big(f"r{i:02d}", 10) for i in range(20)])
    pages = list(pair.pages("Search", limit=100, **query))
    assert len(pages) > 1 and max(len(p["hits"]) for p in pages) <= 6
    hits = [h for p in pages for h in p["hits"]]
    assert sorted(h["record"]["id"] for h in hits) == [f"r{i:02d}" for i in range(20)]
    keys = [(-h.get("score", 0.0), h["record"]["sequence"]) for h in hits]
    assert keys == sorted(keys)
    if query.get("touch"):
        # every hit sent was touched once, and no other record
        assert all(h["record"]["lifecycle"]["access_count"] == 1 for h in hits)
        out = pair.call("Get", ids=[f"r{i:02d}" for i in range(20)][:5])
        assert all(x["lifecycle"]["access_count"] == 1 for x in out["records"])


def test_a_result_larger_than_a_response_fails(pair: Pair) -> None:
    pair.put(big("small", 1), big("huge", 100))
    out = pair.call("History", limit=10)  # the page stops before the record that cannot fit
    assert [x["id"] for x in out["records"]] == ["small"] and "next_cursor" in out
    with pytest.raises(ServiceError) as e:
        pair.call("History", limit=10, cursor=out["next_cursor"])
    assert (e.value.reason, e.value.code) == ("DOCUMENT_TOO_LARGE", "RESOURCE_EXHAUSTED")
    out = pair.call("Search", text="window", limit=10)  # the shorter text ranks first
    assert [h["record"]["id"] for h in out["hits"]] == ["small"] and "next_cursor" in out
    with pytest.raises(ServiceError) as e:
        pair.call("Search", text="window", limit=10, cursor=out["next_cursor"])
    assert e.value.reason == "DOCUMENT_TOO_LARGE"


def test_get_fails_when_the_records_do_not_fit(pair: Pair) -> None:
    pair.put(*[big(f"r{i}", 10) for i in range(10)])
    ids = [f"r{i}" for i in range(10)]
    assert len(pair.call("Get", ids=ids[:5])["records"]) == 5
    for touch in (False, True):
        with pytest.raises(ServiceError) as e:
            pair.call("Get", ids=ids, touch=touch)
        assert (e.value.reason, e.value.code) == ("DOCUMENT_TOO_LARGE", "RESOURCE_EXHAUSTED")
    # the failed Get with touch counted no access
    assert all("lifecycle" not in x for x in pair.call("Get", ids=ids[:5])["records"])


def test_pages_within_the_limit_over_grpc() -> None:
    server = MemoryServer(":memory:", "127.0.0.1:0", limits=Limits(max_document_bytes=LIMIT),
                          strict=True, log=None)
    server.start()
    try:
        with Client(f"127.0.0.1:{server.port}", tenant="t", timeout=30) as mw:
            for i in range(0, 12, 4):
                mw.put([big(f"r{j:02d}", 10) for j in range(i, i + 4)])
            seen, cursor, pages = [], None, 0
            while True:
                out = mw.history(limit=100, cursor=cursor)
                seen += [x["id"] for x in out["records"]]
                pages += 1
                cursor = out.get("next_cursor")
                if cursor is None:
                    break
            assert seen == [f"r{j:02d}" for j in range(12)] and pages > 1
            out = mw.search("window", limit=100)
            assert 0 < len(out["hits"]) < 12 and "next_cursor" in out
            fails("DOCUMENT_TOO_LARGE", lambda: mw.get([f"r{j:02d}" for j in range(12)]))
    finally:
        server.stop(grace=1.0)
