"""The Protobuf encoding (spec/v1/protobuf-format.md).

Parsing and serialisation run in upb; this module adds the rules of the
specification: required fields, unknown fields, duplicate map keys, and the
canonical form, in which every repeated MapEntry field is sorted by key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf.message import DecodeError as _UpbDecodeError
from google.protobuf.message import Message

from memorywire import _codec, _document
from memorywire import _model as m
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import decode_error, escape_token
from memorywire.limits import DEFAULT_LIMITS, Limits
from memorywire.validation import SUPPORTED_MINOR

__all__ = ["Decoder", "Encoder", "decode", "encode", "diagnose"]


class Decoder:
    """Decodes Protobuf documents of one message type."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._info = _document.info(type)
        self._cls = self._info.cls

    def parse(self, data: bytes) -> Message:
        """Parse the bytes into a message, checking the wire format only."""
        _document.check_size(data, self.limits)
        try:
            msg = self._cls.FromString(data)
        except _UpbDecodeError:
            reason, pointer, message = diagnose(data, self._info)
            raise decode_error(reason, pointer, message) from None
        except RecursionError:
            raise decode_error("NESTING_TOO_DEEP", "", "the document nests too deeply") from None
        return msg

    def decode(self, data: bytes) -> dict[str, Any]:
        """Parse and validate one document."""
        return self.decode_walk(data)[0]

    def decode_walk(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """Parse and validate one document; return it and its validation walk."""
        msg = self.parse(data)
        newer = _newer_minor(msg)
        size = msg.ByteSize()
        known = msg if not newer else self._cls.FromString(data)
        known.DiscardUnknownFields()
        unknown = ""
        if known.ByteSize() != size:
            _, unknown, message = diagnose(data, self._info, unknown=True)
            if not newer:
                raise decode_error("UNKNOWN_FIELD", unknown, message)
        try:
            doc = _codec.from_proto(known, self._info)
        except _codec.PathError as e:
            raise _codec.path_error(e) from None
        walk = _document.validated(doc, self.type, self.limits)
        if newer and known.ByteSize() != size:
            # Fields of a newer minor version: kept for Protobuf output only.
            walk.unknown.append(unknown)
            walk.parsed = msg
        return doc, walk


def _newer_minor(msg: Message) -> bool:
    version = getattr(msg, "specversion", "")
    if not version or "." not in version:
        return False
    minor = version.split(".", 1)[1]
    return minor.isdigit() and int(minor) > SUPPORTED_MINOR


class Encoder:
    """Encodes documents of one message type as canonical Protobuf."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._cls = _document.info(type).cls
        self._write = _document.function("pb", type)

    def message(self, doc: Mapping[str, Any]) -> Message:
        """The document as an upb message, after validation."""
        return self._cls.FromString(self.encode(doc))

    def encode(self, doc: Mapping[str, Any], *, canonical: bool = True) -> bytes:
        """Validate one document and write it as canonical Protobuf."""
        walk = _document.validated(doc, self.type, self.limits)
        return self.encode_valid(doc, walk)

    def encode_valid(self, doc: Mapping[str, Any], walk: Any = None) -> bytes:
        """Write a document the validator has accepted, canonically: fields in
        field-number order, map entries sorted by key, floats packed."""
        if walk is not None:
            if walk.parsed is not None:
                # A document of a newer minor read from Protobuf: its unknown
                # fields follow the known ones, in the order read.
                return walk.parsed.SerializeToString(deterministic=True)  # type: ignore[no-any-return]
            _document.refuse_unknown(walk, "protobuf")
        try:
            return self._write(doc)  # type: ignore[no-any-return]
        except UnicodeEncodeError as e:
            raise decode_error("INVALID_UNICODE", "", f"a string holds a lone surrogate: {e}") from None


_decoders: dict[str, Decoder] = {}
_encoders: dict[str, Encoder] = {}


def decode(data: bytes, *, type: str = DEFAULT_TYPE, limits: Limits | None = None) -> dict[str, Any]:
    """Parse and validate one Protobuf document of the given message type."""
    if limits is not None:
        return Decoder(type, limits=limits).decode(data)
    dec = _decoders.get(type)
    if dec is None:
        dec = _decoders[type] = Decoder(type)
    return dec.decode(data)


def encode(doc: Mapping[str, Any], *, type: str = DEFAULT_TYPE, canonical: bool = True) -> bytes:
    """Validate one document and write it as canonical Protobuf."""
    enc = _encoders.get(type)
    if enc is None:
        enc = _encoders[type] = Encoder(type)
    return enc.encode(doc, canonical=canonical)


# -- diagnosis of bytes upb refused ----------------------------------------


class _Fault(Exception):
    def __init__(self, reason: str, pointer: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.pointer, self.message = reason, pointer, message


def diagnose(data: bytes, info: m.MessageInfo, *, unknown: bool = False) -> tuple[str, str, str]:
    """Find why and where bytes are not a valid message: the reason token,
    the JSON Pointer of the field, and a message. With unknown=True, find the
    first field number the message type does not define."""
    try:
        _scan(data, 0, len(data), info, "", unknown, 0)
    except _Fault as f:
        return f.reason, f.pointer, f.message
    return "INVALID_WIRE_FORMAT", "", "not a valid Protobuf message"


def _varint(data: bytes, pos: int, end: int, ptr: str) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end:
            raise _Fault("TRUNCATED", ptr, "the message ends inside a varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise _Fault("INVALID_WIRE_FORMAT", ptr, "a varint is longer than 10 bytes")


_MAP_ENTRY = m.message("MapEntry")
_VALUE = m.message("Value")
_VALUE_LIST = m.message("ValueList")
_VALUE_MAP = m.message("ValueMap")


def _scan(data: bytes, pos: int, end: int, info: m.MessageInfo | None, ptr: str,
          unknown: bool, depth: int) -> None:
    if depth > 100:
        raise _Fault("NESTING_TOO_DEEP", ptr, "the message nests too deeply")
    by_number = {f.number: f for f in info.fields.values()} if info is not None else {}
    counters: dict[int, int] = {}
    while pos < end:
        key, pos = _varint(data, pos, end, ptr)
        number, wire = key >> 3, key & 7
        f = by_number.get(number)
        name = f.name if f is not None else str(number)
        index = counters.get(number, 0)
        counters[number] = index + 1
        here = f"{ptr}/{escape_token(name)}"
        if f is not None and (f.repeated or f.is_map) and wire == 2 \
                and f.kind in (m.MESSAGE, m.STRING, m.BYTES, m.TIMESTAMP):
            here = f"{here}/{index}"
        if number == 0:
            raise _Fault("INVALID_WIRE_FORMAT", ptr, "field number 0 is not allowed")
        if unknown and info is not None and f is None:
            raise _Fault("UNKNOWN_FIELD", here, f"{info.name} has no field number {number}")
        if wire == 0:
            _, pos = _varint(data, pos, end, here)
        elif wire == 1 or wire == 5:
            size = 8 if wire == 1 else 4
            if pos + size > end:
                raise _Fault("TRUNCATED", here, "the message ends inside a fixed-size field")
            pos += size
        elif wire == 2:
            length, pos = _varint(data, pos, end, here)
            if pos + length > end:
                raise _Fault("TRUNCATED", here, f"a field of {length} bytes runs past the end of the message")
            if f is not None:
                _check_field(data, pos, pos + length, f, info, here, unknown, depth)
            pos += length
        else:
            raise _Fault("INVALID_WIRE_FORMAT", here, f"wire type {wire} is not valid here")
        if f is not None and not _wire_fits(f, wire):
            raise _Fault("INVALID_WIRE_FORMAT", here, f"wire type {wire} does not fit field {name}")


def _wire_fits(f: m.FieldInfo, wire: int) -> bool:
    if f.kind in (m.MESSAGE, m.TIMESTAMP, m.VALUE, m.STRING, m.BYTES) or f.is_map:
        return wire == 2
    if f.repeated and wire == 2:
        return True
    if f.kind == m.DOUBLE:
        return wire == 1
    if f.kind == m.FLOAT32:
        return wire == 5
    return wire == 0


def _check_field(data: bytes, start: int, end: int, f: m.FieldInfo, info: m.MessageInfo | None,
                 ptr: str, unknown: bool, depth: int) -> None:
    if f.kind == m.STRING:
        try:
            data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            raise _Fault("INVALID_UTF8", ptr, "a string is not valid UTF-8") from None
    elif f.is_map:
        _scan(data, start, end, _MAP_ENTRY, ptr, unknown, depth + 1)
    elif f.kind == m.MESSAGE:
        _scan(data, start, end, f.message, ptr, unknown, depth + 1)
    elif f.kind == m.VALUE:
        _scan(data, start, end, _VALUE, ptr, unknown, depth + 1)
    elif f.kind == m.TIMESTAMP:
        _scan(data, start, end, None, ptr, False, depth + 1)
    elif info is not None and info.name in ("MapEntry", "ValueList") and f.kind == m.VALUE:
        _scan(data, start, end, _VALUE, ptr, unknown, depth + 1)
