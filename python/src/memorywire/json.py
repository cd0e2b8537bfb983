"""The JSON encoding (spec/v1/json-format.md).

``decode`` parses and validates; ``encode`` validates and writes the
canonical form: members sorted by code point, no whitespace, defaults
omitted, floats and timestamps in their canonical spelling.
"""

from __future__ import annotations

import json as _stdjson
import re
from collections.abc import Mapping
from typing import Any

import orjson

from memorywire import _diagnose, _document, _encode, _fast, _rules
from memorywire import _model as m
from memorywire import validation as _validate
from memorywire._compiled import LONG_INTEGER
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import UnrepresentableError, Violation, decode_error
from memorywire.limits import DEFAULT_LIMITS, Limits

__all__ = ["Decoder", "Encoder", "decode", "encode"]

# A member separator: the closing quote of a key, optional whitespace, a colon.
_SEPARATOR = re.compile(rb'"[ \t\n\r]*:')
_ESCAPED_SEPARATOR = re.compile(rb'\\"[ \t\n\r]*:')


def _separators(data: bytes, escapes: bool) -> int:
    """How many member separators the bytes hold: one per object member,
    unless a key ends in a backslash, which the caller excludes. Without
    ``escapes`` (no backslash in the bytes) no quote is escaped."""
    # Four scans for a fixed pair of bytes cost less than one for a class.
    if b'" ' in data or b'"\n' in data or b'"\r' in data or b'"\t' in data:
        if not escapes:
            return len(_SEPARATOR.findall(data))
        return len(_SEPARATOR.findall(data)) - len(_ESCAPED_SEPARATOR.findall(data))
    if not escapes:
        return data.count(b'":')
    return data.count(b'":') - data.count(b'\\":')

_ORJSON_REASONS = (
    ("not valid UTF-8", "INVALID_UTF8"),
    ("surrogate", "INVALID_UNICODE"),
    ("depth limit", "NESTING_TOO_DEEP"),
    ("infinity", "NON_FINITE_NUMBER"),
    ("unexpected content after document", "TRAILING_DATA"),
    ("unexpected end of data", "TRUNCATED"),
    ("EOF while parsing", "TRUNCATED"),
)


class _Duplicate(Exception):
    pass


#: The longest integer token parsed as it is: a sign and 30 digits. Every
#: integer range of the format ends within 19 digits.
_SHORT_INTEGER = 31


class _NegativeZero(int):
    """The integer token -0, which is -0.0 in a float field and 0 elsewhere."""


class _LongInteger(int):
    """An integer token longer than ``_SHORT_INTEGER``, which the interpreter
    may refuse to turn into an int. In a float field it is the binary64 value
    of its text; elsewhere ``_compiled.LONG_INTEGER`` of its sign, beyond
    every integer range and named by its size in messages."""

    text: str


_NEGATIVE_ZERO_TOKEN = re.compile(rb"-0(?![.\deE])")
_LONG_INTEGER_TOKEN = re.compile(rb"\d{%d}" % _SHORT_INTEGER)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _integer(token: str) -> int:
    if len(token) <= _SHORT_INTEGER:
        return _NegativeZero(0) if token == "-0" else int(token)
    value = _LongInteger(-LONG_INTEGER if token[0] == "-" else LONG_INTEGER)
    value.text = token
    return value


def _constant(token: str) -> Any:
    raise decode_error("SYNTAX_ERROR", "", f"{token} is not JSON")


def _parse(data: bytes, max_depth: int) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        text = str(e)
        reason = next((r for needle, r in _ORJSON_REASONS if needle in text), "SYNTAX_ERROR")
        if not data.strip(b" \t\r\n"):
            reason = "TRUNCATED"  # no document at all: the input ends before it begins
        if reason == "NON_FINITE_NUMBER":
            return None  # parsed again exactly, to name the member
        pointer: str | None = ""
        if reason in ("INVALID_UTF8", "INVALID_UNICODE"):
            pointer = _diagnose.json_surrogate(data)
        elif reason == "NESTING_TOO_DEEP":
            pointer = _diagnose.json_depth(data, max_depth)
        raise decode_error(reason, pointer or "", f"not a JSON document: {text}") from None


#: Faults the standard library's parser reports by message, other than syntax.
_STDJSON_REASONS = (("Extra data", "TRAILING_DATA"), ("Unterminated string", "TRUNCATED"))


def _stdjson_loads(data: bytes, max_depth: int, pairs: Any) -> Any:
    """Parse with the standard library; its faults as DecodeErrors."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise decode_error("INVALID_UTF8", _diagnose.json_surrogate(data) or "",
                           f"not valid UTF-8 at byte {e.start}") from None
    try:
        return _stdjson.loads(text, object_pairs_hook=pairs, parse_int=_integer, parse_constant=_constant)
    except RecursionError:
        raise decode_error("NESTING_TOO_DEEP", _diagnose.json_depth(data, max_depth) or "",
                           "the document nests too deeply") from None
    except _stdjson.JSONDecodeError as e:
        reason = next((r for needle, r in _STDJSON_REASONS if e.msg.startswith(needle)), "SYNTAX_ERROR")
        if reason == "SYNTAX_ERROR" and not text[e.pos:].strip(" \t\r\n"):
            reason = "TRUNCATED"  # the text ends where more was expected
        offset = len(text[:e.pos].encode("utf-8"))
        raise decode_error(reason, "", f"not a JSON document: {e.msg} at byte {offset}") from None


def _exact_parse(data: bytes, max_depth: int) -> Any:
    """Parse with the standard library, which keeps long integers exact and
    lets us see repeated member names."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise _Duplicate(k)
            out[k] = v
        return out

    try:
        return _stdjson_loads(data, max_depth, pairs)
    except _Duplicate:
        pointer = _diagnose.find_duplicate(_stdjson_loads(data, max_depth, _diagnose.PairList), "") or ""
        raise decode_error("DUPLICATE_KEY", pointer,
                           f"the member {pointer.rsplit('/', 1)[-1]!r} appears twice") from None


def _float_token(v: Any) -> Any:
    if type(v) is _NegativeZero:
        return -0.0
    if type(v) is _LongInteger:
        return float(v.text)
    return v


def _resolve_tokens(node: Any, info: m.MessageInfo | None) -> Any:
    """Resolve the tokens -0 and long integers by the type of their field:
    floats in a float field, plain integers elsewhere."""
    t = type(node)
    if t is _NegativeZero:
        return 0
    if t is _LongInteger:
        return int(node)
    if t is list:
        return [_resolve_tokens(x, info) for x in node]
    if t is not dict:
        return node
    out = {}
    for key, v in node.items():
        f = info.fields.get(key) if info is not None else None
        if f is not None and f.kind in (m.DOUBLE, m.FLOAT32):
            v = [_float_token(x) for x in v] if type(v) is list else _float_token(v)
        out[key] = _resolve_tokens(v, f.message if f is not None and not f.is_map else None)
    return out


class Decoder:
    """Decodes JSON documents of one message type."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None,
                 vectors: str = "floats") -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        #: Whether float32 vectors come as ``Float32Bytes`` (``vectors="bytes"``).
        self._bytes = _document.byte_vectors(vectors)
        self._info = _document.info(type)
        self._fast: Any = _fast.decoder("json", type, self.limits, binary_vectors=self._bytes)

    def decode(self, data: bytes | str) -> dict[str, Any]:
        """Parse and validate one document."""
        if self._fast is not None:
            # The document, when the typed decoder accepts it, the bytes cannot
            # hide a repeated or unknown member or the token -0, and the rules
            # the types leave out hold (memorywire._fast).
            doc = self._fast(data)
            if doc is not None:
                return doc  # type: ignore[no-any-return]
        return self._decode_slowly(data)[0]

    def decode_walk(self, data: bytes | str) -> tuple[dict[str, Any], Any]:
        """Parse and validate one document; return it and its validation walk."""
        if self._fast is not None:
            doc = self._fast(data)
            if doc is not None:
                return doc, _rules.Walk(self.limits, tolerant=False)
        return self._decode_slowly(data)

    def _decode_slowly(self, data: bytes | str) -> tuple[dict[str, Any], Any]:
        """decode_walk by the walkers, in the form of vectors asked for."""
        doc, walk = self._decode_walkers(_document.text_bytes(data, self.limits))
        if self._bytes:
            _document.with_byte_vectors(doc, self._info)
        return doc, walk

    def _decode_walkers(self, data: bytes) -> tuple[dict[str, Any], Any]:
        """Parse and validate one document's bytes with the walkers."""
        doc = _parse(data, self.limits.max_depth)
        if doc is not None and type(doc) is not dict:
            raise decode_error("TYPE_MISMATCH", "", "a document is a JSON object")
        # orjson keeps the last of repeated members, turns long integers into
        # floats and -0 into 0; when the bytes could hide any of them, parse
        # again exactly.
        escapes = b"\\" in data  # one fast scan spares two when there is no backslash
        if doc is not None and (not escapes or b"\\\\" not in data) \
                and _NEGATIVE_ZERO_TOKEN.search(data) is None:
            walk = _validate.run(doc, self.type, self.limits)
            if _separators(data, escapes) == walk.members and not walk.large_float:
                _document.raise_errors(walk)
                return doc, walk
        refused = doc is None  # by orjson, for a number that overflows
        doc = _exact_parse(data, self.limits.max_depth)
        try:
            if refused and _SURROGATE_ESCAPE.search(data) is not None:
                # orjson never reached the strings after the number, and the
                # standard library lets a lone surrogate escape through.
                pointer = _validate.surrogate(doc)
                if pointer is not None:
                    raise decode_error("INVALID_UNICODE", pointer, "a string holds a lone surrogate escape")
            if _NEGATIVE_ZERO_TOKEN.search(data) is not None or _LONG_INTEGER_TOKEN.search(data) is not None:
                doc = _resolve_tokens(doc, _document.info(self.type))
        except RecursionError:
            raise decode_error("NESTING_TOO_DEEP", _diagnose.json_depth(data, self.limits.max_depth) or "",
                               "the document nests too deeply") from None
        return doc, _document.validated(doc, self.type, self.limits)


class Encoder:
    """Encodes documents of one message type as canonical JSON."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._canonical = _encode.json_canonical(type)

    def encode(self, doc: Mapping[str, Any], *, canonical: bool = True) -> bytes:
        """Validate one document and write it, canonical unless asked otherwise."""
        _document.refuse_partial(doc, "json")
        if not canonical:
            return _document.write_validated(  # type: ignore[no-any-return]
                doc, self.type, self.limits, lambda d, walk: orjson.dumps(d))
        return _document.write_validated(  # type: ignore[no-any-return]
            doc, self.type, self.limits, lambda d, walk: self.encode_valid(d))

    def encode_valid(self, doc: Mapping[str, Any], walk: Any = None) -> bytes:
        """Write a document the validator has accepted, canonically."""
        try:
            return orjson.dumps(self._canonical(doc), option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError as e:
            # Unknown content read from MessagePack (bin, timestamps) has no JSON form.
            if walk is not None:
                _document.refuse_unknown(walk, "json")  # names the members
            raise UnrepresentableError("UNREPRESENTABLE", f"the document has no JSON form: {e}",
                                       [Violation("", "UNREPRESENTABLE", str(e))]) from None


_codecs = _document.Codecs(Decoder, Encoder)


def decode(data: bytes | str, *, type: str = DEFAULT_TYPE, limits: Limits | None = None,
           vectors: str = "floats") -> dict[str, Any]:
    """Parse and validate one JSON document of the given message type; with
    ``vectors="bytes"``, each float32 vector is a ``Float32Bytes``."""
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
    """Validate one document and write it as JSON, canonical by default."""
    return _codecs.encoder(type).encode(doc, canonical=canonical)  # type: ignore[no-any-return]

