"""Building blocks of the memorywire conformance vectors.

This module gives the case sources (``sources/*.py``) what they need to state
a case: the document it is about, in its JSON form (a Python dict), and the
exact input bytes in each encoding.

It holds three kinds of writers, each independent of the reference codec
(only the field tables, which come from the ``.proto`` descriptors, are
shared):

* canonical writers for JSON, MessagePack and Protobuf, which implement the
  canonical forms of json-format.md section 7, msgpack-format.md section 7
  and protobuf-format.md section 6 from the text of the specification. The
  builder compares their output with that of the reference codec for every
  valid case;
* input writers, which write a document in the order in which it was
  authored, with every field where the author put it, so that a source can
  state non-canonical but valid inputs;
* raw writers for MessagePack objects and Protobuf records, with which a
  source states malformed inputs byte by byte: non-minimal formats, duplicate
  keys, unknown field numbers, wrong wire types, truncations.
"""

from __future__ import annotations

import base64
import math
import re
import struct
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memorywire import _model as m

RECORD = "memorywire.v1.MemoryRecord"
ENCODINGS = ("json", "msgpack", "protobuf")
LEVELS = ("required", "recommended")


class AuthoringError(Exception):
    """A case source states something the writers cannot write."""


# ---------------------------------------------------------------------------
# Wrappers that a source puts into an authored document
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class JRaw:
    """JSON text written verbatim where a value stands (``1.0``, ``1e400``)."""

    text: str


@dataclass(frozen=True)
class Pairs:
    """An object or map given as a list of (key, value) pairs, in order and
    possibly with a repeated key. Keys may be any MessagePack-writable value
    (for a non-str key in MessagePack)."""

    items: tuple[tuple[Any, Any], ...]

    def __init__(self, items: list[tuple[Any, Any]] | tuple[tuple[Any, Any], ...]) -> None:
        object.__setattr__(self, "items", tuple(items))


@dataclass(frozen=True)
class MRaw:
    """MessagePack bytes written verbatim where an object stands."""

    data: bytes


@dataclass(frozen=True)
class MInt:
    """An integer in a chosen MessagePack format: ``fixint``, ``u8``, ``u16``,
    ``u32``, ``u64``, ``i8``, ``i16``, ``i32``, ``i64``, ``nfixint``."""

    value: int
    fmt: str


@dataclass(frozen=True)
class MStr:
    """A str in a chosen format: ``fix``, ``8``, ``16``, ``32``. ``data`` is
    the exact bytes (which need not be UTF-8)."""

    data: bytes
    fmt: str | None = None


@dataclass(frozen=True)
class MBin:
    """A bin in a chosen format: ``8``, ``16``, ``32``."""

    data: bytes
    fmt: str | None = None


@dataclass(frozen=True)
class MArr:
    """An array in a chosen format: ``fix``, ``16``, ``32``."""

    items: tuple[Any, ...]
    fmt: str | None = None

    def __init__(self, items: list[Any] | tuple[Any, ...], fmt: str | None = None) -> None:
        object.__setattr__(self, "items", tuple(items))
        object.__setattr__(self, "fmt", fmt)


@dataclass(frozen=True)
class MMap:
    """A map in a chosen format: ``fix``, ``16``, ``32``; entries in order."""

    items: tuple[tuple[Any, Any], ...]
    fmt: str | None = None

    def __init__(self, items: Any, fmt: str | None = None) -> None:
        if isinstance(items, dict):
            items = list(items.items())
        object.__setattr__(self, "items", tuple(items))
        object.__setattr__(self, "fmt", fmt)


@dataclass(frozen=True)
class MF32:
    """A MessagePack float 32."""

    value: float


@dataclass(frozen=True)
class MExt:
    """An ext object of a type with the given data, in a chosen format
    (``fixext``, ``8``, ``16``, ``32``; default the smallest)."""

    type: int
    data: bytes
    fmt: str | None = None


@dataclass(frozen=True)
class MTs:
    """A MessagePack timestamp (ext -1) in a chosen layout (32, 64 or 96;
    default the canonical one)."""

    seconds: int
    nanos: int = 0
    layout: int | None = None


@dataclass(frozen=True)
class PRaw:
    """Protobuf bytes that replace a member's whole record (tag included)."""

    data: bytes


@dataclass(frozen=True)
class PEnum:
    """An enum field written as this number (known or not)."""

    number: int


@dataclass(frozen=True)
class PTs:
    """A Protobuf Timestamp message with these raw seconds and nanos."""

    seconds: int
    nanos: int = 0


@dataclass(frozen=True)
class Unpacked:
    """A repeated float written unpacked: one I32 record per element."""

    values: tuple[float, ...]

    def __init__(self, values: list[float] | tuple[float, ...]) -> None:
        object.__setattr__(self, "values", tuple(values))


# ---------------------------------------------------------------------------
# Field tables
# ---------------------------------------------------------------------------


def info(type_name: str) -> m.MessageInfo:
    return m.message(type_name)


# ---------------------------------------------------------------------------
# Timestamps (json-format.md section 3.6, msgpack-format.md section 3.6)
# ---------------------------------------------------------------------------

_TS = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z"
)
_EPOCH = date(1970, 1, 1).toordinal()
MIN_SECONDS = -62135596800
MAX_SECONDS = 253402300799


def ts_parse(text: str) -> tuple[int, int]:
    """Seconds and nanoseconds of a valid RFC 3339 timestamp string."""
    mt = _TS.fullmatch(text)
    if mt is None:
        raise AuthoringError(f"{text!r} is not a timestamp the writers can convert")
    y, mo, d, hh, mi, ss = (int(mt.group(i)) for i in range(1, 7))
    frac = mt.group(7) or ""
    days = date(y, mo, d).toordinal() - _EPOCH
    if hh > 23 or mi > 59 or ss > 59:
        raise AuthoringError(f"{text!r} is not a valid time")
    return days * 86400 + hh * 3600 + mi * 60 + ss, int(frac.ljust(9, "0")) if frac else 0


def ts_format(seconds: int, nanos: int) -> str:
    """The canonical JSON spelling of an instant."""
    days, rest = divmod(seconds, 86400)
    d = date.fromordinal(days + _EPOCH)
    head = f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
    if nanos == 0:
        return head + "Z"
    for digits in (3, 6, 9):
        if nanos % 10 ** (9 - digits) == 0:
            return f"{head}.{nanos // 10 ** (9 - digits):0{digits}d}Z"
    raise AssertionError


def ts_canonical(text: str) -> str:
    return ts_format(*ts_parse(text))


# ---------------------------------------------------------------------------
# Floats
# ---------------------------------------------------------------------------


def f32(x: float) -> float:
    """The binary32 nearest to x, widened back to binary64."""
    return struct.unpack("<f", struct.pack("<f", x))[0]  # type: ignore[no-any-return]


def f32_bits(bits: int) -> float:
    """The binary32 with these bits, widened to binary64."""
    return struct.unpack("<f", bits.to_bytes(4, "little"))[0]  # type: ignore[no-any-return]


def format_float(x: float) -> str:
    """The canonical JSON spelling of a finite binary64 value
    (json-format.md section 7.4), from the shortest round-trip digits."""
    if not math.isfinite(x):
        raise AuthoringError("a non-finite float has no canonical JSON spelling")
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mant, _, exp_text = r.partition("e")
    exp = int(exp_text) if exp_text else 0
    ip, _, fp = mant.partition(".")
    whole = int(ip + fp)
    digits = str(whole)
    stripped = digits.rstrip("0")
    k = exp - len(fp) + (len(digits) - len(stripped))
    n = len(stripped)
    e = k + n - 1
    if -5 <= e < 16:
        if e >= 0:
            intpart = stripped[: e + 1].ljust(e + 1, "0")
            frac = stripped[e + 1:] or "0"
            return f"{sign}{intpart}.{frac}"
        return f"{sign}0.{'0' * (-e - 1)}{stripped}"
    body = stripped[0] + ("." + stripped[1:] if n > 1 else "")
    return f"{sign}{body}e{'+' if e > 0 else '-'}{abs(e)}"


# ---------------------------------------------------------------------------
# Normalisation: the canonical abstract value of a document, JSON form
# ---------------------------------------------------------------------------


def _is_default(v: Any, f: m.FieldInfo) -> bool:
    k = f.kind
    if k in (m.STRING, m.BYTES):
        return bool(v == "")
    if k == m.UINT:
        return bool(v == 0)
    if k == m.BOOL:
        return v is False
    if k == m.DOUBLE:
        return v == 0 and math.copysign(1.0, v) > 0
    return False


def normalize(doc: dict[str, Any], type_name: str) -> dict[str, Any]:
    """The document with defaults dropped, timestamps in canonical spelling,
    float32 values rounded and doubles as floats. Unknown members stay."""
    return _normalize(doc, info(type_name))


def _normalize(doc: dict[str, Any], mi: m.MessageInfo) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, v in doc.items():
        f = mi.fields.get(key)
        if f is None:
            out[key] = v
        elif f.is_map:
            if v:
                out[key] = v
        elif f.repeated:
            if not v:
                continue
            if f.kind == m.MESSAGE:
                assert f.message is not None
                out[key] = [_normalize(x, f.message) for x in v]
            elif f.kind == m.FLOAT32:
                out[key] = [f32(float(x)) for x in v]
            elif f.kind == m.TIMESTAMP:
                out[key] = [ts_canonical(x) for x in v]
            else:
                out[key] = list(v)
        elif f.kind == m.MESSAGE:
            assert f.message is not None
            out[key] = _normalize(v, f.message)
        elif f.kind == m.TIMESTAMP:
            out[key] = ts_canonical(v)
        elif f.kind == m.VALUE:
            out[key] = v
        elif f.presence or not _is_default(v, f):
            out[key] = float(v) if f.kind == m.DOUBLE else v
    return out


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def json_string(s: str) -> str:
    out = ['"']
    for ch in s:
        e = _ESCAPES.get(ch)
        if e is not None:
            out.append(e)
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_value(v: Any, *, sort: bool) -> str:
    """JSON text of a value: compact; members sorted by code point when
    ``sort``, else in the authored order."""
    if isinstance(v, JRaw):
        return v.text
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v)
    if isinstance(v, str):
        return json_string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(json_value(x, sort=sort) for x in v) + "]"
    if isinstance(v, Pairs):
        items = list(v.items)
    elif isinstance(v, dict):
        items = list(v.items())
    else:
        raise AuthoringError(f"cannot write {type(v).__name__} as JSON")
    if sort:
        items.sort(key=lambda kv: kv[0])
    return "{" + ",".join(json_string(k) + ":" + json_value(x, sort=sort) for k, x in items) + "}"


def json_text(doc: Any) -> str:
    """A document as compact JSON text in the authored order."""
    return json_value(doc, sort=False)


def canonical_json(doc: dict[str, Any], type_name: str) -> bytes:
    return json_value(normalize(doc, type_name), sort=True).encode("utf-8")


# ---------------------------------------------------------------------------
# MessagePack
# ---------------------------------------------------------------------------


def _mp_uint(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    if n < 0x100:
        return b"\xcc" + n.to_bytes(1, "big")
    if n < 0x10000:
        return b"\xcd" + n.to_bytes(2, "big")
    if n < 0x100000000:
        return b"\xce" + n.to_bytes(4, "big")
    return b"\xcf" + n.to_bytes(8, "big")


def _mp_int(n: int) -> bytes:
    if n >= 0:
        return _mp_uint(n)
    if n >= -32:
        return (n & 0xFF).to_bytes(1, "big")
    if n >= -0x80:
        return b"\xd0" + n.to_bytes(1, "big", signed=True)
    if n >= -0x8000:
        return b"\xd1" + n.to_bytes(2, "big", signed=True)
    if n >= -0x80000000:
        return b"\xd2" + n.to_bytes(4, "big", signed=True)
    return b"\xd3" + n.to_bytes(8, "big", signed=True)


_MINT = {
    "u8": (b"\xcc", 1, False), "u16": (b"\xcd", 2, False), "u32": (b"\xce", 4, False),
    "u64": (b"\xcf", 8, False), "i8": (b"\xd0", 1, True), "i16": (b"\xd1", 2, True),
    "i32": (b"\xd2", 4, True), "i64": (b"\xd3", 8, True),
}


def _mp_len(n: int, fix_base: int | None, fix_max: int, codes: tuple[bytes, bytes, bytes], fmt: str | None) -> bytes:
    if fmt is None:
        if fix_base is not None and n <= fix_max:
            fmt = "fix"
        elif n < 0x100 and codes[0]:
            fmt = "8"
        elif n < 0x10000:
            fmt = "16"
        else:
            fmt = "32"
    if fmt == "fix":
        assert fix_base is not None and n <= fix_max
        return bytes([fix_base | n])
    if fmt == "8":
        return codes[0] + n.to_bytes(1, "big")
    if fmt == "16":
        return codes[1] + n.to_bytes(2, "big")
    if fmt == "32":
        return codes[2] + n.to_bytes(4, "big")
    raise AuthoringError(f"unknown format {fmt!r}")


def _mp_str(data: bytes, fmt: str | None = None) -> bytes:
    return _mp_len(len(data), 0xA0, 31, (b"\xd9", b"\xda", b"\xdb"), fmt) + data


def _mp_bin(data: bytes, fmt: str | None = None) -> bytes:
    return _mp_len(len(data), None, -1, (b"\xc4", b"\xc5", b"\xc6"), fmt) + data


def _mp_ext(typ: int, data: bytes, fmt: str | None = None) -> bytes:
    n = len(data)
    t = (typ & 0xFF).to_bytes(1, "big")
    fixed = {1: b"\xd4", 2: b"\xd5", 4: b"\xd6", 8: b"\xd7", 16: b"\xd8"}
    if fmt is None:
        fmt = "fixext" if n in fixed else "8" if n < 0x100 else "16" if n < 0x10000 else "32"
    if fmt == "fixext":
        return fixed[n] + t + data
    code, size = {"8": (b"\xc7", 1), "16": (b"\xc8", 2), "32": (b"\xc9", 4)}[fmt]
    return code + n.to_bytes(size, "big") + t + data


def mp_timestamp(seconds: int, nanos: int, layout: int | None = None) -> bytes:
    """The ext -1 object of an instant, in the canonical layout unless one is
    named (msgpack-format.md section 3.6)."""
    if layout is None:
        if nanos == 0 and 0 <= seconds < 2**32:
            layout = 32
        elif 0 <= seconds < 2**34:
            layout = 64
        else:
            layout = 96
    if layout == 32:
        return b"\xd6\xff" + seconds.to_bytes(4, "big")
    if layout == 64:
        return b"\xd7\xff" + ((nanos << 34) | seconds).to_bytes(8, "big")
    if layout == 96:
        return b"\xc7\x0c\xff" + nanos.to_bytes(4, "big") + seconds.to_bytes(8, "big", signed=True)
    raise AuthoringError(f"no timestamp layout {layout}")


def mp_pack(v: Any) -> bytes:
    """MessagePack bytes of a typed tree, in the order given, every length in
    the smallest format unless a wrapper says otherwise."""
    if isinstance(v, MRaw):
        return v.data
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        return _mp_int(v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        return _mp_str(v.encode("utf-8"))
    if isinstance(v, (bytes, bytearray)):
        return _mp_bin(bytes(v))
    if isinstance(v, MInt):
        if v.fmt == "fixint":
            assert 0 <= v.value < 0x80
            return bytes([v.value])
        if v.fmt == "nfixint":
            assert -32 <= v.value < 0
            return (v.value & 0xFF).to_bytes(1, "big")
        code, size, signed = _MINT[v.fmt]
        return code + v.value.to_bytes(size, "big", signed=signed)
    if isinstance(v, MStr):
        return _mp_str(v.data, v.fmt)
    if isinstance(v, MBin):
        return _mp_bin(v.data, v.fmt)
    if isinstance(v, MF32):
        return b"\xca" + struct.pack(">f", v.value)
    if isinstance(v, MExt):
        return _mp_ext(v.type, v.data, v.fmt)
    if isinstance(v, MTs):
        return mp_timestamp(v.seconds, v.nanos, v.layout)
    if isinstance(v, (list, tuple, MArr)):
        items = v.items if isinstance(v, MArr) else v
        fmt = v.fmt if isinstance(v, MArr) else None
        head = _mp_len(len(items), 0x90, 15, (b"", b"\xdc", b"\xdd"), fmt)
        return head + b"".join(mp_pack(x) for x in items)
    if isinstance(v, (dict, Pairs, MMap)):
        if isinstance(v, dict):
            items, fmt = list(v.items()), None
        elif isinstance(v, Pairs):
            items, fmt = list(v.items), None
        else:
            items, fmt = list(v.items), v.fmt
        head = _mp_len(len(items), 0x80, 15, (b"", b"\xde", b"\xdf"), fmt)
        return head + b"".join(mp_pack(k) + mp_pack(x) for k, x in items)
    raise AuthoringError(f"cannot write {type(v).__name__} as MessagePack")


def _utf8_key(k: Any) -> bytes:
    return k.encode("utf-8") if isinstance(k, str) else bytes(k)


def _mp_sorted_value(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _mp_sorted_value(v[k]) for k in sorted(v, key=_utf8_key)}
    if isinstance(v, list):
        return [_mp_sorted_value(x) for x in v]
    return v


def mp_tree(doc: Any, type_name: str, *, sort: bool = False) -> Any:
    """The typed MessagePack tree of a document in its JSON form: timestamps
    as ext -1, bytes as bin, float32 vectors as bin, Float fields as float 64.
    Wrappers pass through; members stay in the authored order unless
    ``sort``."""
    return _mp_tree(doc, info(type_name), sort)


def _mp_tree(doc: Any, mi: m.MessageInfo, sort: bool) -> Any:
    if not isinstance(doc, dict):
        return doc
    keys = sorted(doc, key=_utf8_key) if sort else list(doc)
    out: dict[str, Any] = {}
    for key in keys:
        v = doc[key]
        f = mi.fields.get(key)
        out[key] = _mp_field(v, f, sort)
    return out


def _mp_field(v: Any, f: m.FieldInfo | None, sort: bool) -> Any:
    if f is None or f.is_map or f.kind == m.VALUE:
        return _mp_sorted_value(v) if sort else v
    if f.repeated:
        if not isinstance(v, list):
            return v
        if f.kind == m.FLOAT32:
            if any(not isinstance(x, (int, float)) for x in v):
                return v
            return b"".join(struct.pack("<f", x) for x in v)
        return [_mp_single(x, f, sort) for x in v]
    return _mp_single(v, f, sort)


def _mp_single(v: Any, f: m.FieldInfo, sort: bool) -> Any:
    k = f.kind
    if k == m.MESSAGE and isinstance(v, dict):
        assert f.message is not None
        return _mp_tree(v, f.message, sort)
    if k == m.TIMESTAMP and isinstance(v, str):
        return MTs(*ts_parse(v))
    if k == m.BYTES and isinstance(v, str):
        return base64.b64decode(v, validate=True)
    if k == m.DOUBLE and isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    return v


def msgpack_input(doc: Any, type_name: str = RECORD) -> bytes:
    """A document as MessagePack, members in the authored order."""
    return mp_pack(mp_tree(doc, type_name))


def canonical_msgpack(doc: dict[str, Any], type_name: str) -> bytes:
    return mp_pack(mp_tree(normalize(doc, type_name), type_name, sort=True))


# ---------------------------------------------------------------------------
# Protobuf
# ---------------------------------------------------------------------------

VARINT, I64, LEN, I32 = 0, 1, 2, 5


def varint(n: int) -> bytes:
    if n < 0:
        n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def ld(number: int, payload: bytes) -> bytes:
    """A LEN record."""
    return tag(number, LEN) + varint(len(payload)) + payload


def vi(number: int, n: int) -> bytes:
    """A VARINT record."""
    return tag(number, VARINT) + varint(n)


def f64(number: int, x: float) -> bytes:
    """An I64 record holding a double."""
    return tag(number, I64) + struct.pack("<d", x)


def zigzag(n: int) -> int:
    return ((n << 1) ^ (n >> 63)) & ((1 << 64) - 1)


def pb_value(v: Any, *, sort: bool = True) -> bytes:
    """The bytes of a memorywire.v1.Value message (not its record); map
    entries sorted by UTF-8 key when ``sort``, else in the authored order."""
    if isinstance(v, PRaw):
        return v.data
    if v is None:
        return vi(1, 0)
    if isinstance(v, bool):
        return vi(2, int(v))
    if isinstance(v, int):
        return vi(3, zigzag(v))
    if isinstance(v, float):
        return f64(4, v)
    if isinstance(v, str):
        return ld(5, v.encode("utf-8"))
    if isinstance(v, list):
        return ld(6, b"".join(ld(1, pb_value(x, sort=sort)) for x in v))
    if isinstance(v, (dict, Pairs)):
        return ld(7, pb_entries(v, 1, sort=sort and isinstance(v, dict)))
    raise AuthoringError(f"cannot write {type(v).__name__} as a Protobuf Value")


def pb_entries(v: dict[str, Any] | Pairs, number: int, *, sort: bool) -> bytes:
    """Records of a repeated MapEntry field; sorted by UTF-8 key when ``sort``."""
    items = list(v.items) if isinstance(v, Pairs) else list(v.items())
    if sort:
        items.sort(key=lambda kv: kv[0].encode("utf-8"))
    out = []
    for key, x in items:
        body = (ld(1, key.encode("utf-8")) if key else b"") + ld(2, pb_value(x, sort=sort))
        out.append(ld(number, body))
    return b"".join(out)


def pb_timestamp(seconds: int, nanos: int) -> bytes:
    return (vi(1, seconds) if seconds else b"") + (vi(2, nanos) if nanos else b"")


def pb_message(doc: dict[str, Any], type_name: str, *, canonical: bool = False) -> bytes:
    """Protobuf bytes of a document in its JSON form. With ``canonical`` the
    fields are written in field-number order and map entries sorted;
    otherwise in the authored order, as authored."""
    return _pb_message(doc, info(type_name), canonical)


def _pb_message(doc: dict[str, Any], mi: m.MessageInfo, canonical: bool) -> bytes:
    items = list(doc.items())
    if canonical:
        def order(kv: tuple[str, Any]) -> int:
            f = mi.fields.get(kv[0])
            if f is None:
                raise AuthoringError(f"{kv[0]!r} is not a field of {mi.name}")
            return f.number
        items.sort(key=order)
    out = []
    for key, v in items:
        if isinstance(v, PRaw):
            out.append(v.data)
            continue
        f = mi.fields.get(key)
        if f is None:
            raise AuthoringError(f"{key!r} is not a field of {mi.name}; use PRaw for an unknown field")
        out.append(_pb_field(v, f, canonical))
    return b"".join(out)


def _pb_field(v: Any, f: m.FieldInfo, canonical: bool) -> bytes:
    n = f.number
    if f.is_map:
        return pb_entries(v, n, sort=canonical)
    if f.repeated:
        if f.kind == m.FLOAT32:
            if isinstance(v, Unpacked):
                return b"".join(tag(n, I32) + struct.pack("<f", x) for x in v.values)
            return ld(n, b"".join(struct.pack("<f", x) for x in v)) if v else b""
        if f.kind == m.ENUM:
            assert f.enum is not None
            nums = [x.number if isinstance(x, PEnum) else f.enum.by_json[x] for x in v]
            return ld(n, b"".join(varint(x) for x in nums)) if nums else b""
        return b"".join(_pb_single(x, f, canonical) for x in v)
    return _pb_single(v, f, canonical)


def _pb_single(v: Any, f: m.FieldInfo, canonical: bool) -> bytes:
    n, k = f.number, f.kind
    if isinstance(v, PRaw):
        return v.data
    if k == m.STRING:
        return ld(n, v.encode("utf-8"))
    if k == m.BYTES:
        return ld(n, base64.b64decode(v, validate=True))
    if k == m.BOOL:
        return vi(n, int(v))
    if k == m.UINT:
        return vi(n, v)
    if k == m.DOUBLE:
        return f64(n, float(v))
    if k == m.ENUM:
        assert f.enum is not None
        return vi(n, v.number if isinstance(v, PEnum) else f.enum.by_json[v])
    if k == m.TIMESTAMP:
        if isinstance(v, PTs):
            return ld(n, pb_timestamp(v.seconds, v.nanos))
        return ld(n, pb_timestamp(*ts_parse(v)))
    if k == m.VALUE:
        return ld(n, pb_value(v, sort=canonical))
    if k == m.MESSAGE:
        assert f.message is not None
        return ld(n, _pb_message(v, f.message, canonical))
    raise AuthoringError(f"no Protobuf writer for field {f.name}")


def protobuf_input(doc: dict[str, Any], type_name: str = RECORD) -> bytes:
    """A document as Protobuf, fields in the authored order."""
    return pb_message(doc, type_name)


def canonical_protobuf(doc: dict[str, Any], type_name: str) -> bytes:
    return pb_message(normalize(doc, type_name), type_name, canonical=True)


def canonical(doc: dict[str, Any], type_name: str) -> dict[str, bytes]:
    """The canonical bytes of a document in each encoding."""
    return {
        "json": canonical_json(doc, type_name),
        "msgpack": canonical_msgpack(doc, type_name),
        "protobuf": canonical_protobuf(doc, type_name),
    }


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

AUTO: Any = object()


@dataclass
class Case:
    name: str
    description: str
    spec: list[str]
    level: str
    type: str
    inputs: dict[str, bytes]
    valid: bool
    #: Valid cases: the document (JSON form) the inputs encode.
    doc: dict[str, Any] | None = None
    #: Valid cases: canonical outputs stated by the source instead of computed.
    canonical: dict[str, bytes] = field(default_factory=dict)
    #: Valid cases: outputs to which conversion fails, encoding -> (reason, pointer).
    conversion_errors: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Invalid cases.
    reason: str = ""
    pointer: str = ""
    #: Where the case was defined, for messages.
    area: str = ""


def _bytes(v: Any) -> bytes:
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    raise AuthoringError(f"an input is text or bytes, not {type(v).__name__}")


def _inputs(doc: Any, type_name: str, json: Any, msgpack: Any, protobuf: Any, *,
            canonical_binary: bool) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for enc, given in (("json", json), ("msgpack", msgpack), ("protobuf", protobuf)):
        if given is None:
            continue
        if given is AUTO:
            if doc is None:
                continue
            if enc == "json":
                out[enc] = json_text(doc).encode("utf-8")
            elif enc == "msgpack":
                out[enc] = (canonical_msgpack(doc, type_name) if canonical_binary
                            else msgpack_input(doc, type_name))
            else:
                out[enc] = (canonical_protobuf(doc, type_name) if canonical_binary
                            else protobuf_input(doc, type_name))
        else:
            out[enc] = _bytes(given)
    if not out:
        raise AuthoringError("a case needs at least one input")
    return out


def valid(name: str, description: str, spec: list[str], doc: dict[str, Any], *,
          type: str = RECORD, level: str = "required",
          json: Any = AUTO, msgpack: Any = AUTO, protobuf: Any = AUTO,
          canonical: dict[str, Any] | None = None,
          conversion_errors: dict[str, tuple[str, str]] | None = None) -> Case:
    """A document that every reader accepts. ``doc`` is its JSON form; inputs
    default to its authored-order JSON text and its canonical MessagePack and
    Protobuf bytes. An input given as None is left out."""
    inputs = _inputs(doc, type, json, msgpack, protobuf, canonical_binary=True)
    return Case(name, description, list(spec), level, type, inputs, True, doc=doc,
                canonical={k: _bytes(v) for k, v in (canonical or {}).items()},
                conversion_errors=dict(conversion_errors or {}))


def invalid(name: str, description: str, spec: list[str], reason: str, pointer: str, *,
            doc: Any = None, type: str = RECORD, level: str = "required",
            json: Any = AUTO, msgpack: Any = AUTO, protobuf: Any = AUTO) -> Case:
    """A document that every reader rejects with ``reason`` at ``pointer``.
    Inputs default to ``doc`` written in the authored order in each encoding
    (without any validation); an input given as None is left out."""
    inputs = _inputs(doc, type, json, msgpack, protobuf, canonical_binary=False)
    return Case(name, description, list(spec), level, type, inputs, False,
                reason=reason, pointer=pointer)
