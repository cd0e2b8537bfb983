"""The conformance testee of the reference codec.

Speaks the memorywire conformance testee protocol, version 1
(conformance/protocol/v1/testee-protocol.schema.json) on stdin and stdout:
every frame is a 4-byte little-endian length followed by that many bytes of
UTF-8 JSON. Run it as ``memorywire testee`` or ``python -m memorywire.testee``
and hand that command to the conformance runner::

    memorywire-conformance codec --testee "python -m memorywire.testee"

Each codec request is answered with the reference codec: a validate-only
request decodes the input (``valid`` or ``invalid``), any other request
converts it to the requested encoding in canonical form (``payload`` or
``invalid``). A rejected document is reported with its reason token and the
JSON Pointer of the first offending member; the stage is ``parse`` for a
:class:`~memorywire.DecodeError` and ``validation`` for every other error.
Anything else that goes wrong is a ``runtime_error``.

:class:`Testee` is built to be subclassed: a testee with a different
behaviour overrides :meth:`Testee.decode`, :meth:`Testee.convert` or
:meth:`Testee.rejection`.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO

import memorywire
from memorywire import json as _json
from memorywire.convert import ENCODINGS, convert, module
from memorywire.errors import DecodeError, MemorywireError

__all__ = ["PROTOCOL", "Testee", "main", "read_frame", "write_frame"]

#: The version of the testee protocol this testee speaks.
PROTOCOL = 1
_LENGTH = struct.Struct("<I")


class FrameError(Exception):
    """The input ended inside a frame, or a frame is not a JSON object."""


def read_frame(stream: BinaryIO) -> dict[str, Any] | None:
    """Read one frame; None at the end of the input between frames."""
    head = _read_exactly(stream, _LENGTH.size)
    if not head:
        return None
    if len(head) < _LENGTH.size:
        raise FrameError("the input ends inside a frame length")
    (size,) = _LENGTH.unpack(head)
    body = _read_exactly(stream, size)
    if len(body) < size:
        raise FrameError(f"the input ends after {len(body)} of {size} bytes of a frame")
    try:
        frame = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise FrameError(f"a frame is not UTF-8 JSON: {e}") from None
    if not isinstance(frame, dict):
        raise FrameError("a frame is not a JSON object")
    return frame


def write_frame(stream: BinaryIO, frame: Mapping[str, Any]) -> None:
    """Write one frame and flush it."""
    body = json.dumps(frame, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    stream.write(_LENGTH.pack(len(body)) + body)
    stream.flush()


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


class Testee:
    """Answers the requests of the testee protocol with the reference codec."""

    name = "memorywire-python"
    version = memorywire.__version__
    language = "python"
    specversions: tuple[str, ...] = (memorywire.SPECVERSION,)
    encodings: tuple[str, ...] = ENCODINGS
    capabilities: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._known_types: dict[str, bool] = {}

    # The protocol.

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        """The response to one request; None for a request that has none."""
        kind = request.get("type")
        if kind == "handshake":
            return self.handshake(request)
        if kind == "codec":
            try:
                return self.codec(request)
            except Exception as e:  # noqa: BLE001 - every failure becomes a response
                return runtime_error(f"{type(e).__name__}: {e}")
        if kind == "shutdown":
            return None
        return {"type": "unsupported", "message": f"no request of type {kind!r} in protocol 1"}

    def handshake(self, request: Mapping[str, Any]) -> dict[str, Any]:
        if request.get("protocol") != PROTOCOL:
            return runtime_error(f"this testee speaks protocol {PROTOCOL}, "
                                 f"not {request.get('protocol')!r}")
        return {
            "type": "handshake",
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "protocol": PROTOCOL,
            "specversions": list(self.specversions),
            "encodings": list(self.encodings),
            "capabilities": list(self.capabilities),
        }

    def codec(self, request: Mapping[str, Any]) -> dict[str, Any]:
        source = request["input"]["encoding"]
        target = request.get("output")
        type_name = request["message_type"]
        for encoding in (source, target):
            if encoding is not None and encoding not in self.encodings:
                return {"type": "unsupported", "message": f"no {encoding!r} encoding"}
        if not self.knows(type_name):
            return {"type": "unsupported", "message": f"no message type {type_name!r}"}
        try:
            data = base64.b64decode(request["input"]["data"], validate=True)
        except binascii.Error as e:
            return runtime_error(f"the input data is not base64: {e}")
        try:
            if target is None:
                self.decode(data, source, type_name)
                return {"type": "valid"}
            out = self.convert(data, source, target, type_name,
                               canonical=bool(request.get("canonical", True)))
        except MemorywireError as e:
            return self.rejection(e, request)
        return {"type": "payload", "data": base64.b64encode(out).decode("ascii")}

    # The codec: what a different testee overrides.

    def knows(self, type_name: str) -> bool:
        """Whether the message type exists."""
        known = self._known_types.get(type_name)
        if known is None:
            try:
                _json.Decoder(type_name)
                known = True
            except KeyError:
                known = False
            self._known_types[type_name] = known
        return known

    def decode(self, data: bytes, source: str, type_name: str) -> dict[str, Any]:
        """Decode and validate a document."""
        return module(source).decode(data, type=type_name)  # type: ignore[no-any-return]

    def convert(self, data: bytes, source: str, target: str, type_name: str, *,
                canonical: bool = True) -> bytes:
        """Decode a document and write it in the target encoding."""
        out = convert(data, source=source, target=target, type=type_name)
        if canonical:
            return out
        codec = module(target)
        return codec.encode(codec.decode(out, type=type_name),  # type: ignore[no-any-return]
                            type=type_name, canonical=False)

    def rejection(self, error: MemorywireError, request: Mapping[str, Any]) -> dict[str, Any]:
        """The response to a document the codec rejected."""
        return {
            "type": "invalid",
            "stage": "parse" if isinstance(error, DecodeError) else "validation",
            "reason": error.reason,
            "pointer": error.pointer,
            "message": error.message,
        }

    # The loop.

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> int:
        """Answer requests until shutdown or the end of the input."""
        while True:
            try:
                request = read_frame(stdin)
            except FrameError as e:
                print(f"memorywire testee: {e}", file=sys.stderr)
                return 1
            if request is None:
                return 0
            response = self.handle(request)
            if response is None:
                return 0
            write_frame(stdout, response)


def runtime_error(message: str) -> dict[str, Any]:
    return {"type": "runtime_error", "message": message}


def main(argv: list[str] | None = None) -> int:
    """Serve the testee protocol on stdin and stdout; the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if args:
        print(f"memorywire testee: unexpected arguments: {' '.join(args)}", file=sys.stderr)
        return 2
    return Testee().serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
