"""The compiled scans and counts of the typed fast path, and the packing of
float32 values (memorywire._speedups).

Each is checked against a count made in Python from a real parse, on
generated documents and on random, mutated and truncated bytes: they read
only within their input, never fail on it, and say "unsure" (-1, None)
rather than give a count that could let a lost member through. Without the
extension the codec takes the walkers alone, with the same results. The
packer of float32 values gives struct's bytes, or None for what struct
decides.
"""

from __future__ import annotations

import datetime
import json
import math
import struct
import subprocess
import sys
from typing import Any

import msgpack
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire import _fast, _speedups, _timestamp

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

_keys = st.text(max_size=6)
_scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
_trees = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
                      max_leaves=30)


def _pairs(text: bytes) -> int:
    """The object members of a JSON text, counted by the standard parser."""
    count = 0

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal count
        count += len(pairs)
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return count


def _members(tree: Any) -> int:
    if type(tree) is dict:
        return len(tree) + sum(_members(v) for v in tree.values())
    if type(tree) is list:
        return sum(_members(v) for v in tree)
    return 0


def _escaped_key(tree: Any) -> bool:
    """Whether json.dumps writes a member name of the tree with an escape."""
    if type(tree) is dict:
        return any(json.dumps(k, ensure_ascii=False) != f'"{k}"' or _escaped_key(v) for k, v in tree.items())
    if type(tree) is list:
        return any(_escaped_key(v) for v in tree)
    return False


@FUZZ
@given(tree=_trees, indent=st.sampled_from([None, 1]))
def test_json_scan_counts_the_members_of_a_document(tree: Any, indent: int | None) -> None:
    text = json.dumps(tree, ensure_ascii=False, indent=indent).encode()
    clean = b"\\" not in text and b"\x7f" not in text
    expected = None if _escaped_key(tree) else (_pairs(text), clean)
    assert _speedups.json_scan(text) == expected
    # The scan never ends past the bytes, wherever they are cut.
    for end in range(len(text)):
        _valid_scan(_speedups.json_scan(text[:end]))


def _valid_scan(got: Any) -> None:
    assert got is None or (type(got) is tuple and type(got[0]) is int and got[0] >= 0 and type(got[1]) is bool)


@pytest.mark.parametrize(("text", "expected"), [
    (b'{"a":-0}', None), (b'{"a":[1,-0 ]}', None), (b"-0", None), (b'{"a":-0', None),
    (b'{"a":-0.0,"b":-0e5,"c":-0E1,"d":-01}', (4, True)), (b'{"a":"-0","b":10,"c":-10}', (3, True)),
    (b'{"a:b":"c:d","e":"\\":"}', (2, False)), (b'{"k\\u0061":1}', None), (b'{"k\\\\":1}', None),
    (b'{"a":"\\\\","b":"x\\"y"}', (2, False)), (b'{"a":"x\x7f"}', (1, False)), (b'{"a":"\xc3\xa9"}', (1, True)),
    (b'"\\', (0, True)), (b'"\\"', (0, False)), (b'{"a"', (0, True)), (b"", (0, True)),
])
def test_json_scan_refuses_what_it_cannot_vouch_for(text: bytes, expected: Any) -> None:
    assert _speedups.json_scan(text) == expected


@FUZZ
@given(data=st.binary(max_size=200))
def test_json_scan_reads_any_bytes(data: bytes) -> None:
    _valid_scan(_speedups.json_scan(data))


def test_json_scan_is_linear_in_escapes() -> None:
    text = b'{"a":"' + b"\\\\" * 500_000 + b'\\"' * 500_000 + b'","b":1}'
    assert _speedups.json_scan(text) == (2, False)


def _timestamps(tree: Any) -> int:
    if type(tree) is msgpack.Timestamp:
        return 1
    if type(tree) is dict:
        return sum(_timestamps(v) for v in tree.values())
    if type(tree) is list:
        return sum(_timestamps(v) for v in tree)
    return 0


def _controls(tree: Any) -> bool:
    """Whether a string of the tree, key or value, holds a control character."""
    if type(tree) is str:
        return any(c < " " or c == "\x7f" for c in tree)
    if type(tree) is dict:
        return any(_controls(k) or _controls(v) for k, v in tree.items())
    if type(tree) is list:
        return any(_controls(v) for v in tree)
    return False


_stamps = st.builds(msgpack.Timestamp, st.integers(-(2**40), 2**40), st.integers(0, 999_999).map(lambda us: us * 1000))
_packable = st.recursive(_scalars | st.binary(max_size=5) | _stamps,
                         lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
                         max_leaves=30)


@FUZZ
@given(tree=_packable)
def test_msgpack_scan_counts_entries_and_timestamps(tree: Any) -> None:
    data = msgpack.packb(tree, use_bin_type=True)
    assert _speedups.msgpack_scan(data) == (_members(tree), _timestamps(tree), not _controls(tree))
    # A strict prefix of one object is never a whole object.
    for end in range(len(data)):
        assert _speedups.msgpack_scan(data[:end]) is None


@FUZZ
@given(data=st.binary(max_size=200))
def test_msgpack_scan_reads_any_bytes(data: bytes) -> None:
    got = _speedups.msgpack_scan(data)
    assert got is None or (type(got) is tuple and min(got) >= 0)


def _ts64(seconds: int, nanos: int) -> bytes:
    return b"\xd7\xff" + struct.pack(">Q", nanos << 34 | seconds)


@pytest.mark.parametrize(("data", "expected"), [
    (msgpack.packb({1: 2}), None),  # a key that is not a string
    (msgpack.packb({b"k": 2}, use_bin_type=True), None),
    (msgpack.packb({"k": msgpack.ExtType(5, b"x")}), None),  # an extension other than a timestamp
    (b"\x81\xa1k" + _ts64(5, 1500), None),  # not whole microseconds
    (b"\x81\xa1k" + _ts64(5, 1_000_001_000), None),  # beyond a second
    (b"\x81\xa1k" + _ts64(5, 2000), (1, 1, True)),
    (b"\x81\xa1k\xd6\xff\x00\x00\x00\x05", (1, 1, True)),
    (b"\x81\xa1k\xc7\x0c\xff" + struct.pack(">Iq", 3000, -5), (1, 1, True)),
    (msgpack.packb({"k": ["a\x7f"]}), (1, 0, False)),
    (msgpack.packb({"k\n": "é"}), (1, 0, False)),
    (msgpack.packb({"k": "é\u2028"}), (1, 0, True)),
    (b"\x81\xa1k\xc7\x08\xff" + struct.pack(">Q", 5), None),  # ext 8 of another length
    (b"\x91" * 600 + b"\xc0", None),  # deeper than the scan follows
    (b"\x91" * 100 + b"\xc0", (0, 0, True)),
    (b"\xdf\xff\xff\xff\xff\xa1k\xc0", None),  # more entries than bytes
    (b"\xc1", None),
    (b"\xdb\xff\xff\xff\xff", None),
])
def test_msgpack_scan_refuses_what_it_cannot_vouch_for(data: bytes, expected: Any) -> None:
    assert _speedups.msgpack_scan(data) == expected


@FUZZ
@given(tree=_trees)
def test_tree_counts_count_every_member(tree: Any) -> None:
    at = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    assert _speedups.tree_counts(tree) == (_members(tree), 0)
    assert _speedups.tree_counts({"a": [at, {"b": at}], "c": tree}) == (3 + _members(tree), 2)


def test_tree_counts_of_a_deep_tree_raise_recursion_error() -> None:
    tree: Any = []
    for _ in range(100_000):
        tree = [tree]
    with pytest.raises(RecursionError):
        _speedups.tree_counts(tree)


@pytest.mark.parametrize(("value", "ok"), [
    ({"a": [1, 2.5, None, True], "b": "x"}, True), (2**63 - 1, True), (-(2**63), True), (2**63, False),
    (-(2**63) - 1, False), (9.1e18, True), (9.3e18, False), (float("nan"), False), (b"x", False),
    ({1: 2}, False), ("abcd", True), ("abcde", False), ({"abcde": 1}, False), ([[[1]]], True), ([[[[1]]]], False),
    ([1] * 5, False), (datetime.datetime(2026, 1, 1), False), ((1,), False),
])
def test_value_ok_holds_values_to_the_limits(value: Any, ok: bool) -> None:
    # depth 1 of at most 3, 4 items, 4 characters
    assert _speedups.value_ok(value, 1, 3, 4, 4) is ok


def test_without_the_extension_the_codec_takes_the_walkers() -> None:
    """An install where the extension could not be built: the fast path is
    off and every document decodes as with it."""
    import memorywire.json as mj
    import memorywire.msgpack as mm

    doc = {"specversion": "1.0", "id": "r1", "kind": "fact", "created_at": "2026-05-09T10:00:00.123Z",
           "fact": {"text": "f"}, "metadata": {"a": [1, -0.0]}}
    text = json.dumps(doc).encode()
    packed = mm.encode(doc)
    assert _fast.ENABLED
    assert mj.Decoder()._decode_fast(text) == doc and mm.Decoder()._decode_fast(packed) == doc
    script = (
        "import sys\n"
        "sys.modules['memorywire._speedups'] = None  # its import fails, as where it was not built\n"
        "import json, memorywire.json as mj, memorywire.msgpack as mm\n"
        "from memorywire import _fast\n"
        "assert not _fast.ENABLED and mj.Decoder()._fast is None and mm.Decoder()._fast is None\n"
        "text, packed = sys.stdin.buffer.read().split(b'\\n', 1)\n"
        "print(json.dumps([mj.decode(text), mm.decode(bytes.fromhex(packed.decode()))]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=text + b"\n" + packed.hex().encode(),
                          capture_output=True, check=True)
    assert json.loads(done.stdout) == [doc, doc]


@FUZZ
@given(seconds=st.integers(_timestamp.MIN_SECONDS, _timestamp.MAX_SECONDS), micros=st.integers(0, 999_999),
       whole=st.sampled_from([1, 1000, 1_000_000]))
def test_tree_counts_spell_datetimes_as_the_walkers(seconds: int, micros: int, whole: int) -> None:
    """With texts, the datetimes msgspec reads from timestamp extensions
    become the spelling the walkers give the same extension."""
    micros -= micros % whole
    stamp = msgpack.packb({"a": msgpack.Timestamp(seconds, micros * 1000), "b": [msgpack.Timestamp(seconds, 0)]})
    tree = msgspec.msgpack.decode(stamp)
    assert _speedups.tree_counts(tree, True) == (2, 2)
    assert tree == {"a": _timestamp.format(seconds, micros * 1000), "b": [_timestamp.format(seconds, 0)]}


_FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
#: Doubles about the edges of binary32: its largest value, the halfway point
#: past it (which rounds to an infinity), subnormals and what rounds to zero.
_EDGES = [_FLT_MAX, math.nextafter(_FLT_MAX, math.inf), _FLT_MAX + 2.0 ** 103,
          math.nextafter(_FLT_MAX + 2.0 ** 103, 0.0), 2.0 ** -149, 2.0 ** -150, math.nextafter(2.0 ** -150, 1.0),
          1e-46, 0.0, -0.0, 5e-324, 1e39, math.inf, -math.inf, math.nan]


def _struct_bytes(values: Any) -> bytes | None:
    """The little-endian binary32 bytes struct packs the values into; None
    when it refuses them (a value beyond binary32)."""
    try:
        return struct.pack(f"<{len(values)}f", *values)
    except OverflowError:
        return None


@FUZZ
@given(values=st.lists(st.floats() | st.sampled_from(_EDGES) | st.sampled_from([-x for x in _EDGES]), max_size=40))
def test_float32_bytes_are_those_of_struct(values: list[float]) -> None:
    got = _speedups.float32_bytes(values)
    assert _speedups.float32_bytes(tuple(values)) == got
    if all(math.isfinite(x) for x in values) and _struct_bytes(values) is not None:
        assert got == _struct_bytes(values)
    else:
        assert got is None  # struct decides: an infinity, NaN, or a value beyond binary32


@pytest.mark.parametrize("values", [
    [1], [0.5, True], [0.5, "x"], [0.5, None], [2 ** 200], [0.5, float("nan")],
    [_FLT_MAX, -math.inf], [_FLT_MAX + 2.0 ** 103], [-1e39],
])
def test_float32_bytes_leave_to_struct_what_is_not_a_plain_float(values: list[Any]) -> None:
    assert _speedups.float32_bytes(values) is None


def test_float32_bytes_read_a_list_or_a_tuple_only() -> None:
    class Floats(list):  # type: ignore[type-arg]
        pass

    assert _speedups.float32_bytes([]) == b"" and _speedups.float32_bytes(()) == b""
    assert _speedups.float32_bytes(Floats([0.5])) is None and _speedups.float32_bytes(iter([0.5])) is None
    assert _speedups.float32_bytes(b"\x00") is None and _speedups.float32_bytes(0.5) is None
    assert _speedups.float32_bytes([0.1, -0.0]) == struct.pack("<2f", 0.1, -0.0)


def _sequential_squares(raw: bytes) -> float:
    """The squares of binary32 values, widened, added one after the other."""
    total = 0.0
    for (x,) in struct.iter_unpack("<f", raw):
        total += x * x
    return total


@FUZZ
@given(values=st.lists(st.floats(width=32) | st.sampled_from(_EDGES[:10]), max_size=64))
def test_float32_sum_squares_add_in_order(values: list[float]) -> None:
    raw = b"".join(struct.pack("<f", x) if abs(x) <= _FLT_MAX or not math.isfinite(x) else b"\0\0\x80\x7f"
                   for x in values)
    got = _speedups.float32_sum_squares(raw)
    expected = _sequential_squares(raw)
    assert got is not None and (got == expected or (math.isnan(got) and math.isnan(expected)))
    assert _speedups.float32_sum_squares(bytearray(raw)) == got or math.isnan(expected)


def test_float32_sum_squares_refuse_a_partial_value() -> None:
    assert _speedups.float32_sum_squares(b"") == 0.0
    assert _speedups.float32_sum_squares(b"\0\0\x80") is None
    # rounding in order: 1 + 2**-30 squared terms vanish next to 1, not next to each other
    tiny = struct.pack("<f", 2.0 ** -27)
    raw = struct.pack("<f", 1.0) + tiny * 8
    assert _speedups.float32_sum_squares(raw) == 1.0 == _sequential_squares(raw)
    assert _speedups.float32_sum_squares(tiny * 8 + struct.pack("<f", 1.0)) == 1.0 + 8 * 2.0 ** -54
