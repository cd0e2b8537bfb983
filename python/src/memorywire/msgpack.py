"""The MessagePack encoding (spec/v1/msgpack-format.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack as _msgpack

from memorywire import _codec, _document
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import decode_error, escape_token
from memorywire.limits import DEFAULT_LIMITS, Limits

__all__ = ["Decoder", "Encoder", "decode", "encode"]


class _Duplicate(Exception):
    pass


def _pairs(items: list[tuple[Any, Any]]) -> dict[Any, Any]:
    out = dict(items)
    if len(out) != len(items):
        raise _Duplicate
    return out


def _find_duplicate(node: Any, ptr: str) -> str | None:
    if type(node) is _PairList:
        seen: set[Any] = set()
        for k, v in node:
            p = f"{ptr}/{escape_token(str(k))}"
            if k in seen:
                return p
            seen.add(k)
            found = _find_duplicate(v, p)
            if found:
                return found
    elif type(node) is list:
        for i, v in enumerate(node):
            found = _find_duplicate(v, f"{ptr}/{i}")
            if found:
                return found
    return None


class _PairList(list[tuple[Any, Any]]):
    pass


class Decoder:
    """Decodes MessagePack documents of one message type."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._info = _document.info(type)
        lim = self.limits
        self._options: dict[str, Any] = dict(
            raw=False, strict_map_key=True, timestamp=0, use_list=True,
            max_str_len=lim.max_string_bytes, max_bin_len=lim.max_document_bytes,
            max_array_len=lim.max_items, max_map_len=lim.max_items, max_ext_len=12,
        )

    def _unpack(self, data: bytes, hook: Any) -> Any:
        try:
            return _msgpack.unpackb(data, object_pairs_hook=hook, **self._options)
        except _Duplicate:
            raise
        except _msgpack.ExtraData:
            raise decode_error("TRAILING_DATA", "", "bytes follow the end of the document") from None
        except _msgpack.StackError:
            raise decode_error("NESTING_TOO_DEEP", "", "the document nests too deeply") from None
        except UnicodeDecodeError as e:
            raise decode_error("INVALID_UTF8", "", f"a string is not valid UTF-8: {e.reason}") from None
        except _msgpack.FormatError as e:
            raise decode_error("INVALID_WIRE_FORMAT", "", f"not MessagePack: {e}") from None
        except (ValueError, TypeError) as e:
            text = str(e)
            if "incomplete" in text or isinstance(e, _msgpack.OutOfData):
                raise decode_error("TRUNCATED", "", "the document ends early") from None
            if "exceeds max_str_len" in text:
                raise decode_error("STRING_TOO_LONG", "",
                                   f"a string is longer than {self.limits.max_string_bytes} bytes") from None
            if "exceeds max_array_len" in text or "exceeds max_map_len" in text:
                raise decode_error("TOO_MANY_ITEMS", "",
                                   f"an array or map has more than {self.limits.max_items} items") from None
            if "Timestamp" in text or "ext" in text.lower():
                raise decode_error("INVALID_TIMESTAMP", "", f"a bad extension value: {text}") from None
            raise decode_error("INVALID_WIRE_FORMAT", "", f"not MessagePack: {text}") from None

    def decode(self, data: bytes) -> dict[str, Any]:
        _document.check_size(data, self.limits)
        try:
            raw = self._unpack(data, _pairs)
        except _Duplicate:
            tree = self._unpack(data, _PairList)
            pointer = _find_duplicate(tree, "") or ""
            raise decode_error("DUPLICATE_KEY", pointer,
                               f"the key {pointer.rsplit('/', 1)[-1]!r} appears twice") from None
        if type(raw) is not dict:
            raise decode_error("TYPE_MISMATCH", "", "a document is a MessagePack map")
        try:
            doc = _codec.from_msgpack(raw, self._info)
        except _codec.PathError as e:
            raise _codec.path_error(e) from None
        _document.validated(doc, self.type, self.limits)
        return doc  # type: ignore[no-any-return]


class Encoder:
    """Encodes documents of one message type as canonical MessagePack."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._info = _document.info(type)
        self._packer = _msgpack.Packer(use_bin_type=True, datetime=False)

    def encode(self, doc: Mapping[str, Any], *, canonical: bool = True) -> bytes:
        _document.validated(doc, self.type, self.limits)
        return self._packer.pack(_codec.to_msgpack(dict(doc), self._info))  # type: ignore[no-any-return]


_decoders: dict[str, Decoder] = {}
_encoders: dict[str, Encoder] = {}


def decode(data: bytes, *, type: str = DEFAULT_TYPE, limits: Limits | None = None) -> dict[str, Any]:
    """Parse and validate one MessagePack document of the given message type."""
    if limits is not None:
        return Decoder(type, limits=limits).decode(data)
    dec = _decoders.get(type)
    if dec is None:
        dec = _decoders[type] = Decoder(type)
    return dec.decode(data)


def encode(doc: Mapping[str, Any], *, type: str = DEFAULT_TYPE, canonical: bool = True) -> bytes:
    """Validate one document and write it as canonical MessagePack."""
    enc = _encoders.get(type)
    if enc is None:
        enc = _encoders[type] = Encoder(type)
    return enc.encode(doc, canonical=canonical)
