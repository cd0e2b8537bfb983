"""Search: the filter language, full text, vectors, fusion, scores and paging
(operations.md sections 5 and 9)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from service_helpers import embedding, fact, fails, message, send

from memorywire.client import Client


def cmp(field: str, operator: str, value: Any = ..., ) -> dict[str, Any]:
    c: dict[str, Any] = {"field": field, "operator": operator}
    if value is not ...:
        c["value"] = value
    return {"compare": c}


def hit_ids(out: dict[str, Any]) -> list[str]:
    return [h["record"]["id"] for h in out.get("hits", [])]


@pytest.fixture
def corpus(mw: Client) -> Client:
    mw.put([
        fact("f1", "The user prefers window seats.", tags=["travel", "seating"],
             lifecycle={"importance": 0.9}, created_at="2026-01-05T00:00:00Z",
             scope={"user": "u-42"}, metadata={"source": "chat", "page": 12, "big": 9007199254740993}),
        fact("f2", "The user is vegetarian.", tags=["food"], lifecycle={"importance": 0.4},
             created_at="2025-12-31T23:59:59.999999999Z", scope={"user": "u-42"},
             metadata={"source": "form", "page": 12.0}),
        message("m1", "user", "Book a table for two at an Italian place.",
                routing={"agent": "Concierge", "recipients": ["Engineer", "*"]},
                scope={"user": "u-7"}),
        {"id": "p1", "kind": "procedure", "procedure": {"name": "checkout", "states": ["a"]},
         "provenance": {"trust": "untrusted"}},
        {"id": "f3", "kind": "fact", "fact": {"text": "Aisle seats on long flights.",
                                               "category": "preference"}},
    ])
    return mw


@pytest.mark.parametrize(("flt", "expected"), [
    (cmp("/kind", "eq", "fact"), ["f1", "f2", "f3"]),
    (cmp("/kind", "ne", "fact"), ["m1", "p1"]),
    (cmp("/kind", "in", ["message", "procedure"]), ["m1", "p1"]),
    (cmp("/kind", "in", []), []),
    (cmp("/tags", "contains", "travel"), ["f1"]),
    (cmp("/tags", "eq", ["food"]), ["f2"]),
    (cmp("/tags", "exists"), ["f1", "f2"]),
    ({"not": cmp("/tags", "exists")}, ["m1", "p1", "f3"]),
    (cmp("/lifecycle/importance", "gte", 0.5), ["f1"]),
    (cmp("/lifecycle/importance", "lt", 1), ["f1", "f2"]),
    (cmp("/created_at", "gte", "2026-01-01T00:00:00Z"), ["f1", "m1", "p1", "f3"]),
    (cmp("/created_at", "lt", "2026-01-01T00:00:00.000000000Z"), ["f2"]),
    (cmp("/created_at", "eq", "2026-01-05T00:00:00.000Z"), ["f1"]),
    (cmp("/scope/user", "eq", "u-42"), ["f1", "f2"]),
    (cmp("/scope/user", "ne", "u-42"), ["m1", "p1", "f3"]),
    (cmp("/scope/user", "prefix", "u-"), ["f1", "f2", "m1"]),
    (cmp("/routing/recipients", "contains", "*"), ["m1"]),
    (cmp("/message/role", "eq", "user"), ["m1"]),
    (cmp("/message/content/0/text/text", "prefix", "Book"), ["m1"]),
    (cmp("/metadata/source", "eq", "chat"), ["f1"]),
    (cmp("/metadata/page", "eq", 12), ["f1", "f2"]),  # 12 and 12.0 are numerically equal
    (cmp("/metadata/page", "gt", "a"), []),  # different types: no order
    (cmp("/metadata/page", "ne", "12"), ["f1", "f2", "m1", "p1", "f3"]),
    (cmp("/metadata/big", "eq", 9007199254740993), ["f1"]),  # exact beyond 2^53
    (cmp("/metadata/big", "eq", 9007199254740992), []),
    (cmp("/lifecycle/status", "eq", "active"), ["f1", "f2", "m1", "p1", "f3"]),
    (cmp("/provenance/trust", "eq", "unverified"), ["f1", "f2", "m1", "f3"]),
    (cmp("/fact/category", "eq", "fact"), ["f1", "f2"]),
    (cmp("/fact/category", "eq", "preference"), ["f3"]),
    ({"all": {"filters": [cmp("/kind", "eq", "fact"), cmp("/scope/user", "eq", "u-42"),
                          cmp("/lifecycle/importance", "gte", 0.5)]}}, ["f1"]),
    ({"any": {"filters": [cmp("/kind", "eq", "message"), cmp("/tags", "contains", "food")]}},
     ["f2", "m1"]),
    (cmp("/embeddings/0/model", "exists"), []),
])
def test_filter_language(corpus: Client, flt: dict[str, Any], expected: list[str]) -> None:
    out = corpus.search(filter=flt, limit=100)
    assert hit_ids(out) == expected
    assert all(h.get("score", 0.0) == 0.0 for h in out.get("hits", []))  # absent is 0.0


@pytest.mark.parametrize(("flt", "reason", "pointer"), [
    (cmp("/fact/txt", "eq", "x"), "UNKNOWN_FIELD", "/filter/compare/field"),
    (cmp("/tags/first", "eq", "x"), "UNKNOWN_FIELD", "/filter/compare/field"),
    (cmp("/kind/x", "eq", "x"), "UNKNOWN_FIELD", "/filter/compare/field"),
    (cmp("/kind", "eq", "factoid"), "UNKNOWN_ENUM_VALUE", "/filter/compare/value"),
    (cmp("/kind", "gt", "fact"), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/lifecycle/importance", "eq", "high"), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/lifecycle/pinned", "eq", 1), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/created_at", "gt", "yesterday"), "INVALID_TIMESTAMP", "/filter/compare/value"),
    (cmp("/created_at", "gt", 5), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/kind", "in", "fact"), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/kind", "in", ["fact", 3]), "TYPE_MISMATCH", "/filter/compare/value/1"),
    (cmp("/scope/user", "prefix", 3), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/lifecycle/importance", "prefix", "x"), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/kind", "contains", "fact"), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/tags", "contains", 3), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/metadata/x", "gt", True), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/kind", "eq"), "REQUIRED_FIELD_MISSING", "/filter/compare/value"),
    (cmp("/kind", "exists", "fact"), "TYPE_MISMATCH", "/filter/compare/value"),
    (cmp("/encrypted/nonce", "eq", "not base64!"), "INVALID_BASE64", "/filter/compare/value"),
    ({"all": {"filters": [cmp("/kind", "eq", "fact"), cmp("/nope", "exists")]}}, "UNKNOWN_FIELD",
     "/filter/all/filters/1/compare/field"),
    ({"not": cmp("/kind", "eq", 7)}, "TYPE_MISMATCH", "/filter/not/compare/value"),
])
def test_filter_errors(raw_channel, tenant: str, flt: dict[str, Any], reason: str,  # type: ignore[no-untyped-def]
                       pointer: str) -> None:
    e = fails(reason, lambda: send(raw_channel, "Search", {"filter": flt}, tenant), pointer)
    assert e.code == "INVALID_ARGUMENT"
    # the same checks in Delete, Watch and Export
    fails(reason, lambda: send(raw_channel, "Delete", {"filter": flt}, tenant), pointer)


def test_filter_on_status_lifts_the_exclusions(mw: Client) -> None:
    mw.put([fact("a", "active"), fact("b", "archived", lifecycle={"status": "archived"})])
    mw.put(fact("c", "staged"), require_approval=True)
    mw.put(fact("d", "gone"))
    mw.delete("d")
    assert hit_ids(mw.search()) == ["a"]
    assert hit_ids(mw.search(include_archived=True)) == ["a", "b"]
    assert hit_ids(mw.search(filter=cmp("/lifecycle/status", "eq", "pending_approval"))) == ["c"]
    assert hit_ids(mw.search(filter=cmp("/lifecycle/status", "ne", "active"))) == ["b", "c", "d"]
    assert hit_ids(mw.search(filter={"not": cmp("/lifecycle/status", "eq", "deleted")})) == ["a", "b", "c"]


def test_text_ranking(mw: Client) -> None:
    filler = [fact(f"n{i}", f"Note {i} about the weather and the news.") for i in range(20)]
    mw.put(filler + [
        fact("w1", "The user prefers window seats."),
        fact("w2", "Window cleaning is scheduled for Monday."),
        fact("w3", "The user asked for a window seat on every flight, window seat only."),
    ])
    out = mw.search("window seat preference")
    ranked = hit_ids(out)
    assert set(ranked) == {"w1", "w2", "w3"}  # records without a query term do not match
    assert ranked.index("w2") == 2  # the fewest rare terms ranks last
    scores = [h["score"] for h in out["hits"]]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert all(h["text_score"] == h["score"] and "vector_score" not in h for h in out["hits"])
    assert mw.search("zebra")["hits"] == []
    assert mw.search("???")["hits"] == []  # no terms: nothing matches, no error
    # the text is never read as query syntax
    assert set(hit_ids(mw.search('window" OR NEAR(x'))) == {"w1", "w2", "w3"}
    # AND, OR and NOT are words like any other ("and" is in every note)
    assert len(hit_ids(mw.search('"window" AND (seat OR *) NOT x:y', limit=100))) == 23


def bm25(tf: int, n: int, count: int, length: int, mean: float) -> float:
    """The score of one term: BM25 with Lucene's IDF, k1 = 1.2, b = 0.75."""
    idf = math.log(1 + (count - n + 0.5) / (n + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / mean))


def test_text_scores_are_bm25_in_the_tenant(mw: Client) -> None:
    mw.put([fact("a", "Apple banana."), fact("b", "Cherry."), fact("c", "Dates, dates."),
            {"id": "e", "kind": "emotion", "emotion": {"sentiment": "positive"}}])  # no text
    mean = (2 + 1 + 2) / 3  # over the records with text, in tokens
    out = mw.search("apple")
    assert hit_ids(out) == ["a"]
    assert out["hits"][0]["text_score"] == pytest.approx(bm25(1, 1, 3, 2, mean), rel=1e-12)
    # the terms add up; a word of the same terms ("Apples") counts once
    out = mw.search("apples APPLE cherry banana date")
    assert {h["record"]["id"]: h["score"] for h in out["hits"]} == pytest.approx({
        "a": 2 * bm25(1, 1, 3, 2, mean), "b": bm25(1, 1, 3, 1, mean),
        "c": bm25(2, 1, 3, 2, mean)}, rel=1e-12)
    # the collection is the scope's
    mw.put(fact("s", "apple", scope={"user": "u"}))
    out = mw.search("apple", scope={"user": "u"})
    assert out["hits"][0]["score"] == pytest.approx(bm25(1, 1, 1, 1, 1), rel=1e-12)


def test_a_word_of_several_terms_matches_as_a_phrase(mw: Client) -> None:
    # U+0305 is a letter of a word to the query, a separator to the index
    mw.put([fact("a", "Ab cd."), fact("b", "Cd ab."), fact("c", "ab\u0305cd ef")])
    out = mw.search("ab\u0305cd")
    assert hit_ids(out) == ["a", "c"]
    assert [h["score"] for h in out["hits"]] == pytest.approx(
        [bm25(1, 2, 3, 2, 7 / 3), bm25(1, 2, 3, 3, 7 / 3)], rel=1e-12)


def test_text_scores_are_meaningful_in_small_tenants(mw: Client) -> None:
    mw.put([fact("w1", "The user prefers window seats."), fact("w2", "Window cleaning on Monday.")])
    out = mw.search("window")  # a term of every record still scores clearly above 0
    assert hit_ids(out) == ["w2", "w1"]  # the shorter first
    assert [h["score"] for h in out["hits"]] == pytest.approx(
        [bm25(1, 2, 2, 4, 4.5), bm25(1, 2, 2, 5, 4.5)], rel=1e-12)
    assert out["hits"][1]["score"] > 0.1
    out = mw.search("window seat")
    assert hit_ids(out) == ["w1", "w2"] and out["hits"][0]["score"] > 4 * out["hits"][1]["score"]
    # more occurrences of a term score higher, at equal lengths
    mw.put([fact("r1", "seat seat"), fact("r2", "seat chair")])
    scores = {h["record"]["id"]: h["score"] for h in mw.search("seat")["hits"]}
    assert scores["r1"] > scores["r2"] > 0


def test_text_scores_do_not_depend_on_other_tenants(connect: Any, tenant: str) -> None:
    a: Client = connect(tenant + "-a")
    b: Client = connect(tenant + "-b")
    a.put([fact("f1", "The user prefers window seats."), fact("f2", "Aisle seats, please.")])
    before = a.search("window seat")["hits"]
    b.put([fact(f"n{i}", "window seat window seat") for i in range(50)])
    assert a.search("window seat")["hits"] == before


def test_text_follows_changes(mw: Client) -> None:
    mw.put([fact("a", "The user prefers window seats."), fact("b", "The user is vegetarian.")])
    mw.update("a", {"fact": {"text": "The user prefers aisle seats."}})
    assert mw.search("window")["hits"] == []
    assert hit_ids(mw.search("aisle")) == ["a"]
    mw.delete("a", mode="hard")
    assert mw.search("aisle")["hits"] == []
    mw.delete("b")
    assert mw.search("vegetarian")["hits"] == []  # a tombstone has no text
    mw.put(fact("b", "Vegetarian again."))
    assert hit_ids(mw.search("vegetarian")) == ["b"]


def test_the_strings_of_a_custom_value_are_text(mw: Client) -> None:
    """A custom record (a LangGraph item) is found by the strings of its
    value, at any depth, and not by its map keys or other scalars."""
    mw.put([
        {"id": "c1", "kind": "custom", "key": "food",
         "custom": {"type": "langgraph.item", "value": {"text": "The user likes pizza.", "n": 7}}},
        {"id": "c2", "kind": "custom",
         "custom": {"type": "app.item", "value": {"notes": [{"body": "Pizza on Fridays"}], "flag": True}}},
        {"id": "c3", "kind": "custom", "custom": {"type": "app.item", "value": "a bare string about pizza"}},
        {"id": "c4", "kind": "custom", "custom": {"type": "app.item", "value": {"pizza": 1}}},
        fact("f1", "Pizza is a fact too."),
    ])
    assert set(hit_ids(mw.search("pizza"))) == {"c1", "c2", "c3", "f1"}
    assert mw.search("text")["hits"] == []  # a key is not text
    assert mw.search("7")["hits"] == []  # nor a number
    mw.update("c1", {"custom": {"value": {"text": "The user likes sushi."}}})
    assert hit_ids(mw.search("sushi")) == ["c1"]
    assert "c1" not in hit_ids(mw.search("pizza"))


def test_vector_ranking_is_exact_cosine(mw: Client) -> None:
    mw.put([
        fact("a", "x", embeddings=embedding([1.0, 0.0, 0.0])),
        fact("b", "x", embeddings=embedding([0.7, 0.7, 0.0])),
        fact("c", "x", embeddings=embedding([0.0, 1.0, 0.0]) + embedding([0.6, 0.8, 0.0])),
        fact("d", "x", embeddings=embedding([-1.0, 0.0, 0.0])),
        fact("e", "x", embeddings=embedding([1.0, 0.0, 0.0], model="other")),
        fact("f", "x", embeddings=embedding([1.0, 0.0])),
        fact("z", "x", embeddings=embedding([0.0, 0.0, 0.0])),
        fact("g", "no embedding"),
    ])
    q = [0.9, 0.1, 0.0]
    out = mw.search(vector={"model": "demo", "values": q}, limit=10)
    assert hit_ids(out) == ["a", "b", "c", "d"]  # same model and dimensions, non-zero norm only

    def cos(e: list[float]) -> float:
        import struct
        qf = list(struct.unpack("<3f", struct.pack("<3f", *q)))
        ef = list(struct.unpack("<3f", struct.pack("<3f", *e)))
        dot = sum(x * y for x, y in zip(qf, ef, strict=True))
        return dot / (math.sqrt(sum(x * x for x in qf)) * math.sqrt(sum(x * x for x in ef)))

    scores = {h["record"]["id"]: h["vector_score"] for h in out["hits"]}
    assert scores["a"] == pytest.approx(cos([1.0, 0.0, 0.0]), abs=1e-15)
    assert scores["c"] == pytest.approx(cos([0.6, 0.8, 0.0]), abs=1e-15)  # the best embedding
    assert scores["d"] == pytest.approx(-cos([1.0, 0.0, 0.0]), abs=1e-15)
    assert all(h["score"] == h["vector_score"] and "text_score" not in h for h in out["hits"])
    # min_score, and paging through a vector ranking
    assert hit_ids(mw.search(vector={"model": "demo", "values": q}, min_score=0.5)) == ["a", "b", "c"]
    page = mw.search(vector={"model": "demo", "values": q}, limit=2)
    assert hit_ids(page) == ["a", "b"]
    assert hit_ids(mw.search(vector={"model": "demo", "values": q}, limit=2,
                             cursor=page["next_cursor"])) == ["c", "d"]


def test_zero_norm_query(raw_channel, tenant: str) -> None:  # type: ignore[no-untyped-def]
    fails("INVALID_VECTOR", lambda: send(raw_channel, "Search",
                                         {"vector": {"model": "m", "values": [0.0, -0.0]}}, tenant),
          "/vector/values")


def test_hybrid_fusion(mw: Client) -> None:
    mw.put([
        fact("both", "window seat", embeddings=embedding([1.0, 0.0])),
        fact("text", "window", embeddings=embedding([0.0, 1.0])),
        fact("vec", "nothing relevant", embeddings=embedding([0.9, 0.1])),
        *[fact(f"n{i}", f"filler {i}") for i in range(5)],
    ])
    q = {"model": "demo", "values": [1.0, 0.0]}
    out = mw.search("window seat", vector=q)
    hits = {h["record"]["id"]: h for h in out["hits"]}
    assert hit_ids(out)[0] == "both"
    assert hits["both"]["score"] == 2 / 61  # first in both rankings
    assert hits["vec"]["score"] == 1 / 62 and "text_score" not in hits["vec"]
    assert hits["text"]["score"] == 1 / 62 + 1 / 63
    out = mw.search("window seat", vector=q, fusion={"method": "rrf", "rrf_k": 1})
    assert {h["record"]["id"]: h["score"] for h in out["hits"]}["both"] == 1.0
    out = mw.search("window seat", vector=q, fusion={"method": "weighted", "text_weight": 0.25})
    hits = {h["record"]["id"]: h for h in out["hits"]}
    assert hits["both"]["score"] == 1.0
    assert hits["text"].get("score", 0.0) == 0.0  # last in both normalised rankings
    assert 0.0 < hits["vec"]["score"] < 0.75


def test_search_paging_is_deterministic(mw: Client) -> None:
    mw.put([fact(f"f{i:02d}", "same words here") for i in range(25)])
    seen: list[str] = []
    cursor = None
    while True:
        out = mw.search("same words", limit=10, cursor=cursor)
        seen += hit_ids(out)
        cursor = out.get("next_cursor")
        if cursor is None:
            break
    assert seen == [f"f{i:02d}" for i in range(25)]  # equal scores: sequence order


def test_search_touch(mw: Client) -> None:
    mw.put(fact("a", "remember me"))
    out = mw.search("remember", touch=True)
    assert out["hits"][0]["record"]["lifecycle"]["access_count"] == 1
    assert mw.get("a")["records"][0]["revision"] == 1


def test_search_scope(mw: Client) -> None:
    mw.put([fact("a", "apple", scope={"user": "u1", "namespace": ["m", "u1"]},
                 embeddings=embedding([1.0, 0.0])),
            fact("b", "apple", scope={"user": "u2", "namespace": ["m", "u2"]},
                 embeddings=embedding([1.0, 0.0]))])
    q = {"model": "demo", "values": [1.0, 0.0]}
    assert hit_ids(mw.search("apple", scope={"user": "u2"})) == ["b"]
    assert hit_ids(mw.search(vector=q, scope={"namespace": ["m", "u1"]})) == ["a"]
    assert hit_ids(mw.search(vector=q, scope={"namespace": ["m"]})) == ["a", "b"]
    assert hit_ids(mw.search(vector=q, scope={"namespace": ["m", "u"]})) == []
    assert hit_ids(mw.search(vector=q, filter=cmp("/scope/user", "eq", "u1"))) == ["a"]


def test_pages_of_common_and_rare_words_equal_the_full_ranking(mw: Client) -> None:
    """A page of a query that mixes a word every record holds with rarer ones
    is the front of the complete ranking, whatever the service skips to find
    it (operations.md section 9.1), and so are the pages after it."""
    words = ["alpha", "beta", "gamma", "delta"]
    mw.put([fact(f"n{i}", f"topic {' '.join(words[j] for j in range(4) if (i >> j) & 1 and i % (j + 2) == 0)} "
                           f"{'topic ' * (i % 3)}item {i}") for i in range(300)])
    everything = cmp("/kind", "eq", "fact")  # a filter: every candidate is ranked, none skipped
    for text in ("topic alpha", "topic gamma delta", "topic item", "alpha beta gamma delta topic", "topic"):
        full = mw.search(text, filter=everything, limit=1000)["hits"]
        assert full
        for limit in (1, 5, 10, 50):
            out = mw.search(text, limit=limit)
            assert [(h["record"]["id"], h["score"]) for h in out["hits"]] == \
                [(h["record"]["id"], h["score"]) for h in full[:limit]]
        paged: list[dict[str, Any]] = []
        out = mw.search(text, limit=7)
        while True:
            paged += out["hits"]
            if not out.get("next_cursor"):
                break
            out = mw.search(text, limit=7, cursor=out["next_cursor"])
        assert [h["record"]["id"] for h in paged] == [h["record"]["id"] for h in full]
