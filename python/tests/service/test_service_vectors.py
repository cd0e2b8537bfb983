"""The quantized vector index ranks exactly as comparing every record does
(operations.md section 9.2), and stays in step with writes."""

from __future__ import annotations

import random
from array import array
from typing import Any

import pytest

import memorywire.protobuf
from memorywire.service import Service, Store
from memorywire.service.operations import Call
from memorywire.service.vectors import quantize, scale_of

DIMS = 24


def _vec(rng: random.Random, dims: int = DIMS) -> list[float]:
    return [rng.gauss(0.0, 1.0) for _ in range(dims)]


def _put(svc: Service, records: list[dict[str, Any]], op: str) -> None:
    for i in range(0, len(records), 500):
        svc.put(Call("t"), {"specversion": "1.0", "operation_id": f"{op}-{i}",
                            "items": [{"record": x} for x in records[i:i + 500]]})


def _search(svc: Service, **req: Any) -> list[tuple[str, float]]:
    data = svc.search(Call("t"), {"specversion": "1.0", "operation_id": "s", **req})
    out = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse")
    return [(h["record"]["id"], h.get("score", 0.0)) for h in out.get("hits", [])]


@pytest.fixture(scope="module")
def pair() -> Any:
    rng = random.Random(7)
    base = [_vec(rng) for _ in range(40)]
    records = []
    for i in range(1500):
        v = base[i % 40] if i % 7 == 0 else _vec(rng)  # exact duplicates make ties
        embeddings = [{"model": "m", "dimensions": DIMS, "values": v}]
        if i % 11 == 0:
            embeddings.append({"model": "m", "dimensions": DIMS, "values": _vec(rng)})
        if i % 13 == 0:
            embeddings.append({"model": "other", "dimensions": DIMS, "values": _vec(rng)})
        records.append({"id": f"r{i}", "kind": "fact",
                        "fact": {"text": f"note {i} " + ("alpha " if i % 3 == 0 else "beta ")},
                        "scope": {"user": f"u{i % 4}"}, "embeddings": embeddings,
                        "lifecycle": {"status": "archived"} if i % 17 == 0 else {"importance": i / 1500}})
    quantized = Service(Store(":memory:", vector_exact_threshold=0))
    exact = Service(Store(":memory:", vector_exact_threshold=10**9))
    for svc in (quantized, exact):
        _put(svc, records, "load")
    yield quantized, exact, rng
    for svc in (quantized, exact):
        svc.store.close()


@pytest.mark.parametrize("extra", [
    {},
    {"limit": 100},
    {"include_archived": True, "limit": 50},
    {"scope": {"user": "u1"}, "limit": 30},
    {"filter": {"compare": {"field": "/lifecycle/importance", "operator": "lt", "value": 0.5}}, "limit": 40},
    {"min_score": 0.3, "limit": 1000},
    {"text": "alpha", "limit": 60},
    {"text": "alpha", "fusion": {"method": "weighted", "text_weight": 0.3}, "limit": 60},
])
def test_quantized_ranking_equals_exact(pair: Any, extra: dict[str, Any]) -> None:
    quantized, exact, rng = pair
    for _ in range(4):
        q = {"model": "m", "values": _vec(rng)}
        a = _search(quantized, vector=q, **extra)
        b = _search(exact, vector=q, **extra)
        assert a == b
        assert a


def test_ties_and_paging(pair: Any) -> None:
    quantized, exact, _ = pair
    q = {"model": "m", "values": [1.0] * DIMS}
    first = _search(quantized, vector=q, limit=1000)
    paged: list[tuple[str, float]] = []
    cursor = None
    while True:
        req: dict[str, Any] = {"vector": q, "limit": 97}
        if cursor:
            req["cursor"] = cursor
        data = quantized.search(Call("t"), {"specversion": "1.0", "operation_id": "p", **req})
        out = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse")
        paged += [(h["record"]["id"], h.get("score", 0.0)) for h in out.get("hits", [])]
        cursor = out.get("next_cursor")
        if not cursor:
            break
    assert len(paged) > 1000
    assert paged[:1000] == first == _search(exact, vector=q, limit=1000)
    scores = [s for _, s in first]
    assert scores == sorted(scores, reverse=True)


def test_index_follows_writes(pair: Any) -> None:
    quantized, exact, rng = pair
    q = list(array("f", _vec(rng)))  # binary32 values, as a request carries them
    changes = [{"id": "r3", "kind": "fact", "fact": {"text": "moved"},
                "embeddings": [{"model": "m", "dimensions": DIMS, "values": q}]},
               {"id": "new", "kind": "fact", "fact": {"text": "new"},
                "embeddings": [{"model": "m", "dimensions": DIMS, "values": [-x for x in q]}]}]
    for svc in (quantized, exact):
        _put(svc, changes, "change")
        svc.delete(Call("t"), {"specversion": "1.0", "operation_id": "del", "ids": ["r6", "r9"],
                               "mode": "hard"})
        svc.update(Call("t"), {"specversion": "1.0", "operation_id": "arch", "id": "r12",
                               "patch": {"lifecycle": {"status": "archived"}}})
    a = _search(quantized, vector={"model": "m", "values": q}, limit=1500)
    assert a == _search(exact, vector={"model": "m", "values": q}, limit=1500)
    assert a[0] == ("r3", 1.0)
    ids = [x for x, _ in a]
    assert "r6" not in ids and "r12" not in ids and ids[-1] == "new"


def test_quantization_bounds() -> None:
    rng = random.Random(3)
    for dims in (1, 3, 384, 1536, 65536):
        big_m = scale_of(dims)
        assert dims * (2 * big_m) ** 2 < 2**32
        v = _vec(rng, dims)
        q = quantize(v)
        assert q is not None and len(q[0]) == 4 * dims
    assert quantize([0.0, -0.0]) is None
