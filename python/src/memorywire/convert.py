"""Conversion between encodings, and detection of a document's encoding."""

from __future__ import annotations

from typing import Any

from memorywire import json as _json
from memorywire import msgpack as _msgpack
from memorywire import protobuf as _protobuf
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import UnrepresentableError, Violation
from memorywire.limits import Limits

ENCODINGS = ("json", "msgpack", "protobuf")
_MODULES: dict[str, Any] = {"json": _json, "msgpack": _msgpack, "protobuf": _protobuf}


def module(encoding: str) -> Any:
    """The codec module of an encoding name."""
    try:
        return _MODULES[encoding]
    except KeyError:
        raise ValueError(f"unknown encoding {encoding!r}; one of {', '.join(ENCODINGS)}") from None


def convert(data: bytes, *, source: str, target: str, type: str = DEFAULT_TYPE,
            limits: Limits | None = None) -> bytes:
    """Decode a document from one encoding and write it, canonical, in another.

    Conversion never loses content silently: a document of a newer minor
    version whose unknown members the target cannot carry fails with
    UnrepresentableError.
    """
    doc = module(source).decode(data, type=type, limits=limits)
    if source != target:
        from memorywire import validation as validate

        unknown = validate.run(doc, type).unknown
        if unknown:
            raise UnrepresentableError(
                "UNREPRESENTABLE",
                f"{unknown[0]} is unknown to this reader; converting it to {target} would lose it",
                [Violation(p, "UNREPRESENTABLE", "unknown member of a newer minor version") for p in unknown],
            )
    return module(target).encode(doc, type=type)  # type: ignore[no-any-return]


def detect_encoding(data: bytes) -> str:
    """Guess the encoding of a document from its first byte."""
    stripped = data.lstrip(b" \t\r\n")
    if stripped[:1] in (b"{", b"["):
        return "json"
    first = data[:1]
    if first and (0x80 <= first[0] <= 0x8F or first[0] in (0xDE, 0xDF)):
        return "msgpack"
    return "protobuf"
