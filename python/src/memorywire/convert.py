"""Conversion between encodings, and detection of a document's encoding."""

from __future__ import annotations

from typing import Any

from memorywire import json as _json
from memorywire import msgpack as _msgpack
from memorywire import protobuf as _protobuf
from memorywire import protojson as _protojson
from memorywire._document import DEFAULT_TYPE, refuse_unknown
from memorywire.limits import Limits

#: The encodings of the specification.
ENCODINGS = ("json", "msgpack", "protobuf")
#: What convert reads and writes: the encodings, and ProtoJSON, the JSON
#: mapping of Protocol Buffers that stock tools speak (memorywire.protojson).
FORMATS = (*ENCODINGS, "protojson")
_MODULES: dict[str, Any] = {"json": _json, "msgpack": _msgpack, "protobuf": _protobuf,
                            "protojson": _protojson}


#: The formats that carry float32 vectors as binary32 bytes: their decoders
#: can keep a vector so (decode_walk_binary_vectors), and their writers write it.
_BINARY32 = frozenset(f for f, mod in _MODULES.items() if hasattr(mod.Decoder, "decode_walk_binary_vectors"))


def module(encoding: str) -> Any:
    """The codec module of an encoding name."""
    try:
        return _MODULES[encoding]
    except KeyError:
        raise ValueError(f"unknown encoding {encoding!r}; one of {', '.join(FORMATS)}") from None


def convert(data: bytes, *, source: str, target: str, type: str = DEFAULT_TYPE,
            limits: Limits | None = None) -> bytes:
    """Decode a document from one encoding and write it, canonical, in another;
    source and target are names of FORMATS.

    The document is validated once. Conversion never loses content silently:
    a document of a newer minor version whose unknown members the target
    encoding cannot carry fails with UnrepresentableError.
    """
    decoder = module(source)._codecs.decoder(type, limits)
    if source in _BINARY32 and target in _BINARY32:
        # Float32 vectors pass from one to the other as their bytes.
        doc, walk = decoder.decode_walk_binary_vectors(data)
    else:
        doc, walk = decoder.decode_walk(data)
    if source != target:
        refuse_unknown(walk, target)
    return module(target)._codecs.encoder(type).encode_valid(doc, walk)  # type: ignore[no-any-return]


def detect_encoding(data: bytes) -> str:
    """Guess the encoding of a document from its first byte."""
    stripped = data.lstrip(b" \t\r\n")
    if stripped[:1] in (b"{", b"["):
        return "json"
    first = data[:1]
    if first and (0x80 <= first[0] <= 0x8F or first[0] in (0xDE, 0xDF)):
        return "msgpack"
    return "protobuf"
