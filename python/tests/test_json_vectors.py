"""The float32 vectors the scan of a JSON text reads ahead of the typed
decoder (memorywire._speedups): every number as ``json.loads`` reads it,
and every document decoded as the walkers decode it."""

from __future__ import annotations

import json
import math
import random
import struct
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_binary_vectors import values_of, vectors
from test_fast import BASE, RECORD, _decoders, _same, _text

import memorywire.json as mj
from memorywire import Float32Bytes, _document, _fast, _speedups
from memorywire import _model as m
from memorywire._compiled import FLOAT32_OVERFLOW
from memorywire.errors import MemorywireError
from memorywire.limits import Limits

pytestmark = pytest.mark.skipif(not _fast.ENABLED, reason="the fast path is not built here")


def _expected(token: str) -> Any:
    """What a float32 vector reads of one JSON number, or None for a token
    the scan leaves to the decoder: an integer of more than 18 digits or
    the token -0, a value beyond the float32 range."""
    value = json.loads(token)
    if isinstance(value, int):
        return value if len(token.lstrip("-")) <= 18 and token != "-0" else None
    return value if abs(value) < FLOAT32_OVERFLOW else None


def _same_number(got: Any, expected: Any) -> bool:
    if expected is None or got is None:
        return got is expected
    return type(got) is type(expected) and got == expected and math.copysign(1, got) == math.copysign(1, expected)


_digits = st.text("0123456789", min_size=1, max_size=30)
_tokens = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(width=32, allow_nan=False, allow_infinity=False).map(repr),
    st.builds(
        lambda sign, whole, fraction, exponent: sign + whole + fraction + exponent,
        st.sampled_from(["", "-"]),
        st.one_of(st.just("0"), st.builds(lambda a, b: a + b, st.sampled_from("123456789"),
                                          st.text("0123456789", max_size=29))),
        st.one_of(st.just(""), _digits.map(lambda d: "." + d)),
        st.one_of(st.just(""), st.builds(lambda e, s, d: e + s + d, st.sampled_from("eE"),
                                         st.sampled_from(["", "+", "-"]), st.text("0123456789", min_size=1,
                                                                                 max_size=4)))))

#: Numbers at the edges of the reading: halfway between two binary64
#: values (rounded to even), subnormals and the smallest one, beyond the
#: 19 digits the fast algorithm takes, the largest exact power of ten and
#: the next, the float32 range and its edge, the exponents of the table.
HARD = [
    "9007199254740993.0", "9007199254740995.0", "2.2250738585072011e-308", "2.2250738585072014e-308",
    "4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400", "-1e-400",
    "0.1", "0.30000000000000004", "1.00000000000000011102230246251565404236316680908203125",
    "1.00000000000000011102230246251565404236316680908203124", "123456789012345678901234567890.5",
    "1e22", "1e23", "8.98846567431158e307", "1e-22", "1e-23", "3.4028234663852886e38", "3.4028235677973366e38",
    "3.4028235677973362e38", "-3.4028235677973366e38", "3.402823567797336616375393954581425684e38",
    "0e999999999", "-0.0", "-0e5", "0.000000000000000000000000000001", "1e308", "1e-342", "1e-343",
    "7.2057594037927933e16", "0.010821457952260971", "-0.0027788865845650434", "999999999999999999",
    "1000000000000000000", "-999999999999999999", "0", "-0", "5", "1E2", "1e+2", "1.5E-3",
]


@pytest.mark.parametrize("token", HARD)
def test_hard_numbers_read_as_json_loads_reads_them(token: str) -> None:
    got = _speedups.json_numbers(f"[{token}]".encode())
    expected = _expected(token)
    assert _same_number(None if got is None else got[0], expected), (token, got, expected)


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(token=_tokens)
@example(token="1.7976931348623157e308")
def test_numbers_read_as_json_loads_reads_them(token: str) -> None:
    got = _speedups.json_numbers(f"[ {token} ,{token}]".encode())
    expected = _expected(token)
    assert _same_number(None if got is None else got[0], expected), (token, got, expected)
    if got is not None:
        assert len(got) == 2 and _same_number(got[1], expected)


#: Numbers of the shape whose digits the scan reads at once where the text
#: has room about them (-?(0|[1-9][0-9]*).[0-9]+, 19 digits or fewer), those
#: just beyond it, and what only looks like it.
_plain = st.builds(
    lambda sign, whole, fraction, tail: sign + whole + "." + fraction + tail,
    st.sampled_from(["", "-"]),
    st.one_of(st.just("0"), st.builds(lambda a, b: a + b, st.sampled_from("123456789"),
                                      st.text("0123456789", max_size=20))),
    st.text("0123456789", min_size=1, max_size=24),
    st.sampled_from(["", "", "", "e5", "E-2", "e+0"]))


def _amid(token: str, before: int, after: int, separator: str = ",") -> tuple[bytes, list[str]]:
    """An array with the token twice, `before` numbers ahead of it and
    `after` numbers behind: room on both sides once both are 8 or more."""
    tokens = ["0.5"] * before + [token, token] + ["-0.25"] * after
    return ("[" + separator.join(tokens) + "]").encode(), tokens


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(token=st.one_of(_plain, _tokens), before=st.integers(0, 10), after=st.integers(0, 10),
       separator=st.sampled_from([",", ", ", " ,", ",\n"]))
@example(token="-0.0000", before=8, after=8, separator=",")
@example(token="1234567890.123456789", before=8, after=8, separator=",")
@example(token="1234567890.1234567890", before=8, after=8, separator=",")
def test_numbers_amid_a_long_vector_read_as_json_loads_reads_them(token: str, before: int, after: int,
                                                                  separator: str) -> None:
    text, tokens = _amid(token, before, after, separator)
    got = _speedups.json_numbers(text)
    expected = [_expected(t) for t in tokens]
    if None in expected:
        assert got is None, (token, got)
    else:
        assert got is not None and len(got) == len(expected), (token, got)
        assert all(_same_number(g, e) for g, e in zip(got, expected, strict=True)), (token, got, expected)


def test_every_length_of_a_plain_number_reads_as_json_loads_reads_it() -> None:
    """Each count of digits before the point (none but 0, then 1 to 21) and
    after it (1 to 24), with random digits and both signs, in one long
    array: lengths within the 19 digits read at once and beyond them."""
    r = random.Random(7)
    tokens = []
    for whole in range(22):
        for fraction in range(1, 25):
            for sign in ("", "-"):
                head = "0" if whole == 0 else r.choice("123456789") + "".join(r.choices("0123456789", k=whole - 1))
                tokens.append(sign + head + "." + "".join(r.choices("0123456789", k=fraction)))
    text = ("[" + ",".join(tokens) + "]").encode()
    got = _speedups.json_numbers(text)
    assert got is not None and len(got) == len(tokens)
    bad = [(t, g) for t, g in zip(tokens, got, strict=True) if not _same_number(g, json.loads(t))]
    assert not bad, bad[:5]


def test_the_last_of_19_digits_decides_where_a_value_rounds() -> None:
    """Values of 19 digits just either side of the midpoint between two
    binary64 values, so close that the last digit alone decides which way
    each rounds, in one long array."""
    r = random.Random(11)
    tokens = []
    for _ in range(300):
        x = r.uniform(0.001, 1000.0) if r.random() < 0.3 else r.uniform(0.0, 1.0)
        midpoint = (Fraction(x) + Fraction(math.nextafter(x, math.inf))) / 2
        scale = 19 - len(str(int(x))) if x >= 1 else 19  # digits after the point
        low = math.floor(midpoint * 10**scale)
        for value in (low, low + 1):
            digits = str(value).rjust(scale + 1, "0")
            tokens.append(r.choice(["", "-"]) + (digits[:-scale].lstrip("0") or "0") + "." + digits[-scale:])
    assert len(tokens) == 600
    got = _speedups.json_numbers(("[" + ",".join(tokens) + "]").encode())
    assert got is not None
    bad = [(t, g) for t, g in zip(tokens, got, strict=True) if not _same_number(g, json.loads(t))]
    assert not bad, bad[:5]


@pytest.mark.parametrize("token", ["01.5", "00.5", "-.5", ".5", "1.", "1.e5", "0.5.5", "--0.5", "-", "0.5e",
                                   "1.5E+", "0x1.5", "0.5x", "1_000.5"])
def test_what_only_looks_like_a_plain_number_amid_a_long_vector_is_not_read(token: str) -> None:
    assert _speedups.json_numbers(_amid(token, 10, 10)[0]) is None


@pytest.mark.parametrize("text", [b"[]", b"[1,]", b"[,1]", b"[01]", b"[1.]", b"[.5]", b"[1e]", b"[+1]", b"[1 2]",
                                  b'[1,"2"]', b"[1,[2]]", b"[1", b"[1]x", b"[NaN]", b"[Infinity]", b"[0x10]",
                                  b"[1e5000]", b"[-]", b"[1,-0]", b"[\x0c1]"])
def test_what_is_not_an_array_of_numbers_is_not_read(text: bytes) -> None:
    assert _speedups.json_numbers(text) is None


def test_the_powers_of_five_are_those_of_the_paper() -> None:
    """Entries of the table of Lemire's paper (and of every implementation
    of it): the first, 5^-1, 5^0 and the last."""
    table = _fast._decimal_powers()
    assert len(table) == 16 * (308 + 342 + 1)

    def entry(q: int) -> tuple[int, int]:
        at = 16 * (q + 342)
        return int.from_bytes(table[at:at + 8], "little"), int.from_bytes(table[at + 8:at + 16], "little")

    assert entry(-342) == (0xeef453d6923bd65a, 0x113faa2906a13b3f)
    assert entry(-1) == (0xcccccccccccccccc, 0xcccccccccccccccd)
    assert entry(0) == (1 << 63, 0)
    assert entry(308) == (0x8e679c2f5e44ff8f, 0x570f09eaa7ea7648)
    with pytest.raises(ValueError, match="bytes"):
        _speedups.decimal_powers(table[:-1])


LONG = [0.5, -0.25, 1, -0.0, 0, 2.5e-7, -3, 0.010821457952260971, 1e-30, 3.4e38, -1.5e-45, 7, 0.1, 0.2, 0.3, 0.4]
VECTOR = _text({**BASE, "embeddings": [{"values": LONG, "dimensions": len(LONG), "model": "m"}]})


def _recording_fast_path(type_name: str = RECORD) -> tuple[Any, list[bytes]]:
    """A JSON fast path whose typed decoders record the text they are given."""
    seen: list[bytes] = []
    info = m.message(type_name)
    fast, _pure = _decoders(mj, type_name)
    typed = fast._fast

    def decode(text: bytes) -> Any:
        seen.append(text)
        return typed.decode(text)

    def decode_clean(text: bytes) -> Any:
        seen.append(text)
        return typed.decode_clean(text)

    return _fast._fast_path(info, "json", Limits(), decode, decode_clean, None), seen


def test_the_scan_reads_a_vector_ahead_of_the_decoder() -> None:
    """The decoder gets the placeholder where the vector was, the document
    its values: integers stay integers, -0.0 keeps its sign."""
    fast_path, seen = _recording_fast_path()
    got = fast_path(VECTOR)
    assert seen == [VECTOR.replace(json.dumps(LONG, separators=(",", ":")).encode(), b'"\\u0001"')]
    assert got == json.loads(VECTOR)
    values = got["embeddings"][0]["values"]
    assert [type(x) for x in values] == [type(x) for x in LONG]
    assert [math.copysign(1, x) for x in values] == [math.copysign(1, x) for x in LONG]
    # A short vector, or one in a text where a string could decode to the
    # placeholder (the escape \u0001), is the decoder's to read.
    for text in (_text({**BASE, "embeddings": [{"values": LONG[:15], "dimensions": 15, "model": "m"}]}),
                 _text({**BASE, "tags": ["a\x01"], "embeddings": [{"values": LONG, "dimensions": 16, "model": "m"}]}),
                 _text({**BASE, "tags": ["\x01", "b"], "embeddings": [{"values": LONG, "dimensions": 16,
                                                                          "model": "m"}]})):
        seen.clear()
        assert fast_path(text) == json.loads(text)
        assert seen == [text]
    # Any other escape leaves the vector to the scan: \\u0001 (a backslash,
    # then the letter u) as well.
    for tag in ('"a\\n"', '"say \\"hi\\""', '"\\\\u0001"', '"\\u00e9\\ud83d\\ude00"'):
        text = _with_vector(LONG_TEXT).replace(b'"tags":["x"]', b'"tags":[' + tag.encode() + b"]")
        assert b"\\" in text
        seen.clear()
        assert fast_path(text) == json.loads(text)
        assert seen == [text.replace(LONG_TEXT.encode(), b'"\\u0001"')]


def test_the_scan_reads_the_vectors_of_a_batch() -> None:
    """The vectors of the records of a PutRequest, each in its place."""
    record = {k: v for k, v in json.loads(VECTOR).items() if k != "specversion"}
    other = {**record, "id": "r2", "embeddings": [{"values": LONG[::-1], "dimensions": 16, "model": "m"}]}
    doc = {"specversion": "1.0", "operation_id": "op1", "items": [{"record": record}, {"record": other}]}
    fast_path, seen = _recording_fast_path("memorywire.v1.PutRequest")
    got = fast_path(_text(doc))
    assert got == doc
    assert [it["record"]["embeddings"][0]["values"] for it in got["items"]] == [LONG, LONG[::-1]]
    assert seen[0].count(b'"\\u0001"') == 2 and b"0.010821457952260971" not in seen[0]
    _same(mj, "memorywire.v1.PutRequest", _text(doc))


def test_the_scan_gives_a_vector_read_as_its_bytes_on_request() -> None:
    """A JSON decoder asked for bytes gets each vector as its binary32
    bytes from the fast path itself, the one the scan read and the one the
    typed decoder read, each value rounded to nearest as struct rounds it;
    the document is that of the decoder of floats, vector for vector."""
    short = [0.1, 1, -0.0]
    doc = {**json.loads(VECTOR), "embeddings": [{"values": LONG, "dimensions": 16, "model": "m"},
                                                {"values": short, "dimensions": 3, "model": "n"}]}
    text = _text(doc)
    fast = _fast.decoder("json", RECORD, Limits(), binary_vectors=True)
    got = fast(text)
    assert [type(e["values"]) for e in got["embeddings"]] == [Float32Bytes, Float32Bytes]
    assert [bytes(e["values"]) for e in got["embeddings"]] == [struct.pack("<16f", *LONG),
                                                               struct.pack("<3f", *short)]
    decoded = mj.decode(text, vectors="bytes")
    assert [bytes(e["values"]) for e in decoded["embeddings"]] == [struct.pack("<16f", *LONG),
                                                                   struct.pack("<3f", *short)]
    assert all(type(e["values"]) is Float32Bytes for e in decoded["embeddings"])
    floats = mj.decode(text)
    for e, f in zip(decoded["embeddings"], floats["embeddings"], strict=True):
        assert e["values"].values() == list(struct.unpack(f"<{len(f['values'])}f", struct.pack(
            f"<{len(f['values'])}f", *f["values"])))


def _with_vector(values: str, **more: Any) -> bytes:
    return _text({**BASE, **more, "embeddings": [{"values": "V", "dimensions": 16, "model": "m"}]}).replace(
        b'"V"', values.encode())


LONG_TEXT = json.dumps(LONG, separators=(",", ":"))
CASES = [
    VECTOR,
    json.dumps(json.loads(VECTOR), indent=2).encode(),
    _with_vector("[ " + " , ".join(map(repr, LONG)) + " ]"),
    _with_vector(LONG_TEXT.replace("0.5", "-0")),
    _with_vector(LONG_TEXT.replace("0.5", "1e39")),
    _with_vector(LONG_TEXT.replace("0.5", "3.40282356779733661637539395458142568448e38")),
    _with_vector(LONG_TEXT.replace("0.5", "0.50000000000000000000000000001")),
    _with_vector(LONG_TEXT.replace("0.5", "12345678901234567890")),
    _with_vector(LONG_TEXT.replace("0.5", "true")),
    _with_vector(LONG_TEXT.replace("0.5", '"0.5"')),
    _with_vector(LONG_TEXT.replace("0.5", "[0.5]")),
    _with_vector(LONG_TEXT.replace("0.5", "0.5,0.5")),  # 17 values, 16 dimensions
    _with_vector(LONG_TEXT[:-1]),
    _with_vector(LONG_TEXT + ',"values":' + LONG_TEXT),  # a repeated member
    _with_vector('"\\u0001"'),
    # Numeric arrays named as vectors elsewhere: in a Value, and in a Value
    # while the vector field holds the placeholder's text or a vector.
    _text({**BASE, "metadata": {"values": LONG}}),
    _text({**BASE, "metadata": {"values": LONG}}).replace(b'"tags":["x"]', b'"tags":["\\u0001"]'),
    _with_vector('"\\u0001"', metadata={"values": LONG}),
    _with_vector(LONG_TEXT, metadata={"values": LONG}),
    _with_vector(LONG_TEXT, extensions={"com.example.x": {"values": LONG}}),
    # Escapes beside a vector read: other than \u0001, and \u0001 itself.
    _with_vector(LONG_TEXT).replace(b'"tags":["x"]', b'"tags":["a\\n\\"b\\\\u0001"]'),
    _with_vector(LONG_TEXT).replace(b'"tags":["x"]', b'"tags":["\\u0001"]'),
    _with_vector(LONG_TEXT.replace("0.5", "1e39")).replace(b'"tags":["x"]', b'"tags":["a\\tb"]'),
    _with_vector(LONG_TEXT.replace("0.5", "-0")).replace(b'"tags":["x"]', b'"tags":["a\\/b"]'),
    # The placeholder's text where a string goes, beside a vector read.
    _with_vector(LONG_TEXT).replace(b'"id":"r1"', b'"id":"\\u0001"'),
    _with_vector(LONG_TEXT).replace(b'"tags":["x"]', b'"tags":' + LONG_TEXT.encode()),
    _with_vector(LONG_TEXT).replace(b'"id":"r1"', b'"id":' + LONG_TEXT.encode()),
    _text({**BASE, "embeddings": [{"values": LONG, "dimensions": 16, "model": "m"},
                                  {"values": LONG[:-1], "dimensions": 15, "model": "n"},
                                  {"values": LONG, "dimensions": 16, "model": "o"}]}),
    _text({**BASE, "embeddings": [{"values": LONG, "dimensions": 15, "model": "m"}]}),
    _text({**BASE, "embeddings": [{"values": [0.25] * 65536, "dimensions": 65536, "model": "m"}]}),
    _text({**BASE, "embeddings": [{"values": [0.25] * 65537, "model": "m"}]}),
    _text({**BASE, "embeddings": [{"values": LONG, "dimensions": 16, "model": "m"}] * 70}),
]


def _as_bytes(decoder: Any, data: bytes, convert: bool) -> Any:
    try:
        doc, walk = decoder.decode_walk(data)
    except MemorywireError as e:
        return ("error", e.reason, [(v.pointer, v.reason) for v in e.violations])
    if convert:
        doc = _document.with_byte_vectors(doc, _document.info(RECORD))
    return ("ok", json.dumps(values_of(doc)), list(walk.unknown), [type(v) for v in vectors(doc)])


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_documents_with_vectors_decode_alike(data: bytes) -> None:
    _same(mj, RECORD, data)
    # Asked for bytes: what the decoder of floats gives, made bytes after.
    assert _as_bytes(mj.Decoder(RECORD, vectors="bytes"), data, False) == _as_bytes(mj.Decoder(RECORD), data, True)


def test_a_vector_read_where_no_vector_goes_sends_the_document_to_the_walkers() -> None:
    """A numeric array named as a vector in a Value is read too; the walk
    takes no placeholder there, and the walkers judge the document."""
    fast, pure = _decoders(mj, RECORD)
    for data in (_text({**BASE, "metadata": {"values": LONG}}), _with_vector('"\\u0001"', metadata={"values": LONG}),
                 _with_vector(LONG_TEXT).replace(b'"tags":["x"]', b'"tags":' + LONG_TEXT.encode())):
        assert fast._fast(data) is None
    assert fast.decode(_text({**BASE, "metadata": {"values": LONG}}))["metadata"]["values"] == LONG
