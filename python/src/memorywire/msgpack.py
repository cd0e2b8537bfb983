"""The MessagePack encoding (spec/v1/msgpack-format.md)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import msgpack as _msgpack

from memorywire import _codec, _diagnose, _document, _encode, _fast, _rules
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import DecodeError, decode_error
from memorywire.limits import DEFAULT_LIMITS, Limits

__all__ = ["Decoder", "Encoder", "decode", "encode"]

class Decoder:
    """Decodes MessagePack documents of one message type."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None,
                 vectors: str = "floats") -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        #: Whether float32 vectors come as ``Float32Bytes`` (``vectors="bytes"``).
        self._bytes = _document.byte_vectors(vectors)
        self._info = _document.info(type)
        self._unpacked = _document.function("un", type)
        lim = self.limits
        self._options: dict[str, Any] = dict(
            raw=False, strict_map_key=True, timestamp=0, use_list=True,
            max_str_len=lim.max_string_bytes, max_bin_len=lim.max_document_bytes,
            max_array_len=lim.max_items, max_map_len=lim.max_items, max_ext_len=12,
        )
        #: The fast path; asked for bytes, the one that gives every vector so.
        self._fast: Any = _fast.decoder("msgpack", type, self.limits, binary_vectors=self._bytes)

    def _unpack(self, data: bytes, hook: Any) -> Any:
        try:
            return _msgpack.unpackb(data, object_pairs_hook=hook, **self._options)
        except _diagnose.Duplicate:
            raise
        except (ValueError, TypeError) as e:
            raise self.unpack_error(e, data) from None

    def unpack_error(self, e: ValueError | TypeError, data: bytes | None = None) -> DecodeError:
        """The codec error for an exception the msgpack unpacker raised; with
        the document's bytes, read again to find where the fault is."""
        if data is not None:
            fault = _diagnose.msgpack_fault(data, self.limits)
            if fault is not None:
                return decode_error(fault.reason, fault.pointer, fault.message)
        if isinstance(e, _msgpack.ExtraData):
            return decode_error("TRAILING_DATA", "", "bytes follow the end of the document")
        if isinstance(e, _msgpack.StackError):
            return decode_error("NESTING_TOO_DEEP", "", "the document nests too deeply")
        if isinstance(e, UnicodeDecodeError):
            return decode_error("INVALID_UTF8", "", f"a string is not valid UTF-8: {e.reason}")
        if isinstance(e, _msgpack.FormatError):
            return decode_error("INVALID_WIRE_FORMAT", "", f"not MessagePack: {e}")
        text = str(e)
        if "incomplete" in text or isinstance(e, _msgpack.OutOfData):
            return decode_error("TRUNCATED", "", "the document ends early")
        if "exceeds max_str_len" in text:
            return decode_error("STRING_TOO_LONG", "",
                                f"a string is longer than {self.limits.max_string_bytes} bytes")
        if "exceeds max_array_len" in text or "exceeds max_map_len" in text:
            return decode_error("TOO_MANY_ITEMS", "",
                                f"an array or map has more than {self.limits.max_items} items")
        if "Timestamp" in text or "ext" in text.lower():
            return decode_error("INVALID_TIMESTAMP", "", f"a bad extension value: {text}")
        return decode_error("INVALID_WIRE_FORMAT", "", f"not MessagePack: {text}")

    def decode(self, data: bytes) -> dict[str, Any]:
        """Parse and validate one document."""
        if self._fast is not None:
            # The document, when the typed decoder accepts it, it holds no
            # repeated or unknown key and nothing the types cannot judge, and
            # the rules the types leave out hold (memorywire._fast).
            doc = self._fast(data)
            if doc is not None:
                return doc  # type: ignore[no-any-return]
        return self._decode_slowly(data)[0]

    def decode_walk(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """Parse and validate one document; return it and its validation walk."""
        return self._walk(self._fast, data)

    def _decode_slowly(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """decode_walk by the walkers, in the form of vectors asked for."""
        doc, walk = self._decode_walkers(data)
        if self._bytes:
            _document.with_byte_vectors(doc, self._info)
        return doc, walk

    def decode_walk_binary_vectors(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """decode_walk for a writer that takes float32 vectors as binary32
        bytes: where the fast path reads the document, each vector is the
        bin it was read from (a ``Float32Bytes``), its values never built;
        elsewhere it is a list of them, as decode_walk gives it."""
        return self._walk(self._fast_binary, data)

    @functools.cached_property
    def _fast_binary(self) -> Any:
        """The fast path that keeps vectors as their bytes, built on first use."""
        return _fast.decoder("msgpack", self.type, self.limits, binary_vectors=True)

    def _walk(self, fast: Any, data: bytes) -> tuple[dict[str, Any], Any]:
        if fast is not None:
            doc = fast(data)
            if doc is not None:
                return doc, _rules.Walk(self.limits, tolerant=False)
        return self._decode_slowly(data)

    def _decode_walkers(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """Parse and validate one document's bytes with the walkers."""
        _document.check_size(data, self.limits)
        try:
            raw = self._unpack(data, _diagnose.unique_pairs)
        except _diagnose.Duplicate:
            tree = self._unpack(data, _diagnose.PairList)
            pointer = _diagnose.find_duplicate(tree, "") or ""
            raise decode_error("DUPLICATE_KEY", pointer,
                               f"the key {pointer.rsplit('/', 1)[-1]!r} appears twice") from None
        return self.decode_object(raw)

    def decode_object(self, raw: Any) -> tuple[dict[str, Any], Any]:
        """Turn one object msgpack has already unpacked (with the options of
        this decoder and no repeated map key) into a validated document;
        return it and its validation walk."""
        if type(raw) is not dict:
            raise decode_error("TYPE_MISMATCH", "", "a document is a MessagePack map")
        try:
            doc = self._unpacked(raw)
        except _codec.PathError as e:
            raise _codec.path_error(e) from None
        return doc, _document.validated(doc, self.type, self.limits)


class Encoder:
    """Encodes documents of one message type as canonical MessagePack."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._write = _encode.msgpack_writer(type)

    def encode(self, doc: Mapping[str, Any], *, canonical: bool = True) -> bytes:
        """Validate one document and write it as canonical MessagePack."""
        _document.refuse_partial(doc, "msgpack")
        return _document.write_validated(doc, self.type, self.limits, self.encode_valid)  # type: ignore[no-any-return]

    def encode_valid(self, doc: Mapping[str, Any], walk: Any = None) -> bytes:
        """Write a document the validator has accepted, canonically."""
        return self._write(doc)  # type: ignore[no-any-return]


_codecs = _document.Codecs(Decoder, Encoder)


def decode(data: bytes, *, type: str = DEFAULT_TYPE, limits: Limits | None = None,
           vectors: str = "floats") -> dict[str, Any]:
    """Parse and validate one MessagePack document of the given message type;
    with ``vectors="bytes"``, each float32 vector is a ``Float32Bytes``."""
    dec = _codecs.decoders.get(type) if limits is None and vectors == "floats" else None
    if dec is None:
        dec = _codecs.decoder(type, limits, vectors)
    # Decoder.decode, inlined: a call less for each document.
    fast = dec._fast
    if fast is not None:
        doc = fast(data)
        if doc is not None:
            return doc  # type: ignore[no-any-return]
    return dec._decode_slowly(data)[0]  # type: ignore[no-any-return]


def encode(doc: Mapping[str, Any], *, type: str = DEFAULT_TYPE, canonical: bool = True) -> bytes:
    """Validate one document and write it as canonical MessagePack."""
    return _codecs.encoder(type).encode(doc, canonical=canonical)  # type: ignore[no-any-return]
