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
import gc
import json
import math
import struct
import subprocess
import sys
import tracemalloc
from collections import Counter
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
    (b'"\\', (0, False)), (b'"\\"', (0, False)), (b'{"a"', (0, True)), (b"", (0, True)),
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
    assert mj.Decoder()._fast(text) == doc and mm.Decoder()._fast(packed) == doc
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

_vector_items = (st.floats(width=64) | st.integers(-(2**1100), 2**1100) | st.booleans() | st.none()
                 | st.sampled_from([3.4028234663852886e38, 3.4028235677973362e38, 3.4028235677973366e38,
                                    -3.4028235677973366e38, 1e-46, -0.0, 5e-324])
                 | st.sampled_from(_EDGES) | st.sampled_from([-x for x in _EDGES]))


def _struct_le(values: list[Any]) -> bytes | None:
    """What struct packs, where every item is a float or an int (not a bool)
    and every value is finite in binary32."""
    if not all(type(x) in (float, int) for x in values):
        return None
    try:
        packed = struct.pack(f"<{len(values)}f", *values)
    except (OverflowError, struct.error):  # beyond binary32 once rounded, or an int beyond binary64
        return None
    return packed if all(math.isfinite(x) for x in struct.unpack(f"<{len(values)}f", packed)) else None


@FUZZ
@given(values=st.lists(_vector_items, max_size=8))
def test_float32_le_packs_as_struct_does_and_refuses_the_rest(values: list[Any]) -> None:
    got = _speedups.float32_le(values)
    assert got == _struct_le(values)
    assert _speedups.float32_le(tuple(values)) == got
    if got is not None:
        assert all(x == x and abs(x) != float("inf") for x in struct.unpack(f"<{len(values)}f", got))


@pytest.mark.parametrize("values", [[1.0, float("nan")], [float("inf")], [1e39], [2**1024], [True], ["1"], [None]])
def test_float32_le_leaves_invalid_vectors_to_the_walkers(values: list[Any]) -> None:
    """Each of these is refused (None): the validator then names the bad value."""
    assert _speedups.float32_le(values) is None
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "x"},
           "embeddings": [{"model": "m", "dimensions": len(values), "values": values}]}
    import memorywire
    from memorywire.errors import ValidationError

    with pytest.raises(ValidationError) as raised:
        memorywire.validate(doc)
    assert raised.value.pointer == f"/embeddings/0/values/{len(values) - 1}"


def test_float32_le_takes_only_lists_and_tuples() -> None:
    class Values(list):  # type: ignore[type-arg]
        pass

    assert _speedups.float32_le(Values([1.0])) is None
    assert _speedups.float32_le(iter([1.0])) is None
    assert _speedups.float32_le(b"abcd") is None
def _path(decode: Any, fields: list[Any], messages: list[Any], **kw: Any) -> Any:
    """A fast path of hand-made tables over any decoder: depth at most 3,
    4 items, 4 characters, 8 dimensions; ValueError sends to the walkers."""
    return _speedups.FastPath(kw.get("msgpack", False), decode, decode, (ValueError,), fields, messages,
                              kw.get("top", 0), kw.get("limits", (1000, 3, 4, 4, 8)),
                              (lambda raw: list(struct.unpack(f"<{len(raw) // 4}f", raw)), lambda raw: raw.hex(),
                               kw.get("vector_names", ())))


def test_the_walk_holds_oneofs_and_values_whatever_the_member_names() -> None:
    """A oneof of exactly one member and a Value, read by json.loads, which
    gives new member names each time: more than the walk keeps by identity,
    which then looks each up by value."""
    fields = [(0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (3, 0, 0, 0, -1)]  # o1 and o2 of a oneof; v a Value
    fp = _path(json.loads, fields, [({"o1": 0, "o2": 1, "v": 2}, (True,), None, ())])
    cases = (({"o1": 1}, True), ({"o1": 1, "o2": 2}, False), ({}, False), ({"o2": 1, "v": [1, {"a": 2}]}, True),
             ({"o2": 1, "v": "abcde"}, False), ({"o2": 1, "v": [[1]]}, True), ({"o2": 1, "v": [[[1]]]}, False),
             ({"o2": 1, "v": 2**63}, False))
    for n in range(200):
        extra = {f"k{n}_{j}": j for j in range(3)}
        for doc, ok in cases:
            text = json.dumps({**extra, **doc}).encode()
            got = fp(text)
            assert (got is not None) is ok and (got is None or got == json.loads(text))
    # The members of the bytes and of the tree differ: a repeated member.
    assert fp(b'{"o1":1,"o1":2}') is None and fp(b'{"o1":1,"k":2}') == {"o1": 1, "k": 2}


def test_the_walk_descends_into_messages() -> None:
    """A message of a message and a list of them, each walked at its depth,
    and the test of a record: live, the payload its kind names."""
    fields = [(1, 1, 0, 0, -1), (2, 1, 0, 0, -1), (3, 0, 0, 0, -1)]
    messages = [({"one": 0, "many": 1, "lifecycle": 0}, (), "record", ("lifecycle", "status", "deleted", "kind")),
                ({"v": 2}, (), None, ())]
    fp = _path(json.loads, fields, messages)
    good = {"kind": "one", "one": {"v": [1]}, "many": [{"v": 1}, {}]}
    assert fp(json.dumps(good).encode()) == good
    for bad in ({**good, "kind": "two"}, {**good, "lifecycle": {"status": "deleted"}},
                {**good, "one": {"v": [[1]]}}, {**good, "many": [{"v": [1]}]}, {**good, "one": []}):
        assert fp(json.dumps(bad).encode()) is None
    assert fp(json.dumps({**good, "lifecycle": {"status": "active"}}).encode()) is not None
    # A member the tables give no job has its members uncounted: the counts differ.
    assert fp(json.dumps({**good, "other": {"status": "active"}}).encode()) is None


def test_errors_of_the_decoder_send_to_the_walkers_or_rise() -> None:
    def refuse(data: bytes) -> Any:
        raise ValueError("not for the fast path")

    def fail(data: bytes) -> Any:
        raise KeyError("a fault")

    assert _path(refuse, [], [({}, (), None, ())])(b"{}") is None
    with pytest.raises(KeyError):
        _path(fail, [], [({}, (), None, ())])(b"{}")
    fp = _path(json.loads, [], [({}, (), None, ())])
    assert fp(b"{}") == {} and fp("{}") == {} and fp("{\"\ud800\":1}") is None
    assert fp(b"[]") is None and fp(bytearray(b"{}")) is None and fp(b"{}" + b" " * 1000) is None  # beyond the size
    with pytest.raises(TypeError):
        fp()


@pytest.mark.parametrize(("fields", "messages", "top"), [
    ([], [], 0),  # no top message
    ([(9, 0, 0, 0, -1)], [({"a": 0}, (), None, ())], 0),  # an unknown kind
    ([(1, 5, 0, 0, -1)], [({"a": 0}, (), None, ())], 0),  # a message beyond the table
    ([(0, 0, 0, 0, 0)], [({"a": 1}, (True,), None, ())], 0),  # a field beyond the table
    ([(0, 0, 0, 0, 1)], [({"a": 0}, (True,), None, ())], 0),  # a oneof beyond the message's
    ([(0, 0, 0, 0, -2)], [({"a": 0}, (), None, ())], 0),
    ([(0, 0, 0, 0, 40)], [({"a": 0}, (True,) * 41, None, ())], 0),  # too many oneofs
    ([[0, 0, 0, 0, -1]], [({"a": 0}, (), None, ())], 0),  # a field that is no tuple
    ([], [[{}, (), None, ()]], 0),
    ([], [({1: 0}, (), None, ())], 0),  # a member name that is no str
    ([], [({}, (1,), None, ())], 0),  # a oneof flag that is no bool
    ([], [({}, (), "unknown", ())], 0),  # an unknown test
    ([], [({}, (), "record", ("a",))], 0),  # a test of too few members
    ([], [({}, (), "media", ())], 0),
    ([], [({}, (), None, (1,))], 0),
    ([], [({}, (), None, ())], 1),
])
def test_malformed_tables_are_refused(fields: list[Any], messages: list[Any], top: int) -> None:
    with pytest.raises((ValueError, TypeError)):
        _path(json.loads, fields, messages, top=top)


@pytest.mark.parametrize("vector_names", [(1,), ("\ud800",)])
def test_vector_names_that_are_not_text_are_refused(vector_names: tuple[Any, ...]) -> None:
    with pytest.raises((ValueError, TypeError, UnicodeError)):
        _path(json.loads, [], [({}, (), None, ())], vector_names=vector_names)


def test_the_walk_puts_back_the_vectors_the_scan_read() -> None:
    """A hand-made table: the vector field "v" takes the vector read (of
    16 values or more), a list the decoder read, or nothing else; a
    placeholder where no vector field is sends the document on."""
    fields = [(8, 0, 1, 20, -1)]
    seen: list[bytes] = []

    def decode(text: bytes) -> Any:
        seen.append(text)
        return json.loads(text)

    fp = _path(decode, fields, [({"v": 0}, (), None, ())], vector_names=("v", "w"), limits=(1000, 3, 100, 4, 8))
    values = [0.5, 1, -0.0] + [0.25] * 13
    assert fp(json.dumps({"v": values}).encode()) == {"v": values}
    assert seen == [b'{"v": "\\u0001"}']
    assert fp(json.dumps({"v": values[:3]}).encode()) == {"v": values[:3]}
    for bad in ({"v": values * 2}, {"v": "\x01"}, {"v": 1}, {"w": values}, {"v": values, "w": values}):
        assert fp(json.dumps(bad).encode()) is None


def test_msgpack_values_take_the_form_of_the_walkers() -> None:
    """Timestamps, bytes and vectors, given as the walkers give them: the
    datetimes counted against the bytes' timestamps."""
    fields = [(5, 0, 0, 0, -1), (6, 0, 0, 0, -1), (7, 0, 1, 2, -1)]
    decode = msgspec.msgpack.Decoder().decode
    fp = _path(decode, fields, [({"t": 0, "b": 1, "f": 2}, (), None, ())], msgpack=True)
    at = msgpack.Timestamp(5, 120_000_000)
    doc = {"t": at, "b": [b"\x01", b"\x02\x03"], "f": struct.pack("<2f", 0.5, 1)}
    assert fp(msgpack.packb(doc)) == {"t": _timestamp.format(5, 120_000_000), "b": ["01", "0203"], "f": [0.5, 1.0]}
    assert fp(msgpack.packb({"t": [at, at]})) == {"t": [_timestamp.format(5, 120_000_000)] * 2}
    for bad in ({"t": "1970-01-01T00:00:05Z"}, {"f": b"\x00" * 12}, {"f": b""}, {"f": b"\x00" * 5}, {"t": [at, 1]},
                {"b": [b"\x01", "x"]}, {"b": "x"}):
        assert fp(msgpack.packb(bad)) is None
    # A value that is not finite, at either place, goes to the walkers; the
    # greatest finite values and the least subnormal do not.
    for value in (math.inf, -math.inf, math.nan, struct.unpack("<f", b"\x01\x00\xc0\x7f")[0]):
        for pair in ((value, 0.5), (0.5, value)):
            assert fp(msgpack.packb({"f": struct.pack("<2f", *pair)})) is None
    edges = struct.pack("<2I", 0x7F7FFFFF, 0x80000001)
    assert fp(msgpack.packb({"f": edges})) == {"f": list(struct.unpack("<2f", edges))}


def _growth(call: Any, arg: Any) -> int:
    """How many bytes of memory 2000 more calls keep."""
    for _ in range(200):
        call(arg)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(2000):
            call(arg)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before  # type: ignore[no-any-return]
    finally:
        tracemalloc.stop()


def test_the_fast_path_keeps_no_reference_on_any_outcome() -> None:
    """Accepted, refused by the scan, by the decoder, by the walk or by the
    counts, given as str or as a lone surrogate: nothing stays behind."""
    import memorywire.json as mj
    import memorywire.msgpack as mm

    doc = {"specversion": "1.0", "id": "r1", "kind": "fact", "created_at": "2026-05-09T10:00:00.123Z",
           "fact": {"text": "f"}, "metadata": {"a": [1, -0.5]}}
    text = json.dumps(doc).encode()
    jf, mf = mj.Decoder()._fast, mm.Decoder()._fast
    packed = mm.encode(doc)
    for fp, data in ((jf, text), (jf, text.decode()), (jf, text.replace(b"-0.5", b"-0")), (jf, text[:-1]),
                     (jf, text.replace(b'"fact"}', b'"message"}')), (jf, text[:-1] + b',"id":"r2"}'),
                     (jf, text.decode().replace("r1", "\ud800")), (mf, packed), (mf, packed[:-1]),
                     (mf, bytes([packed[0] + 1]) + packed[1:] + b"\xa2id\xa2r9")):
        refs = sys.getrefcount(data)
        assert _growth(fp, data) < 20_000, data
        assert sys.getrefcount(data) == refs


@pytest.mark.parametrize("control", ["\x00", "\x1f", "\x7f", None])
def test_msgpack_scan_finds_a_control_character_at_any_place(control: str | None) -> None:
    """Strings are read a word at a time, their last bytes too where the
    data goes on: a control character at each place of strings of each
    length, followed by nothing, by more strings or by other objects."""
    for length in range(1, 20):
        for at in range(length):
            for other in ("é", "\x80", "\u2028", " ", "~"):
                text = "a" * at + (control or other) + "b" * (length - at - 1)
                for after in ([], ["x" * 10], [1] * 9, ["\x01"]):
                    clean = control is None and after != ["\x01"]
                    assert _speedups.msgpack_scan(msgpack.packb([text, *after])) == (0, 0, clean)


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


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


#: Fields of every wire type, some the one looked for (3, length-delimited),
#: some of its number and another wire type, keys and lengths of 10 bytes
#: and more, and lengths that run past the end.
_PB_FIELDS = st.one_of(
    st.builds(lambda n, v: _varint(n << 3) + _varint(v), st.integers(0, 40), st.integers(0, 2**70)),
    st.builds(lambda n, b: _varint(n << 3 | 1) + b, st.integers(0, 40), st.binary(min_size=0, max_size=9)),
    st.builds(lambda n, b: _varint(n << 3 | 5) + b, st.integers(0, 40), st.binary(min_size=0, max_size=5)),
    st.builds(lambda n, b: _varint(n << 3 | 2) + _varint(len(b)) + b, st.sampled_from([1, 2, 3, 3, 2**61 + 3]),
              st.binary(max_size=20)),
    st.builds(lambda n, extra: _varint(n << 3 | 2) + _varint(extra), st.integers(0, 5), st.integers(1, 2**66)),
    st.builds(lambda w: bytes([w]), st.sampled_from([3, 4, 6, 7, 0x80, 0xFF])),
    st.just(b"\xff" * 11),
    st.binary(max_size=4),
)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PB_FIELDS, max_size=6), st.sampled_from([1, 2, 3]))
def test_pb_packed_field_finds_what_the_wire_reader_finds(fields: list[bytes], number: int) -> None:
    """The compiled finder of a packed field gives what the Python one
    gives, byte for byte, on any bytes: the field's bytes or None."""
    from memorywire import _wire

    data = b"".join(fields)
    assert _speedups.pb_packed_field(data, number) == _wire.packed_field(data, number)


def test_pb_packed_field_reads_the_values_of_an_embedding() -> None:
    """The field the Protobuf decoder reads a float32 vector from: the
    little-endian binary32 bytes of its values."""
    from memorywire import _document

    values = [0.5, -0.0, 3.0, 1e-45]
    cls = _document.info("memorywire.v1.Embedding").cls
    data = cls(model="m", dimensions=4, values=values).SerializeToString()
    assert _speedups.pb_packed_field(data, 3) == struct.pack("<4f", *values)
    assert _speedups.pb_packed_field(data, 4) is None


def _term_columns_in_python(split: list[list[str]], terms_of: dict[str, tuple[str, ...]],
                            digits: int = 64) -> list[tuple[int, str | None]]:
    def terms_of_chunk(chunk: str) -> tuple[str, ...]:
        if chunk not in terms_of and len(chunk) <= digits and chunk.isdigit() and chunk.isascii():
            return (chunk,)
        return terms_of[chunk]

    out: list[tuple[int, str | None]] = []
    for chunks in split:
        terms = [term for chunk in chunks for term in terms_of_chunk(chunk)]
        counts = Counter(terms)
        out.append((len(terms), "".join(f"\t{t}:{counts[t]}" for t in sorted(counts)) + "\t")
                   if terms else (0, None))
    return out


_terms = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=5)


@settings(max_examples=1000, deadline=None)
@given(st.dictionaries(st.text(max_size=4), st.lists(_terms, max_size=4).map(tuple), min_size=1, max_size=12),
       st.data())
def test_term_columns_count_the_terms_of_each_text(terms_of: dict[str, tuple[str, ...]], data: Any) -> None:
    """The term columns of texts given as chunks: their number of terms, and
    the distinct terms in code point order with their counts, as Python
    sorts and counts them, any characters and counts included."""
    chunks = sorted(terms_of)
    split = data.draw(st.lists(st.lists(st.sampled_from(chunks), max_size=40), max_size=8))
    assert _speedups.term_columns(split, terms_of, 64) == _term_columns_in_python(split, terms_of)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(st.one_of(st.sampled_from(["0", "7", "42", "0042", "9" * 5, "1" * 6]),
                                   st.text("0123456789", min_size=1, max_size=7),
                                   st.text("0123456789/:", min_size=1, max_size=3),
                                   st.sampled_from(["w", "x"])), max_size=30), max_size=6),
       st.integers(1, 6))
def test_term_columns_take_missing_digits_as_their_own_term(split: list[list[str]], digits: int) -> None:
    """A chunk of 1 to ``digits`` ASCII digits missing from terms_of is its
    own term, as the analyzer takes it; a longer one, like any other missing
    chunk, leaves the count to Python; one in terms_of has its terms."""
    terms_of = {"w": ("w",), "x": ("a", "b"), "7": ("seven",)}
    expected: Any
    try:
        expected = _term_columns_in_python(split, terms_of, digits)
    except KeyError:
        expected = None
    assert _speedups.term_columns(split, terms_of, digits) == expected


def test_term_columns_leave_what_they_cannot_vouch_for_to_python() -> None:
    """A chunk without terms, a term or chunk of another type, or terms not
    in a tuple: None, for the Python count to decide (and raise)."""
    assert _speedups.term_columns([["a"]], {"b": ("b",)}, 64) is None
    assert _speedups.term_columns([["a"]], {"a": ["a"]}, 64) is None
    assert _speedups.term_columns([["a"]], {"a": ("a", 1)}, 64) is None
    assert _speedups.term_columns([("a",)], {"a": ("a",)}, 64) is None
    assert _speedups.term_columns([[], ["a", "a"]], {"a": ("x", "y")}, 64) == [(0, None), (4, "\tx:2\ty:2\t")]
    many = ["w"] * 12345
    assert _speedups.term_columns([many], {"w": ("w",)}, 64) == [(12345, "\tw:12345\t")]
    # digits that are not ASCII, or more of them than the limit
    for chunk in ("\u0663\u0664", "\uff11", "12" * 40, "1a", "-1", "1.5", "1/2", "9:"):
        assert _speedups.term_columns([[chunk]], {}, 64) is None
    assert _speedups.term_columns([["12" * 32]], {}, 64) == [(1, f"\t{'12' * 32}:1\t")]
    with pytest.raises(TypeError):
        _speedups.term_columns({}, {}, 64)
    with pytest.raises(TypeError):
        _speedups.term_columns([], {})
