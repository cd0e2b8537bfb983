"""Streams of documents in constant memory.

A stream holds documents of one message type, one after another, in one of
three framings:

* ``json``: JSON Lines (spec/v1/json-format.md, section 8), one document per
  line, each line ended by a line feed; ``jsonl`` and ``ndjson`` are aliases;
* ``msgpack``: the documents concatenated (spec/v1/msgpack-format.md,
  section 8);
* ``protobuf``: each message preceded by its length in bytes as a varint
  (length-delimited Protobuf).

Every document goes through the same decoding and validation as a single
document of the encoding, with the resource limits applied to each document
separately. Memory stays bounded by about one document of
``Limits.max_document_bytes``, whatever the size of the stream.

Readers yield ``(position, document)`` pairs. The position is 1-based: the
line number in JSON Lines, the index of the document plus one in the other
framings (the zero-based index of the specification is ``position - 1``).
An error is a copy of the codec's error whose violations carry the position
in ``Violation.line``.

:func:`read` raises at the first invalid document. :func:`iter_results`
yields the errors as items and goes on after every document whose end is
known: after any invalid line of JSON Lines, and after a MessagePack or
Protobuf document that was framed correctly but is not valid. It stops after
the first error that leaves the start of the next document unknown (bytes
that are not MessagePack, a declared Protobuf length above the limit, a
stream that ends inside a document).

Writers write each document in canonical form: canonical JSON followed by a
line feed, canonical MessagePack, or canonical Protobuf preceded by its
length. To convert a stream with one validation per document, read it with
:func:`iter_decoded`, which gives each document with its validation walk, and
write with :meth:`Writer.write_valid`, which refuses (UNREPRESENTABLE) to
drop the unknown members of a newer minor version into another encoding.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol, TypeAlias

import msgpack as _msgpack

from memorywire import _diagnose, _document
from memorywire import json as _json
from memorywire import msgpack as _mp
from memorywire import protobuf as _pb
from memorywire._compiled import varint
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import MemorywireError, Violation, decode_error
from memorywire.limits import DEFAULT_LIMITS, Limits

__all__ = [
    "ENCODINGS",
    "Decoded",
    "Reader",
    "Result",
    "Writable",
    "Writer",
    "at_position",
    "iter_decoded",
    "iter_results",
    "read",
    "stream_encoding",
    "write",
]

#: The encodings a stream can have.
ENCODINGS = ("json", "msgpack", "protobuf")
_ALIASES = {"jsonl": "json", "ndjson": "json"}

#: The size of the pieces read from the input when a document is not read whole.
_CHUNK = 64 * 1024


class Reader(Protocol):
    """What a stream reader needs of its input (a binary file has it)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def readline(self, size: int = -1, /) -> bytes: ...


class Writable(Protocol):
    """What a stream writer needs of its output (a binary file has it)."""

    def write(self, data: bytes, /) -> object: ...


#: An item of :func:`iter_results`: a position and a document or an error.
Result: TypeAlias = "tuple[int, dict[str, Any] | MemorywireError]"
#: An item of the readers: a position and a document with its validation
#: walk, or an error.
Decoded: TypeAlias = "tuple[int, tuple[dict[str, Any], Any] | MemorywireError]"


def stream_encoding(encoding: str) -> str:
    """The canonical name of a stream encoding (``jsonl`` and ``ndjson`` are ``json``)."""
    name = _ALIASES.get(encoding, encoding)
    if name not in ENCODINGS:
        raise ValueError(f"unknown stream encoding {encoding!r}; "
                         "one of json, jsonl, msgpack, protobuf")
    return name


def at_position(error: MemorywireError, position: int) -> MemorywireError:
    """A copy of the error, of the same class, whose violations carry the
    position of the document in its stream."""
    violations = [dataclasses.replace(v, line=position) for v in error.violations]
    if not violations:
        violations = [Violation(error.pointer, error.reason, error.message, line=position)]
    copy = type(error)(error.reason, error.message, violations)
    copy.code = error.code
    return copy


def iter_results(fp: Reader, encoding: str, *, type: str = DEFAULT_TYPE,
                 limits: Limits | None = None) -> Iterator[Result]:
    """Read a stream; yield ``(position, document)`` for each valid document
    and ``(position, error)`` for each invalid one, going on past every
    invalid document whose end is known (see the module documentation)."""
    return _documents(iter_decoded(fp, encoding, type=type, limits=limits))


def _documents(items: Iterator[Decoded]) -> Iterator[Result]:
    for position, item in items:
        yield position, item if isinstance(item, MemorywireError) else item[0]


def iter_decoded(fp: Reader, encoding: str, *, type: str = DEFAULT_TYPE,
                 limits: Limits | None = None) -> Iterator[Decoded]:
    """Like :func:`iter_results`, with each document its validation walk, for
    :meth:`Writer.write_valid`."""
    name = stream_encoding(encoding)
    limits = limits or DEFAULT_LIMITS
    if name == "json":
        return _json_lines(fp, _json.Decoder(type, limits=limits), limits)
    if name == "msgpack":
        return _msgpack_stream(fp, _mp.Decoder(type, limits=limits), limits)
    return _protobuf_stream(fp, _pb.Decoder(type, limits=limits), limits)


def read(fp: Reader, encoding: str, *, type: str = DEFAULT_TYPE,
         limits: Limits | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Read a stream; yield ``(position, document)`` for each document and
    raise the memorywire error of the first invalid one, with its position in
    ``Violation.line``."""
    results = iter_results(fp, encoding, type=type, limits=limits)
    return _raising(results)


def _raising(results: Iterator[Result]) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        for position, item in results:
            if isinstance(item, MemorywireError):
                raise item
            yield position, item
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()


# -- JSON Lines -------------------------------------------------------------


def _json_lines(fp: Reader, dec: _json.Decoder, limits: Limits) -> Iterator[Decoded]:
    limit = limits.max_document_bytes
    position = 0
    while True:
        line = fp.readline(limit + 1)
        if not line:
            return
        position += 1
        if line.endswith(b"\n"):
            line = line[:-1]
        elif len(line) > limit:
            # The line does not end within the limit: skip the rest of it.
            while True:
                rest = fp.readline(_CHUNK)
                if not rest or rest.endswith(b"\n"):
                    break
            yield position, at_position(decode_error(
                "DOCUMENT_TOO_LARGE", "", f"the line is longer than the limit of {limit} bytes"),
                position)
            continue
        if not line.strip(b" \t\r"):
            yield position, at_position(decode_error(
                "SYNTAX_ERROR", "", "an empty line is not a document"), position)
            continue
        try:
            yield position, dec.decode_walk(line)
        except MemorywireError as e:
            yield position, at_position(e, position)


# -- MessagePack ------------------------------------------------------------


class _Capped:
    """The input of the unpacker: it never reads more than ``cap`` bytes in
    all, so that one document cannot take more than the size limit."""

    def __init__(self, fp: Reader, cap: int) -> None:
        self.fp = fp
        self.cap = cap
        #: How many bytes were read from fp.
        self.total = 0
        #: Whether a read was refused because of the cap.
        self.capped = False

    def read(self, n: int) -> bytes:
        room = self.cap - self.total
        if room <= 0:
            self.capped = True
            return b""
        data = self.fp.read(min(n, room))
        self.total += len(data)
        return data


def _pairs_hook(flag: list[bool]) -> Callable[[list[tuple[Any, Any]]], Any]:
    # Raising from a hook would leave the unpacker in an unknown state, so a
    # map with a repeated key is only marked and reported after the unpack.
    def pairs(items: list[tuple[Any, Any]]) -> Any:
        out = dict(items)
        if len(out) != len(items):
            flag[0] = True
            return _diagnose.PairList(items)
        return out

    return pairs


def _msgpack_stream(fp: Reader, dec: _mp.Decoder, limits: Limits) -> Iterator[Decoded]:
    limit = limits.max_document_bytes
    read_size = max(1, min(_CHUNK, limit))
    source = _Capped(fp, limit + 1)
    repeated = [False]
    options = dict(dec._options)
    unpacker = _msgpack.Unpacker(
        source, read_size=read_size, max_buffer_size=limit + 2 * read_size,
        object_pairs_hook=_pairs_hook(repeated), **options)
    position = end = 0
    while True:
        repeated[0] = False
        try:
            raw = next(unpacker)
        except StopIteration:
            if source.capped:
                yield position + 1, _too_large(position + 1, limit)
            elif source.total > end:
                yield position + 1, at_position(decode_error(
                    "TRUNCATED", "", "the stream ends inside a document"), position + 1)
            return
        except _msgpack.BufferFull:
            yield position + 1, _too_large(position + 1, limit)
            return
        except (ValueError, TypeError) as e:
            yield position + 1, at_position(dec.unpack_error(e), position + 1)
            return
        position += 1
        start, end = end, unpacker.tell()
        source.cap = end + limit + 1
        if end - start > limit:
            yield position, at_position(decode_error(
                "DOCUMENT_TOO_LARGE", "", f"{end - start} bytes; the limit is {limit}"), position)
            continue
        if repeated[0]:
            pointer = _diagnose.find_duplicate(raw, "") or ""
            yield position, at_position(decode_error(
                "DUPLICATE_KEY", pointer, f"the key {pointer.rsplit('/', 1)[-1]!r} appears twice"),
                position)
            continue
        try:
            yield position, dec.decode_object(raw)
        except MemorywireError as e:
            yield position, at_position(e, position)


def _too_large(position: int, limit: int) -> MemorywireError:
    return at_position(decode_error(
        "DOCUMENT_TOO_LARGE", "", f"the document is longer than the limit of {limit} bytes"),
        position)


# -- length-delimited Protobuf ----------------------------------------------


def _length(fp: Reader) -> int | None:
    """The varint length prefix of the next message; None at the end of the stream."""
    result = shift = 0
    while True:
        b = fp.read(1)
        if not b:
            if shift == 0:
                return None
            raise decode_error("TRUNCATED", "", "the stream ends inside a length prefix")
        result |= (b[0] & 0x7F) << shift
        if not b[0] & 0x80:
            return result
        shift += 7
        if shift >= 70:
            raise decode_error("INVALID_WIRE_FORMAT", "", "a length prefix is longer than 10 bytes")


def _protobuf_stream(fp: Reader, dec: _pb.Decoder, limits: Limits) -> Iterator[Decoded]:
    limit = limits.max_document_bytes
    position = 0
    while True:
        try:
            length = _length(fp)
        except MemorywireError as e:
            yield position + 1, at_position(e, position + 1)
            return
        if length is None:
            return
        position += 1
        if length > limit:
            # The length is checked before anything is read or allocated.
            yield position, at_position(decode_error(
                "DOCUMENT_TOO_LARGE", "", f"{length} bytes; the limit is {limit}"), position)
            return
        body = bytearray()
        while len(body) < length:
            chunk = fp.read(min(length - len(body), _CHUNK))
            if not chunk:
                break
            body += chunk
        if len(body) < length:
            yield position, at_position(decode_error(
                "TRUNCATED", "", f"the stream ends after {len(body)} of the {length} bytes "
                "of a message"), position)
            return
        try:
            yield position, dec.decode_walk(bytes(body))
        except MemorywireError as e:
            yield position, at_position(e, position)


# -- writers ------------------------------------------------------------------


class Writer:
    """Writes canonical documents of one message type to a stream.

    ``write`` validates each document; an invalid one raises the memorywire
    error with the position the document would have had, and nothing of it is
    written.
    """

    def __init__(self, fp: Writable, encoding: str, *, type: str = DEFAULT_TYPE,
                 limits: Limits | None = None) -> None:
        self.encoding = stream_encoding(encoding)
        self.type = type
        self._fp = fp
        self._encoder: _json.Encoder | _mp.Encoder | _pb.Encoder
        if self.encoding == "json":
            self._encoder = _json.Encoder(type, limits=limits)
        elif self.encoding == "msgpack":
            self._encoder = _mp.Encoder(type, limits=limits)
        else:
            self._encoder = _pb.Encoder(type, limits=limits)
        #: How many documents were written.
        self.count = 0
        #: How many bytes were written.
        self.bytes_written = 0

    def write(self, doc: Mapping[str, Any]) -> int:
        """Validate one document and write it; return the number of bytes written."""
        try:
            data = self._encoder.encode(doc)
        except MemorywireError as e:
            raise at_position(e, self.count + 1) from None
        return self._frame(data)

    def write_valid(self, doc: Mapping[str, Any], walk: Any, *, source: str | None = None) -> int:
        """Write a document a reader of this package has decoded and validated,
        with the walk it returned (see :func:`iter_decoded`), without
        validating it again. When the document was read in another encoding
        (``source``), members of a newer minor version unknown to this reader
        raise UnrepresentableError rather than being lost."""
        try:
            if source is not None and stream_encoding(source) != self.encoding:
                _document.refuse_unknown(walk, self.encoding)
            if isinstance(self._encoder, _json.Encoder):
                data = self._encoder.encode_valid(doc)
            else:
                data = self._encoder.encode_valid(doc, walk)
        except MemorywireError as e:
            raise at_position(e, self.count + 1) from None
        return self._frame(data)

    def _frame(self, data: bytes) -> int:
        if self.encoding == "json":
            data += b"\n"
        elif self.encoding == "protobuf":
            data = varint(len(data)) + data
        self._fp.write(data)
        self.count += 1
        self.bytes_written += len(data)
        return len(data)


def write(fp: Writable, docs: Iterable[Mapping[str, Any]], encoding: str, *,
          type: str = DEFAULT_TYPE, limits: Limits | None = None) -> int:
    """Write documents as a stream, each in canonical form; return how many."""
    writer = Writer(fp, encoding, type=type, limits=limits)
    for doc in docs:
        writer.write(doc)
    return writer.count
