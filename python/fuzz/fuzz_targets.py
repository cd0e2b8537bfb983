"""The fuzz targets: one per decoder, per stream reader, and for convert.

Each target takes the bytes of one fuzz input and checks the invariant of
the codec on it:

* any input either decodes or raises a subclass of
  ``memorywire.errors.MemorywireError``, never another exception;
* what decodes round-trips exactly: the plain encoder writes its canonical
  form; that form decoded and encoded again gives the same bytes, and
  decoded twice the same document (1, 1.0 and True differ, and so do 0.0
  and -0.0);
* a stream's errors carry their positions, positions count up, and its valid
  documents written again and read back give the same stream;
* conversion loses nothing: the document read from the target encoding is
  the one read from the canonical source, and converting back gives the
  canonical source bytes.

An input is a header and a payload. The first byte chooses the message type
(its low seven bits, an index into ``TYPES``) and the limits (its high bit:
the small ``TIGHT`` limits, so that the limit checks are reached too). The
convert target reads a second byte: the source and the target encodings.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from typing import Any

from memorywire import _model, stream
from memorywire import json as mw_json
from memorywire import msgpack as mw_msgpack
from memorywire import protobuf as mw_protobuf
from memorywire.convert import convert as convert_bytes
from memorywire.errors import MemorywireError
from memorywire.limits import Limits

ENCODINGS = ("json", "msgpack", "protobuf")
MODULES: dict[str, Any] = {"json": mw_json, "msgpack": mw_msgpack, "protobuf": mw_protobuf}
#: The message types an input can choose, by index.
TYPES = _model.top_level_types()
#: Small limits, chosen by the high bit of the first byte.
TIGHT = Limits(max_document_bytes=4096, max_depth=8, max_string_bytes=64, max_items=8,
               max_dimensions=8, max_batch_records=4)
#: Streams with more items than this are read no further (each item is checked).
MAX_STREAM_ITEMS = 64


class InvariantError(AssertionError):
    """The codec broke one of its invariants on an input."""


def header(type_name: str, tight: bool = False) -> bytes:
    """The first byte of an input of this message type."""
    return bytes([TYPES.index(type_name) | (0x80 if tight else 0)])


def _choose(data: bytes) -> tuple[str, Limits | None, bytes]:
    if not data:
        return TYPES[0], None, b""
    return TYPES[(data[0] & 0x7F) % len(TYPES)], TIGHT if data[0] & 0x80 else None, data[1:]


# -- exact comparison ----------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Whether two documents are equal exactly: types, signs of zero and all."""
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise InvariantError(message)


# -- one document ----------------------------------------------------------------------


def _decode_walk(encoding: str, data: bytes, type_name: str, limits: Limits | None) -> Any:
    return MODULES[encoding]._codecs.decoder(type_name, limits).decode_walk(data)


def _decode(encoding: str, data: bytes, type_name: str, limits: Limits | None) -> Any:
    return MODULES[encoding].decode(data, type=type_name, limits=limits)


def _canonical(encoding: str, data: bytes, type_name: str, limits: Limits | None) -> bytes:
    """The canonical form of a document that decoded (its own encoding keeps
    the members of a newer minor version, so this never fails)."""
    out: bytes = convert_bytes(data, source=encoding, target=encoding, type=type_name, limits=limits)
    return out


def check_document(encoding: str, data: bytes, type_name: str, limits: Limits | None) -> None:
    """Decode one document; if it decodes, it round-trips exactly."""
    try:
        doc = _decode(encoding, data, type_name, limits)
    except MemorywireError:
        return
    once = _canonical(encoding, data, type_name, limits)
    # The plain encoder writes the canonical form, or refuses with a typed
    # error (content of a newer minor version it would lose).
    try:
        written = MODULES[encoding].encode(doc, type=type_name)
    except MemorywireError:
        written = once
    _expect(written == once, f"{encoding}: encode and convert write different bytes:\n{once!r}\n{written!r}")
    again = _decode(encoding, once, type_name, limits)
    twice = _canonical(encoding, once, type_name, limits)
    _expect(twice == once, f"{encoding}: the canonical form is not stable:\n{once!r}\n{twice!r}")
    third = _decode(encoding, twice, type_name, limits)
    _expect(same(again, third), f"{encoding}: decode -> encode -> decode changed:\n{again!r}\n{third!r}")
    try:
        rewritten = MODULES[encoding].encode(again, type=type_name)
    except MemorywireError:
        rewritten = once
    _expect(rewritten == once, f"{encoding}: the document read back is written differently")


def json_document(data: bytes) -> None:
    type_name, limits, payload = _choose(data)
    check_document("json", payload, type_name, limits)


def msgpack_document(data: bytes) -> None:
    type_name, limits, payload = _choose(data)
    check_document("msgpack", payload, type_name, limits)


def protobuf_document(data: bytes) -> None:
    type_name, limits, payload = _choose(data)
    check_document("protobuf", payload, type_name, limits)


# -- convert -----------------------------------------------------------------------------


def convert_document(data: bytes) -> None:
    """Convert a document from one encoding to another and back: nothing is lost."""
    type_name, limits, rest = _choose(data)
    if not rest:
        return
    source, target = (ENCODINGS[i] for i in divmod(rest[0] % 9, 3))
    payload = rest[1:]
    try:
        out = convert_bytes(payload, source=source, target=target, type=type_name, limits=limits)
    except MemorywireError:
        return
    canonical = _canonical(source, payload, type_name, limits)
    doc, _ = _decode_walk(source, canonical, type_name, limits)
    converted, _ = _decode_walk(target, out, type_name, limits)
    _expect(same(doc, converted), f"{source}->{target}: the document changed:\n{doc!r}\n{converted!r}")
    back = convert_bytes(out, source=target, target=source, type=type_name, limits=limits)
    _expect(back == canonical, f"{source}->{target}->{source} is not the canonical form:\n{canonical!r}\n{back!r}")


# -- streams -----------------------------------------------------------------------------


def _rewrite(encoding: str, data: bytes, type_name: str, limits: Limits | None) -> tuple[bytes, int]:
    """Read a stream and write its valid documents again; check each item."""
    buffer = io.BytesIO()
    writer = stream.Writer(buffer, encoding, type=type_name, limits=limits)
    last = 0
    for count, (position, item) in enumerate(
            stream.iter_decoded(io.BytesIO(data), encoding, type=type_name, limits=limits), 1):
        _expect(position > last, f"{encoding} stream: position {position} after {last}")
        last = position
        if isinstance(item, MemorywireError):
            _expect(bool(item.violations) and all(v.line == position for v in item.violations),
                    f"{encoding} stream: an error without its position: {item!r}")
            continue
        try:
            writer.write_valid(*item, source=encoding)
        except MemorywireError as e:
            raise InvariantError(f"{encoding} stream: a document read cannot be written: {e}") from e
        if count >= MAX_STREAM_ITEMS:
            break
    _expect(last <= len(data) + 1, f"{encoding} stream: {last} items from {len(data)} bytes")
    return buffer.getvalue(), writer.count


def check_stream(encoding: str, data: bytes, type_name: str, limits: Limits | None) -> None:
    """Read a stream: every item is a document or a typed error, positions
    count up, and the valid documents written again read back the same."""
    written, count = _rewrite(encoding, data, type_name, limits)
    again, count_again = _rewrite(encoding, written, type_name, limits)
    _expect(count_again == count and again == written,
            f"{encoding} stream: the {count} documents changed when written and read again")
    # stream.read raises only typed errors, at the first invalid document.
    try:
        for _ in stream.read(io.BytesIO(data), encoding, type=type_name, limits=limits):
            pass
    except MemorywireError:
        pass


def json_lines(data: bytes) -> None:
    type_name, limits, payload = _choose(data)
    check_stream("json", payload, type_name, limits)


def msgpack_stream(data: bytes) -> None:
    type_name, limits, payload = _choose(data)
    check_stream("msgpack", payload, type_name, limits)


def protobuf_stream(data: bytes) -> None:
    type_name, limits, payload = _choose(data)
    check_stream("protobuf", payload, type_name, limits)


#: Every target by name.
TARGETS: dict[str, Callable[[bytes], None]] = {
    "json": json_document,
    "msgpack": msgpack_document,
    "protobuf": protobuf_document,
    "jsonl": json_lines,
    "msgpack-stream": msgpack_stream,
    "protobuf-stream": protobuf_stream,
    "convert": convert_document,
}
