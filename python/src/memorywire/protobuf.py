"""The Protobuf encoding (spec/v1/protobuf-format.md).

Parsing runs in upb, or in the compiled reader of memorywire._wire for the
bytes a writer of the messages writes, and serialisation in the writer in C of
memorywire._encode (or upb); this module adds the rules of the
specification: required fields, unknown fields, duplicate map keys, and the
canonical form, in which every repeated MapEntry field is sorted by key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf.message import DecodeError as _UpbDecodeError
from google.protobuf.message import Message

from memorywire import _codec, _document, _encode, _wire
from memorywire import _model as m
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import decode_error
from memorywire.limits import DEFAULT_LIMITS, Limits
from memorywire.validation import SUPPORTED_MINOR

__all__ = ["Decoder", "Encoder", "decode", "encode"]


class Decoder:
    """Decodes Protobuf documents of one message type."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None,
                 vectors: str = "floats") -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        #: Whether float32 vectors come as ``Float32Bytes`` (``vectors="bytes"``).
        self._bytes = _document.byte_vectors(vectors)
        self._info = _document.info(type)
        self._cls = self._info.cls
        #: An Error carries no specversion; it is read as of a newer minor.
        self._always_tolerant = self._info.name == "Error"
        #: Whether the type's field 1 is its specversion, a string.
        field = self._info.fields.get("specversion")
        self._versioned = field is not None and field.number == 1 and field.kind == m.STRING
        #: The compiled reader of the bytes a writer of the messages writes.
        self._read = None if self._always_tolerant else _wire.compiled_reader(self._info)

    def decode(self, data: bytes) -> dict[str, Any]:
        """Parse and validate one document. A document with fields of a newer
        minor version comes back as a PartialDocument, which encoders refuse."""
        doc, walk = self.decode_walk(data)
        if walk.parsed is not None:
            partial = _codec.PartialDocument(doc)
            partial.unread = list(walk.unknown)
            return partial
        return doc

    def decode_walk(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """Parse and validate one document; return it and its validation walk."""
        if self._bytes:
            doc, walk = self._decode_walk(data, True)
            return _document.with_byte_vectors(doc, self._info), walk
        return self._decode_walk(data, False)

    def decode_walk_binary_vectors(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """decode_walk for a reader that takes float32 vectors as binary32
        bytes: where upb reads the document, each vector of finite values is
        the bytes it was read from (a ``Float32Bytes``), its values never
        built; elsewhere it is a list of them, as decode_walk gives it."""
        return self._decode_walk(data, True)

    def _decode_walk(self, data: bytes, binary: bool) -> tuple[dict[str, Any], Any]:
        _document.check_size(data, self.limits)
        if self._read is not None:
            read = self._read(data, binary, self.limits.max_depth)
            if read is not None and not _is_newer(
                    (read.get("specversion") if self._versioned else _wire.specversion(data)) or None):
                return read, _document.validated(read, self.type, self.limits)
        try:
            msg = self._cls.FromString(data)
        except (_UpbDecodeError, RecursionError):
            msg = None
        # The last specversion field of length-delimited type, as upb keeps
        # it (an empty one counts as none, as it does below); bytes upb
        # refuses are scanned for it in Python.
        version: str | None = (_wire.specversion(data) if msg is None or not self._versioned
                               else getattr(msg, "specversion", None) or None)
        newer = self._always_tolerant or _is_newer(version)
        doc: Any = None
        unknown: list[str] = []
        if msg is not None:
            size = msg.ByteSize()
            known = self._cls.FromString(data) if newer else msg
            known.DiscardUnknownFields()
            if known.ByteSize() == size:
                try:
                    doc = _codec.from_proto(msg, self._info, binary)
                except _codec.PathError as e:
                    if not (newer and e.reason == "UNKNOWN_ENUM_VALUE"):
                        self._raise(e.reason, e.pointer, e.message, version)
                    doc = None
        if doc is None:
            # upb refused the bytes, or they hold fields or values it does
            # not know: read them again, to name the fault or the unknown.
            try:
                doc, unknown = _wire.read(data, self._info, max_depth=self.limits.max_depth,
                                          tolerant=newer)
            except _wire.Fault as f:
                self._raise(f.reason, f.pointer, f.message, version)
        walk = _document.validated(doc, self.type, self.limits)
        if unknown:
            walk.unknown.extend(p for p in unknown if p not in walk.unknown)
            # Content of a newer minor version: kept for Protobuf output only.
            walk.parsed = msg
        return doc, walk

    def _raise(self, reason: str, pointer: str, message: str, version: str | None) -> None:
        # A fault of the mapping phase gives way to a fault of the version.
        if reason not in _PHASE_ONE and version is not None and _major(version) not in (None, "1"):
            raise decode_error("UNSUPPORTED_VERSION", "/specversion",
                               f"specversion {version} is not a 1.x version")
        raise decode_error(reason, pointer, message)


_PHASE_ONE = frozenset({"TRUNCATED", "TRAILING_DATA", "INVALID_WIRE_FORMAT", "INVALID_UTF8",
                        "DUPLICATE_KEY", "DOCUMENT_TOO_LARGE", "NESTING_TOO_DEEP", "STRING_TOO_LONG",
                        "TOO_MANY_ITEMS"})


def _decimal(text: str) -> bool:
    # str.isdigit alone holds for "²", which int() refuses.
    return text.isascii() and text.isdigit()


def _major(version: str) -> str | None:
    head, _, minor = version.partition(".")
    return head if _decimal(head) and _decimal(minor) else None


def _is_newer(version: str | None) -> bool:
    if version is None or _major(version) != "1":
        return False
    return int(version.split(".", 1)[1]) > SUPPORTED_MINOR


class Encoder:
    """Encodes documents of one message type as canonical Protobuf."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._cls = _document.info(type).cls
        self._write = _encode.protobuf_writer(type)

    def message(self, doc: Mapping[str, Any]) -> Message:
        """The document as an upb message, after validation."""
        return self._cls.FromString(self.encode(doc))

    def encode(self, doc: Mapping[str, Any], *, canonical: bool = True) -> bytes:
        """Validate one document and write it as canonical Protobuf."""
        _document.refuse_partial(doc, "protobuf")
        return _document.write_validated(doc, self.type, self.limits, self.encode_valid)  # type: ignore[no-any-return]

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


_codecs = _document.Codecs(Decoder, Encoder)


def decode(data: bytes, *, type: str = DEFAULT_TYPE, limits: Limits | None = None,
           vectors: str = "floats") -> dict[str, Any]:
    """Parse and validate one Protobuf document of the given message type;
    with ``vectors="bytes"``, each float32 vector is a ``Float32Bytes``."""
    return _codecs.decoder(type, limits, vectors).decode(data)  # type: ignore[no-any-return]


def encode(doc: Mapping[str, Any], *, type: str = DEFAULT_TYPE, canonical: bool = True) -> bytes:
    """Validate one document and write it as canonical Protobuf."""
    return _codecs.encoder(type).encode(doc, canonical=canonical)  # type: ignore[no-any-return]
