"""Search: the filter language, full text, vectors, fusion, scores and paging."""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from memorywire_conformance.service.framework import Ctx, fact, ids_of, message, scenario


def cmp(field: str, operator: str, value: Any = None) -> dict[str, Any]:
    c: dict[str, Any] = {"field": field, "operator": operator}
    if operator != "exists":
        c["value"] = value
    return {"compare": c}


def _records(ctx: Ctx) -> None:
    """Four records to filter."""
    ctx.put_ok(
        fact("s1", "Alpha", tags=["travel", "food"], created_at="2026-01-01T00:00:00Z",
             lifecycle={"importance": 0.9}, metadata={"source": "crm", "n": 5},
             scope={"user": "u1"}),
        fact("s2", "Beta", tags=["travel"], created_at="2025-06-01T00:00:00Z",
             lifecycle={"importance": 0.5}, metadata={"source": "web", "n": 2.5},
             scope={"user": "u2"}),
        message("s3", "Gamma", agent="Manager", created_at="2024-01-01T00:00:00Z",
                lifecycle={"importance": 0.1},
                routing={"recipients": ["Engineer"], "cause": "write_prd"}),
        fact("s4", "Delta", key="k-delta", created_at="2026-03-01T12:00:00.5Z"),
    )


def _matches(ctx: Ctx, flt: Mapping[str, Any], expected: Sequence[str]) -> None:
    hits = ctx.search(filter=flt, limit=100)
    ctx.eq(ids_of(h.get("record", {}) for h in hits), list(expected),
           f"the ids found by the filter {flt}")


@scenario("Required.Service.Search.FilterEquality", "operations.md#5.4", "operations.md#5.3",
          "operations.md#9")
def filter_equality(ctx: Ctx) -> None:
    """eq, ne and in, on enums, strings and the status, which resolves to
    active when not set; ne holds for an absent field; in of an empty list
    matches nothing."""
    _records(ctx)
    _matches(ctx, cmp("/kind", "eq", "fact"), ["s1", "s2", "s4"])
    _matches(ctx, cmp("/kind", "ne", "fact"), ["s3"])
    _matches(ctx, cmp("/scope/user", "ne", "u1"), ["s2", "s3", "s4"])
    _matches(ctx, cmp("/scope/user", "eq", "u2"), ["s2"])
    _matches(ctx, cmp("/kind", "in", ["message", "episode"]), ["s3"])
    _matches(ctx, cmp("/fact/text", "in", ["Beta", "Delta", "Omega"]), ["s2", "s4"])
    _matches(ctx, cmp("/kind", "in", []), [])
    _matches(ctx, cmp("/lifecycle/status", "eq", "active"), ["s1", "s2", "s3", "s4"])


@scenario("Required.Service.Search.FilterOrdering", "operations.md#5.4", "operations.md#5.3")
def filter_ordering(ctx: Ctx) -> None:
    """gt, gte, lt and lte compare numbers numerically across integers and
    floats, strings by code points and timestamps as instants; an absent
    field never holds."""
    _records(ctx)
    _matches(ctx, cmp("/lifecycle/importance", "gt", 0.5), ["s1"])
    _matches(ctx, cmp("/lifecycle/importance", "gte", 0.5), ["s1", "s2"])
    _matches(ctx, cmp("/lifecycle/importance", "lt", 0.5), ["s3"])
    _matches(ctx, cmp("/lifecycle/importance", "lte", 0.5), ["s2", "s3"])
    _matches(ctx, cmp("/lifecycle/importance", "lt", 1), ["s1", "s2", "s3"])
    _matches(ctx, cmp("/created_at", "gte", "2025-06-01T00:00:00Z"), ["s1", "s2", "s4"])
    _matches(ctx, cmp("/created_at", "gt", "2026-03-01T12:00:00.4999999Z"), ["s4"])
    _matches(ctx, cmp("/created_at", "lt", "2025-06-01T00:00:00.000000001Z"), ["s2", "s3"])
    _matches(ctx, cmp("/fact/text", "lt", "Beta"), ["s1"])
    _matches(ctx, cmp("/fact/text", "gte", "Beta"), ["s2", "s4"])


@scenario("Required.Service.Search.FilterPresence", "operations.md#5.4", "operations.md#5.2")
def filter_presence(ctx: Ctx) -> None:
    """exists holds for present fields (a default is absent), prefix compares
    code points of a string, contains finds an element of a list."""
    _records(ctx)
    _matches(ctx, cmp("/lifecycle/importance", "exists"), ["s1", "s2", "s3"])
    _matches(ctx, cmp("/key", "exists"), ["s4"])
    _matches(ctx, cmp("/routing/agent", "exists"), ["s3"])
    _matches(ctx, cmp("/fact/text", "prefix", "Al"), ["s1"])
    _matches(ctx, cmp("/scope/user", "prefix", "u"), ["s1", "s2"])
    _matches(ctx, cmp("/fact/text", "prefix", ""), ["s1", "s2", "s4"])
    _matches(ctx, cmp("/tags", "contains", "travel"), ["s1", "s2"])
    _matches(ctx, cmp("/tags", "contains", "food"), ["s1"])
    _matches(ctx, cmp("/routing/recipients", "contains", "Engineer"), ["s3"])
    _matches(ctx, cmp("/tags/1", "eq", "food"), ["s1"])


@scenario("Required.Service.Search.FilterLogic", "operations.md#5.1", "operations.md#5.4",
          "operations.md#5.6")
def filter_logic(ctx: Ctx) -> None:
    """all holds when every filter holds, any when one does, not negates (so
    not eq holds for an absent field); they nest."""
    _records(ctx)
    _matches(ctx, {"all": {"filters": [cmp("/kind", "eq", "fact"),
                                       cmp("/tags", "contains", "travel")]}}, ["s1", "s2"])
    _matches(ctx, {"any": {"filters": [cmp("/fact/text", "eq", "Delta"),
                                       cmp("/tags", "contains", "food")]}}, ["s1", "s4"])
    _matches(ctx, {"not": cmp("/scope/user", "eq", "u1")}, ["s2", "s3", "s4"])
    _matches(ctx, {"not": cmp("/lifecycle/importance", "exists")}, ["s4"])
    _matches(ctx, {"all": {"filters": [
        {"any": {"filters": [cmp("/routing/recipients", "contains", "Engineer"),
                             cmp("/routing/recipients", "contains", "*")]}},
        cmp("/routing/cause", "in", ["write_prd", "write_design"])]}}, ["s3"])
    _matches(ctx, {"not": {"any": {"filters": [cmp("/kind", "eq", "message"),
                                               cmp("/key", "exists")]}}}, ["s1", "s2"])


@scenario("Required.Service.Search.FilterDynamicValues", "operations.md#5.3", "operations.md#5.2")
def filter_dynamic(ctx: Ctx) -> None:
    """Fields inside maps of Values compare by their dynamic type: numbers
    numerically across integers and floats, different types never equal."""
    _records(ctx)
    _matches(ctx, cmp("/metadata/source", "eq", "crm"), ["s1"])
    _matches(ctx, cmp("/metadata/n", "gt", 2), ["s1", "s2"])
    _matches(ctx, cmp("/metadata/n", "eq", 5.0), ["s1"])
    _matches(ctx, cmp("/metadata/n", "eq", "5"), [])
    _matches(ctx, cmp("/metadata/n", "ne", "5"), ["s1", "s2", "s3", "s4"])
    _matches(ctx, cmp("/metadata/missing", "exists"), [])


@scenario("Required.Service.Search.FilterErrors", "operations.md#5.5", "operations.md#5.2",
          "operations.md#5.3")
def filter_errors(ctx: Ctx) -> None:
    """A filter is checked before any record is read: a field outside the
    record model is UNKNOWN_FIELD at its field member, an operand of the wrong
    type TYPE_MISMATCH at its value member, with pointers into the request."""
    ctx.expect_error(lambda: ctx.search(filter=cmp("/fact/txt", "eq", "x")),
                     "INVALID_ARGUMENT", "UNKNOWN_FIELD", "/filter/compare/field",
                     what="a filter on /fact/txt")
    ctx.expect_error(lambda: ctx.search(filter=cmp("/fact/text", "prefix", 5)),
                     "INVALID_ARGUMENT", "TYPE_MISMATCH", "/filter/compare/value",
                     what="prefix with a number")
    ctx.expect_error(lambda: ctx.search(filter=cmp("/kind", "gt", "fact")),
                     "INVALID_ARGUMENT", "TYPE_MISMATCH", what="gt on an enum field")
    ctx.expect_error(lambda: ctx.search(filter={"all": {"filters": [
        cmp("/kind", "eq", "fact"), cmp("/lifecycle/importanse", "gt", 0.5)]}}),
        "INVALID_ARGUMENT", "UNKNOWN_FIELD", "/filter/all/filters/1/compare/field",
        what="a nested filter on /lifecycle/importanse")


@scenario("Required.Service.Search.NoQuery", "operations.md#9", "operations.md#9.4")
def no_query(ctx: Ctx) -> None:
    """A Search without text or vector (an empty text is none) returns every
    active candidate in sequence order, each with score 0, at most 10 per page
    by default."""
    ctx.put_ok(fact("c", "3"), fact("a", "1"))
    ctx.put_ok(message("b", "2"))
    requests: list[dict[str, Any]] = [{}, {"text": ""}]
    for request in requests:
        hits = ctx.search(**request)
        ctx.eq(ids_of(h.get("record", {}) for h in hits), ["c", "a", "b"],
               f"the ids of the hits of {request}")
        ctx.eq([h.get("score", 0.0) for h in hits], [0.0, 0.0, 0.0], "the scores")
    ctx.eq(ctx.search(min_score=0.5), [], "the hits with min_score 0.5")
    ctx.put_ok(*[fact(f"f{i:02d}", "x") for i in range(10)])
    page = ctx.call("Search", {})
    ctx.check(len(page.get("hits", [])) <= 10 and page.get("next_cursor"),
              "a page without limit holds more than 10 of 13 results, or no next_cursor",
              got=(len(page.get("hits", [])), page.get("next_cursor")))


@scenario("Required.Service.Search.Paging", "operations.md#9.4", "operations.md#4.5")
def search_paging(ctx: Ctx) -> None:
    """A Search with limit returns at most limit hits per page and
    next_cursor while results follow; the pages hold every result once, in
    order; a made-up cursor is INVALID_CURSOR."""
    ctx.put_ok(*[fact(f"f{i}", f"fact {i}") for i in range(5)])
    pages = ctx.pages("Search", {"limit": 2}, "hits")
    ctx.check(len(pages) >= 3 and all(len(p) <= 2 for p in pages),
              "5 results in pages of at most 2 do not take 3 pages or more of at most 2",
              got=[len(p) for p in pages])
    ctx.eq(ids_of(h.get("record", {}) for p in pages for h in p), [f"f{i}" for i in range(5)],
           "the ids of all pages")
    ctx.expect_error(lambda: ctx.search(cursor="not-a-cursor"), "INVALID_ARGUMENT",
                     "INVALID_CURSOR", "/cursor", what="Search with a made-up cursor")
    cursor = ctx.call("Search", {"limit": 2}).get("next_cursor")
    ctx.expect_error(lambda: ctx.search(cursor=cursor, limit=2, filter=cmp("/kind", "eq", "fact")),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="Search with the cursor of a different request")
    ctx.expect_error(lambda: ctx.call("History", {"cursor": cursor, "limit": 2}),
                     "INVALID_ARGUMENT", "INVALID_CURSOR", "/cursor",
                     what="History with the cursor of a Search")


@scenario("Required.Service.Search.StatusVisibility", "operations.md#4.7.1", "operations.md#9")
def status_visibility(ctx: Ctx) -> None:
    """Search sees active records; archived ones with include_archived; a
    filter on /lifecycle/status alone decides the statuses, tombstones
    included."""
    ctx.put_ok(fact("a", "active"), fact("b", "archived"), fact("c", "deleted"))
    ctx.call("Update", {"id": "b", "patch": {"lifecycle": {"status": "archived"}}})
    ctx.call("Delete", {"ids": ["c"]})

    def found(**request: Any) -> list[str]:
        return ids_of(h.get("record", {}) for h in ctx.search(**request))

    ctx.eq(found(), ["a"], "a Search without filter")
    ctx.eq(found(include_archived=True), ["a", "b"], "a Search with include_archived")
    ctx.eq(found(filter=cmp("/lifecycle/status", "eq", "deleted")), ["c"],
           "a Search for status deleted")
    ctx.eq(found(filter=cmp("/lifecycle/status", "in", ["archived", "deleted"])), ["b", "c"],
           "a Search for status archived or deleted")
    ctx.eq(found(filter=cmp("/lifecycle/status", "ne", "active")), ["b", "c"],
           "a Search for status not active")


# Full text.


@scenario("Required.Service.Search.FullText", "operations.md#9.1", "operations.md#9.4",
          needs=("search.text",))
def full_text(ctx: Ctx) -> None:
    """A text query returns the records whose text matches, message content
    included, each with a text_score greater than 0 that is its score, best
    first; records that do not match are left out."""
    ctx.put_ok(
        fact("t1", "The user prefers window seats on long flights."),
        fact("t2", "Dinner reservations at the Italian place."),
        message("t3", "Please book me a window table."),
        fact("t4", "The weather was sunny."),
    )
    hits = ctx.search(text="window seats")
    found = ids_of(h.get("record", {}) for h in hits)
    ctx.eq(sorted(found), ["t1", "t3"], "the records that match 'window seats'")
    for h in hits:
        score, text_score = h.get("score", 0.0), h.get("text_score")
        ctx.check(text_score is not None and text_score > 0,
                  f"the hit {h.get('record', {}).get('id')} has no text_score > 0", got=h)
        ctx.eq(score, text_score, "the score of a text hit")
        ctx.check("vector_score" not in h, "a text-only hit has a vector_score", got=h)
    _check_order(ctx, hits)


@scenario("Recommended.Service.Search.FullTextRanking", "operations.md#9.1",
          needs=("search.text",))
def full_text_ranking(ctx: Ctx) -> None:
    """The ranking is of the BM25 family: the record that matches more of the
    query's terms ranks first."""
    ctx.put_ok(
        message("t1", "Please book me a window table."),
        fact("t2", "The user prefers window seats on long flights."),
        fact("t3", "Seats in the back row are loud."),
        fact("t4", "The weather was sunny."),
    )
    hits = ctx.search(text="window seats flights")
    ctx.check(hits, "no hit for 'window seats flights'")
    ctx.eq(hits[0].get("record", {}).get("id"), "t2", "the first hit")


def _check_order(ctx: Ctx, hits: Sequence[Mapping[str, Any]]) -> None:
    keys = [(-h.get("score", 0.0), h.get("record", {}).get("sequence", 0)) for h in hits]
    ctx.check(keys == sorted(keys), "the hits are not ordered by score descending, then "
                                    "sequence ascending",
              got=[(h.get("record", {}).get("id"), h.get("score")) for h in hits])


# Vectors.


def f32(values: Sequence[float]) -> list[float]:
    """The values as binary32, widened back to binary64."""
    return list(struct.unpack(f"<{len(values)}f", struct.pack(f"<{len(values)}f", *values)))


def cosine(q: Sequence[float], e: Sequence[float]) -> float:
    q, e = f32(q), f32(e)
    dot = sum(a * b for a, b in zip(q, e, strict=True))
    norm = math.sqrt(sum(a * a for a in q)) * math.sqrt(sum(b * b for b in e))
    return max(-1.0, min(1.0, dot / norm))


def emb(values: Sequence[float], model: str = "test-embed") -> dict[str, Any]:
    return {"model": model, "dimensions": len(values), "values": list(values)}


def close(a: float | None, b: float) -> bool:
    return a is not None and abs(a - b) <= 1e-9


VECTORS = {
    "v1": [1.0, 0.0, 0.0],
    "v2": [0.8, 0.6, 0.0],
    "v3": [0.0, 0.1, 1.0],
    "v4": [-1.0, 0.2, 0.0],
}


def _vector_records(ctx: Ctx) -> None:
    ctx.put_ok(
        fact("v3", "far", embeddings=[emb(VECTORS["v3"])]),
        fact("v1", "nearest", embeddings=[emb([0.0, 0.0, 1.0], "other-model"),
                                          emb(VECTORS["v1"])]),
        fact("v2", "near", embeddings=[emb(VECTORS["v2"])]),
        fact("v4", "opposite", embeddings=[emb(VECTORS["v4"])]),
        fact("x1", "other model", embeddings=[emb([1.0, 0.0, 0.0], "other-model")]),
        fact("x2", "other dimensions", embeddings=[emb([1.0, 0.0])]),
        fact("x3", "no embedding"),
    )


QUERY = [0.9, 0.1, 0.0]


@scenario("Required.Service.Search.VectorSimilarity", "operations.md#9.2", "operations.md#9.4",
          needs=("search.vector",))
def vector_similarity(ctx: Ctx) -> None:
    """A vector query compares the embeddings of the same model and
    dimensions: every hit's vector_score is the exact cosine similarity, its
    score equals it, hits are best first, and records without such an
    embedding are left out."""
    _vector_records(ctx)
    hits = ctx.search(vector={"model": "test-embed", "values": QUERY}, limit=100)
    ids = ids_of(h.get("record", {}) for h in hits)
    ctx.check(not {"x1", "x2", "x3"} & set(ids),
              "a record without an embedding of the query's model and dimensions is a hit",
              got=ids)
    for h in hits:
        rid = h.get("record", {}).get("id", "")
        want = cosine(QUERY, VECTORS[rid])
        ctx.check(close(h.get("vector_score"), want),
                  f"the vector_score of {rid} is not the cosine similarity {want!r}", got=h)
        ctx.eq(h.get("score", 0.0), h.get("vector_score"), f"the score of {rid}")
    _check_order(ctx, hits)


@scenario("Recommended.Service.Search.VectorExactRanking", "operations.md#9.2",
          needs=("search.vector",))
def vector_exact(ctx: Ctx) -> None:
    """The vector candidates are ranked exactly: every one is found, nearest
    first."""
    _vector_records(ctx)
    hits = ctx.search(vector={"model": "test-embed", "values": QUERY}, limit=100)
    ctx.eq(ids_of(h.get("record", {}) for h in hits), ["v1", "v2", "v3", "v4"],
           "the hits, nearest first")


@scenario("Required.Service.Search.VectorExactWhenAsked", "operations.md#9.2", "operations.md#9",
          needs=("search.vector",))
def vector_exact_when_asked(ctx: Ctx) -> None:
    """With exact, the vector ranking is exact whatever index the service
    has: every vector candidate is found, nearest first, and the response
    does not say that the ranking is approximate."""
    _vector_records(ctx)
    response = ctx.call("Search", {"vector": {"model": "test-embed", "values": QUERY}, "limit": 100,
                                   "exact": True})
    ctx.eq(ids_of(h.get("record", {}) for h in response.get("hits", [])), ["v1", "v2", "v3", "v4"],
           "the hits of an exact search, nearest first")
    ctx.check(response.get("approximate") is not True, "an exact search answers approximate: true",
              got=response.get("approximate"))


@scenario("Required.Service.Search.MinScoreAndLimit", "operations.md#9.4", "operations.md#9",
          needs=("search.vector",))
def min_score(ctx: Ctx) -> None:
    """min_score leaves out the hits scored below it, and limit caps the page
    (with next_cursor when results follow)."""
    _vector_records(ctx)
    query = {"model": "test-embed", "values": QUERY}
    hits = ctx.search(vector=query, min_score=0.5, limit=100)
    ctx.check(hits and all(h.get("score", 0.0) >= 0.5 for h in hits),
              "min_score 0.5 returns no hit or a hit below 0.5",
              got=[(h.get("record", {}).get("id"), h.get("score")) for h in hits])
    ctx.check(not {"v3", "v4"} & set(ids_of(h.get("record", {}) for h in hits)),
              "min_score 0.5 returns a hit whose cosine similarity is below 0.5")
    response = ctx.call("Search", {"vector": query, "limit": 1})
    ctx.check(len(response.get("hits", [])) <= 1, "limit 1 returns more than one hit",
              got=len(response.get("hits", [])))
    ctx.check(response.get("next_cursor"), "limit 1 of several hits gives no next_cursor")


@scenario("Required.Service.Search.ZeroVector", "operations.md#9.2", "operations.md#3.3",
          needs=("search.vector",))
def zero_vector(ctx: Ctx) -> None:
    """A query vector with zero norm fails with INVALID_ARGUMENT
    INVALID_VECTOR at /vector/values."""
    ctx.expect_error(lambda: ctx.search(vector={"model": "test-embed",
                                                "values": [0.0, 0.0, 0.0]}),
                     "INVALID_ARGUMENT", "INVALID_VECTOR", "/vector/values")


# Hybrid.


def _hybrid_records(ctx: Ctx) -> None:
    ctx.put_ok(
        fact("h1", "alpha beta release notes", embeddings=[emb([0.2, 1.0])]),
        fact("h2", "alpha only", embeddings=[emb([1.0, 0.1])]),
        fact("h3", "gamma delta", embeddings=[emb([0.9, 0.3])]),
        fact("h4", "beta testing plan"),
        fact("h5", "nothing relevant"),
    )


def _ranks(hits: Sequence[Mapping[str, Any]], key: str) -> dict[str, int]:
    scored = [(-h[key], h.get("record", {}).get("sequence", 0), h.get("record", {}).get("id"))
              for h in hits if h.get(key) is not None]
    return {rid: rank for rank, (_, _, rid) in enumerate(sorted(scored), start=1)}


@scenario("Required.Service.Search.HybridRrf", "operations.md#9.3", "operations.md#9.4",
          needs=("search.hybrid",))
def hybrid_rrf(ctx: Ctx) -> None:
    """With text and vector, results are the union of both rankings, each hit
    with the scores of the rankings it is in, and score = sum of
    1 / (k + rank) (k = 60 by default, rrf_k otherwise)."""
    _hybrid_records(ctx)
    for fusion, k in ((None, 60), ({"method": "rrf", "rrf_k": 5}, 5)):
        hits = ctx.search(text="alpha beta", vector={"model": "test-embed", "values": [1.0, 0.2]},
                          fusion=fusion, limit=100)
        ids = set(ids_of(h.get("record", {}) for h in hits))
        ctx.eq(sorted(ids & {"h1", "h2", "h3", "h4", "h5"}), ["h1", "h2", "h3", "h4"],
               "the union of the text and vector results")
        text_ranks, vector_ranks = _ranks(hits, "text_score"), _ranks(hits, "vector_score")
        ctx.eq(sorted(vector_ranks), ["h1", "h2", "h3"], "the hits with a vector_score")
        ctx.check({"h1", "h2", "h4"} <= set(text_ranks) and "h3" not in text_ranks,
                  "the hits with a text_score are not the records matching the text",
                  got=sorted(text_ranks))
        for h in hits:
            rid = h.get("record", {}).get("id")
            want = sum(1.0 / (k + r[rid]) for r in (text_ranks, vector_ranks) if rid in r)
            ctx.check(close(h.get("score", 0.0), want),
                      f"the fused score of {rid} with k={k} is not {want!r}", got=h)
        _check_order(ctx, hits)


@scenario("Required.Service.Search.HybridWeighted", "operations.md#9.3",
          needs=("search.hybrid",))
def hybrid_weighted(ctx: Ctx) -> None:
    """Weighted fusion: score = w * n_text + (1 - w) * n_vector, each ranking
    min-max normalised over its records, 0 for a record absent from it."""
    _hybrid_records(ctx)
    w = 0.3
    hits = ctx.search(text="alpha beta", vector={"model": "test-embed", "values": [1.0, 0.2]},
                      fusion={"method": "weighted", "text_weight": w}, limit=100)
    ctx.check(hits, "no hit")

    def norm(key: str) -> dict[str, float]:
        scores = {h.get("record", {}).get("id"): h[key] for h in hits if h.get(key) is not None}
        if not scores:
            return {}
        lo, hi = min(scores.values()), max(scores.values())
        return {rid: (1.0 if hi == lo else (s - lo) / (hi - lo)) for rid, s in scores.items()}

    nt, nv = norm("text_score"), norm("vector_score")
    for h in hits:
        rid = h.get("record", {}).get("id")
        want = w * nt.get(rid, 0.0) + (1 - w) * nv.get(rid, 0.0)
        ctx.check(close(h.get("score", 0.0), want),
                  f"the weighted score of {rid} is not {want!r}", got=h)
    _check_order(ctx, hits)


@scenario("Required.Service.Search.Touch", "operations.md#9", "operations.md#7", "core.md#8.3")
def search_touch(ctx: Ctx) -> None:
    """A Search with touch counts an access on the hits it returns (and
    returns the new values), without changing their revision."""
    ctx.put_ok(fact("a", "x"), fact("b", "y"))
    hits = ctx.search(touch=True, limit=1)
    ctx.eq([(h.get("record", {}).get("id"),
             h.get("record", {}).get("lifecycle", {}).get("access_count")) for h in hits],
           [("a", 1)], "the hit and its access_count")
    got = ctx.get(["a", "b"])["records"]
    ctx.eq([(r.get("lifecycle", {}).get("access_count", 0), r.get("revision")) for r in got],
           [(1, 1), (0, 1)], "access_count and revision after the Search (a, b)")
