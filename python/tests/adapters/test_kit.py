"""The shared pieces of the adapters (spec/v1/adapters/README.md)."""

from __future__ import annotations

import base64
import math
from typing import Any

import pytest
from harness import assert_exact, exact, through_encodings
from hypothesis import given, settings
from hypothesis import strategies as st

from memorywire import ValidationError
from memorywire.adapters import (
    AdapterError,
    Form,
    Ids,
    align,
    canonical_json,
    from_value,
    is_generated,
    isoformat,
    media_from_uri,
    micros_to_time,
    parse_time,
    split_time,
    sqlite_time,
    time_to_micros,
    to_value,
    unmapped,
    uri_from_media,
)

python_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    | st.dictionaries(st.sampled_from(["$bigint", "$map", "$x", "$"]), inner, min_size=1, max_size=1),
    max_leaves=12)


def _record(value: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "id": "r", "kind": "custom", "custom": {"type": "t", "value": value}}


@settings(deadline=None)
@given(python_values)
def test_every_python_value_survives_every_encoding(x: Any) -> None:
    value = to_value(x)
    for name, (decoded,) in through_encodings([_record(value)]).items():
        found = exact(from_value(decoded["custom"]["value"]), x)
        assert found is None, f"{name}: {found}"


def test_tags() -> None:
    assert to_value(2**63) == {"$bigint": "9223372036854775808"}
    assert to_value(-(2**63)) == -(2**63)
    assert to_value(b"\xff\x00") == {"$bytes": "/wA="}
    assert to_value(float("-inf")) == {"$float": "-inf"}
    assert to_value((1, "a")) == {"$tuple": [1, "a"]}
    assert to_value({"$bigint": "1"}) == {"$map": {"$bigint": "1"}}
    assert to_value({"$a": 1, "b": 2}) == {"$a": 1, "b": 2}  # two members: no tag
    assert from_value({"$map": {"$bigint": "1"}}) == {"$bigint": "1"}
    assert math.isnan(from_value({"$float": "nan"}))


@pytest.mark.parametrize("value, pointer", [
    ({"a": [1, {2: "x"}]}, "/a/1"),
    ({"when": __import__("datetime").date(2026, 1, 1)}, "/when"),
    ({"s": {1, 2}}, "/s"),
])
def test_values_without_a_form_are_refused_with_a_pointer(value: Any, pointer: str) -> None:
    with pytest.raises(AdapterError) as info:
        to_value(value)
    assert info.value.pointer == pointer and info.value.reason == "NOT_REPRESENTABLE"


@pytest.mark.parametrize("tagged", [{"$bigint": "1.5"}, {"$bytes": "!!"}, {"$float": "1"}, {"$nope": 1}])
def test_malformed_tags_are_refused(tagged: Any) -> None:
    with pytest.raises(AdapterError):
        from_value(tagged)


def test_canonical_json() -> None:
    assert canonical_json({"z": 1, "a": [1.0, -0.0, "é", None, True]}) == '{"a":[1.0,-0.0,"é",null,true],"z":1}'
    with pytest.raises(ValidationError) as info:
        canonical_json({"a": [0, 2**64]})
    assert info.value.pointer == "/a/1"


def test_ids() -> None:
    ids = Ids("f.form", {"session": "s1"})
    first, again, none = ids.assign(0, "m-1"), ids.assign(1, "m-1"), ids.assign(2, None)
    assert first == "m-1" and is_generated(again) and is_generated(none) and again != none
    same = Ids("f.form", {"session": "s1"})
    assert same.assign(0, "m-1") == first and same.assign(1, "m-1") == again  # the same list, the same ids
    assert Ids("f.form", {"session": "s2"}).assign(1) != Ids("f.form", {"session": "s1"}).assign(1)
    assert is_generated(Ids("f", {}).assign(0, "bad\nid")) and is_generated(Ids("f", {}).assign(0, ""))
    assert is_generated(Ids("f", {}).assign(0, "x" * 257)) and is_generated(Ids("f", {}).assign(0, 7))


def test_align() -> None:
    residue = [{"a": 1}, unmapped({"type": "text", "text": ""}), {"b": 2}]
    assert list(align(residue, ["p1", "p2"])) == [({"a": 1}, "p1"), (residue[1], None), ({"b": 2}, "p2")]
    assert list(align(None, ["p"])) == [(None, "p")]
    # content updated since: the parts stand alone
    assert list(align(residue, ["p1"])) == [(None, "p1")]


def test_media() -> None:
    small = "data:image/png;base64,iVBORw0KGgo="
    assert media_from_uri(small) == ({"data": "iVBORw0KGgo=", "media_type": "image/png"}, None)
    big = "data:image/png;base64," + base64.b64encode(bytes(range(256)) * 40).decode()
    fields, kept = media_from_uri(big)
    assert kept is None and uri_from_media(fields) == big
    # Not rebuilt exactly (a parameter, a line break): kept when too long for uri.
    odd = "data:image/png;name=a.png;base64," + "QUFB" * 3000
    fields, kept = media_from_uri(odd)
    assert kept == odd and "uri" not in fields and uri_from_media(fields, kept) == odd
    assert media_from_uri("https://example.com/a.png") == ({"uri": "https://example.com/a.png"}, None)
    assert media_from_uri("data:image/png;base64,iVBORw0KGgo")[0] == {"uri": "data:image/png;base64,iVBORw0KGgo"}
    # No media inline, or no URI at all: nothing that makes an invalid part.
    assert media_from_uri("data:image/png;base64,") == ({"uri": "data:image/png;base64,"}, None)
    assert media_from_uri("a picture of a cat") == ({}, "a picture of a cat")
    assert media_from_uri("") == ({}, "")


@pytest.mark.parametrize("text, ts", [
    ("2026-05-04T12:30:15.123456+00:00", "2026-05-04T12:30:15.123456Z"),
    ("2026-05-04T12:30:15", "2026-05-04T12:30:15Z"),
    ("2026-05-04 12:30:15", "2026-05-04T12:30:15Z"),
    ("2026-05-04T12:30:15.123-08:00", "2026-05-04T20:30:15.123Z"),
    ("2026-05-04T12:30:15.123456789Z", "2026-05-04T12:30:15.123456789Z"),
])
def test_times(text: str, ts: str) -> None:
    assert parse_time(text) == ts


def test_time_renderers() -> None:
    ts = "2026-05-04T12:30:15.123Z"
    assert isoformat(ts) == "2026-05-04T12:30:15.123000+00:00"
    assert isoformat("2026-05-04T12:30:15Z", naive=True, sep=" ") == "2026-05-04 12:30:15"
    assert sqlite_time(ts) == "2026-05-04 12:30:15"
    assert split_time("2026-05-04T12:30:15", lambda t: isoformat(t, naive=True)) == ("2026-05-04T12:30:15Z", None)
    assert split_time("2026-05-04T12:30:15", isoformat) == ("2026-05-04T12:30:15Z", "2026-05-04T12:30:15")
    assert micros_to_time(1773064931482913) == "2026-03-09T14:02:11.482913Z"
    assert time_to_micros("2026-03-09T14:02:11.482913Z") == 1773064931482913
    for bad in ("2026-05-04", "yesterday", "2026-13-01T00:00:00"):
        with pytest.raises(AdapterError):
            parse_time(bad)


def _plain_form() -> Form:
    def encode(items: list[Any], scope: dict[str, Any]) -> list[dict[str, Any]]:
        ids = Ids("test.plain", scope)
        return [{"specversion": "1.0", "id": ids.assign(i), "kind": "custom", "scope": scope,
                 "custom": {"type": "test.plain", "value": to_value(x)}} for i, x in enumerate(items)]

    def decode(records: list[dict[str, Any]]) -> list[Any]:
        return [from_value(r["custom"]["value"]) for r in records]

    return Form("test.plain", "test", "plain values", encode, decode)


def test_form_scope_and_order() -> None:
    form = _plain_form()
    records = form.to_records([1, 2.0, True], session="s", user=None)
    assert all(r["scope"] == {"session": "s"} for r in records)
    shuffled = [dict(r, sequence=n) for r, n in zip(records, (3, 1, 2), strict=True)]
    assert form.from_records(shuffled) == [2.0, True, 1]
    with pytest.raises(AdapterError) as info:
        form.to_records([], thread="t")
    assert info.value.pointer == "/scope/thread"


def test_the_comparison_can_fail() -> None:
    for a, b in [(1, 1.0), (1, True), (0.0, -0.0), ("é", "e\u0301"), ([1, 2], [2, 1]), ({"a": 1}, {"a": 1, "b": 2}),
                 ((1,), [1]), (b"a", "a")]:
        assert exact(a, b) is not None
    assert exact({"a": 1, "b": 2}, {"b": 2, "a": 1}) is None
    assert exact({"a": 1, "b": 2}, {"b": 2, "a": 1}, ordered=True) is not None


def test_service_keeps_every_item_in_order(service: Any) -> None:
    from harness import assert_service_round_trip

    items = [2**64, -0.0, 1, 1.0, True, "x", None, {"$bigint": "2"}, b"\x00", [1, (2,)]]
    assert_service_round_trip(service(), _plain_form(), items, session="s1")
    assert_exact(items, items)


def test_a_trailing_newline_is_not_ignored() -> None:
    # "$" of a Python pattern also matches before a final newline.
    assert Ids("f", {}).assign(0, "msg\n") != "msg\n"
    fields, kept = media_from_uri("data:image/png;base64,AAAA\n")
    assert uri_from_media(fields, kept) == "data:image/png;base64,AAAA\n"
