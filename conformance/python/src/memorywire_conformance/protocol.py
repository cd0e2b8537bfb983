"""The testee protocol, version 1: frames, the testee process, the handshake.

A frame is a 4-byte little-endian unsigned length N followed by N bytes of
UTF-8 JSON holding one object. The runner starts the testee command once,
exchanges a handshake, then sends one request per case and waits for exactly
one response, at most ``timeout`` seconds. A testee that crashes, writes a
malformed frame or does not answer in time fails the case at hand and is
started again (with a new handshake) for the next one. Every response, the
handshake included, is checked against the protocol schema before the runner
uses it; a handshake that breaks it means the testee cannot be used.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import struct
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import IO, Any, BinaryIO

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

__all__ = [
    "MAX_FRAME_BYTES",
    "PROTOCOL",
    "FrameError",
    "Handshake",
    "ProtocolSchema",
    "Testee",
    "TesteeFailure",
    "TesteeStartError",
    "decode_frame",
    "encode_frame",
    "read_frame",
]

#: The version of the testee protocol the runner speaks.
PROTOCOL = 1
#: The largest frame the runner reads (a document of the largest default size,
#: in base64, fits with room to spare).
MAX_FRAME_BYTES = 128 * 1024 * 1024
SCHEMA_ID = "https://memorywire.dev/conformance/v1/testee-protocol.schema.json"

_LENGTH = struct.Struct("<I")


# Frames.


class FrameError(Exception):
    """Bytes that are not a well-formed frame."""


def encode_frame(frame: Mapping[str, Any]) -> bytes:
    """One frame: the length prefix, then the compact UTF-8 JSON of the object."""
    body = json.dumps(frame, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")
    return _LENGTH.pack(len(body)) + body


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_body(body: bytes) -> dict[str, Any]:
    try:
        frame = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as e:
        raise FrameError(f"the frame is not UTF-8: {e}") from None
    except ValueError as e:
        raise FrameError(f"the frame is not JSON: {e}") from None
    if not isinstance(frame, dict):
        raise FrameError(f"the frame holds a JSON {type(frame).__name__}, not an object")
    return frame


def _too_large(head: bytes, size: int) -> FrameError:
    """The error for a length prefix above the limit. Four bytes of printable
    text there mean the testee printed text to its stdout."""
    if all(32 <= b < 127 or b in b"\t\r\n" for b in head):
        return FrameError(f"the frame length is text, {head.decode('ascii')!r}: the testee "
                          "printed to standard output, which carries only frames (write "
                          "logs to standard error)")
    return FrameError(f"a frame of {size} bytes (length prefix {head.hex(' ')}) exceeds the "
                      f"limit of {MAX_FRAME_BYTES}")


def decode_frame(data: bytes) -> tuple[dict[str, Any], bytes]:
    """The first frame of ``data`` and the bytes after it."""
    if len(data) < _LENGTH.size:
        raise FrameError(f"{len(data)} bytes are too few for a frame length")
    (size,) = _LENGTH.unpack_from(data)
    if size > MAX_FRAME_BYTES:
        raise _too_large(data[:_LENGTH.size], size)
    end = _LENGTH.size + size
    if len(data) < end:
        raise FrameError(f"the frame announces {size} bytes; {len(data) - _LENGTH.size} follow")
    return _parse_body(data[_LENGTH.size:end]), data[end:]


def read_frame(stream: BinaryIO | IO[bytes]) -> dict[str, Any] | None:
    """Read one frame from a stream; None at the end of the stream between frames."""
    head = _read_exactly(stream, _LENGTH.size)
    if not head:
        return None
    if len(head) < _LENGTH.size:
        raise FrameError(f"the stream ends inside a frame length ({len(head)} of 4 bytes)")
    (size,) = _LENGTH.unpack(head)
    if size > MAX_FRAME_BYTES:
        raise _too_large(head, size)
    body = _read_exactly(stream, size)
    if len(body) < size:
        raise FrameError(f"the stream ends after {len(body)} of the {size} bytes of a frame")
    return _parse_body(body)


def _read_exactly(stream: BinaryIO | IO[bytes], size: int) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


# The protocol schema.


def load_protocol_schema() -> dict[str, Any]:
    """The protocol schema shipped with the runner (a copy of
    conformance/protocol/v1/testee-protocol.schema.json)."""
    text = resources.files(__package__).joinpath(
        "schemas/testee-protocol.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


class ProtocolSchema:
    """Checks frames against the protocol schema, one subschema per frame type."""

    def __init__(self, schema: Mapping[str, Any] | None = None) -> None:
        self.schema = dict(schema or load_protocol_schema())
        Draft202012Validator.check_schema(self.schema)
        self._validator = Draft202012Validator(self.schema)
        self.responses = self._by_type("response")
        self.requests = self._by_type("request")

    def _by_type(self, side: str) -> dict[str, Draft202012Validator]:
        defs = self.schema["$defs"]
        out = {}
        for branch in defs[side]["oneOf"]:
            name = branch["$ref"].rsplit("/", 1)[-1]
            sub = defs[name]
            out[sub["properties"]["type"]["const"]] = Draft202012Validator(
                {"$defs": defs, **sub})
        return out

    def _check(self, frame: Mapping[str, Any], side: str) -> str | None:
        validators = self.responses if side == "response" else self.requests
        kind = frame.get("type")
        validator = validators.get(kind) if isinstance(kind, str) else None
        if validator is None:
            return (f"a {side} of type {kind!r}; protocol {PROTOCOL} has "
                    + ", ".join(sorted(validators)))
        error = best_match(validator.iter_errors(frame))
        if error is None:
            return None
        path = list(error.absolute_path)
        member = _offending_member(error)
        if member is not None:
            path.append(member)
        where = _pointer(path) or "the frame"
        return f"{where}: {error.message}"

    def response_error(self, frame: Mapping[str, Any]) -> str | None:
        """Why a response frame breaks the schema, or None."""
        return self._check(frame, "response")

    def request_error(self, frame: Mapping[str, Any]) -> str | None:
        """Why a request frame breaks the schema, or None."""
        return self._check(frame, "request")

    def is_valid(self, frame: Mapping[str, Any]) -> bool:
        """Whether a frame of either side matches the whole schema."""
        return bool(self._validator.is_valid(frame))


def _pointer(path: list[Any]) -> str:
    """A JSON Pointer (RFC 6901) from path components."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _offending_member(error: Any) -> str | None:
    """The member a schema error is about, beyond the object it is reported
    on: the missing member of a ``required`` error, the first unexpected
    member of an ``additionalProperties`` error."""
    instance = error.instance
    if not isinstance(instance, dict):
        return None
    if error.validator == "required":
        return next((name for name in error.validator_value
                     if name not in instance and error.message.startswith(repr(name))), None)
    if error.validator == "additionalProperties":
        known = error.schema.get("properties", {})
        return next((name for name in instance if name not in known), None)
    return None


# The testee process.


@dataclass(frozen=True)
class Handshake:
    """What the testee announced."""

    name: str
    version: str
    language: str
    protocol: int
    specversions: tuple[str, ...]
    encodings: tuple[str, ...]
    capabilities: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_frame(cls, frame: Mapping[str, Any]) -> Handshake:
        return cls(name=frame["name"], version=frame["version"], language=frame["language"],
                   protocol=frame["protocol"], specversions=tuple(frame["specversions"]),
                   encodings=tuple(frame["encodings"]),
                   capabilities=tuple(frame.get("capabilities", ())), raw=dict(frame))


class TesteeFailure(Exception):
    """The testee did not answer a request with a well-formed response."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, kind: str, message: str, stderr: str = "") -> None:
        super().__init__(message)
        #: "timeout", "crash", "malformed-frame", "invalid-response" or "extra-frame".
        self.kind = kind
        self.message = message
        #: The end of what the testee wrote to stderr, when it crashed.
        self.stderr = stderr

    def __str__(self) -> str:
        if self.stderr:
            return f"{self.message}; its stderr ends with:\n{self.stderr}"
        return self.message


class TesteeStartError(Exception):
    """The testee cannot be started or does not complete the handshake."""

    __test__ = False


_EOF = object()


class _Process:
    """One run of the testee command: the process, a reader, a writer and a
    stderr collector thread."""

    def __init__(self, argv: list[str], on_stderr: Callable[[str], None] | None,
                 cwd: str | None, env: Mapping[str, str] | None) -> None:
        self.stderr_tail: deque[str] = deque(maxlen=40)
        self._on_stderr = on_stderr
        self.responses: queue.Queue[Any] = queue.Queue()
        self._writes: queue.Queue[bytes | None] = queue.Queue()
        popen_kwargs: dict[str, Any] = {}
        if os.name == "posix":
            popen_kwargs["start_new_session"] = True
        self.proc = subprocess.Popen(  # noqa: S603 - the command is the user's testee
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=cwd, env=None if env is None else dict(env), **popen_kwargs)
        self._threads = [
            threading.Thread(target=self._read, name="testee-stdout", daemon=True),
            threading.Thread(target=self._write, name="testee-stdin", daemon=True),
            threading.Thread(target=self._drain_stderr, name="testee-stderr", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            while True:
                frame = read_frame(stream)
                if frame is None:
                    self.responses.put(_EOF)
                    return
                self.responses.put(frame)
        except FrameError as e:
            self.responses.put(e)
        except (OSError, ValueError):
            self.responses.put(_EOF)

    def _write(self) -> None:
        stream = self.proc.stdin
        assert stream is not None
        try:
            while True:
                data = self._writes.get()
                if data is None:
                    stream.close()
                    return
                stream.write(data)
                stream.flush()
        except (OSError, ValueError):
            return  # the testee is gone; the reader reports it

    def _drain_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        try:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self.stderr_tail.append(line if len(line) <= 2000 else line[:2000] + "...")
                if self._on_stderr is not None:
                    self._on_stderr(line)
        except (OSError, ValueError):
            return

    def send(self, data: bytes) -> None:
        self._writes.put(data)

    def stderr_text(self) -> str:
        return "\n".join(self.stderr_tail)

    def close_input(self) -> None:
        self._writes.put(None)

    def exit_status(self, wait: float) -> int | None:
        try:
            return self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self.proc.pid, signal.SIGKILL)
                else:
                    self.proc.kill()
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        self.proc.wait()
        self._writes.put(None)
        for thread in self._threads:
            thread.join(timeout=1)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


class Testee:
    """The testee command, kept running across requests and restarted after a
    failure."""

    __test__ = False

    def __init__(self, command: str, *, timeout: float = 10.0, suite: str = "",
                 schema: ProtocolSchema | None = None,
                 on_stderr: Callable[[str], None] | None = None,
                 cwd: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise TesteeStartError("the testee command is empty")
        self.command = command
        self.timeout = timeout
        self.suite = suite
        self.schema = schema or ProtocolSchema()
        self._on_stderr = on_stderr
        self._cwd = cwd
        self._env = env
        self._process: _Process | None = None
        self.handshake: Handshake | None = None
        #: How often the testee was started again after a failure.
        self.restarts = 0

    def __enter__(self) -> Testee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> Handshake:
        """Start the testee and exchange the handshake; TesteeStartError if either fails."""
        try:
            self._process = _Process(self.argv, self._on_stderr, self._cwd, self._env)
        except OSError as e:
            raise TesteeStartError(f"cannot start {self.argv[0]!r}: {e.strerror or e}") from None
        request = {"type": "handshake", "protocol": PROTOCOL, "suite": self.suite}
        try:
            frame = self._exchange(request)
        except TesteeFailure as e:
            self._discard()
            raise TesteeStartError(f"no handshake: {e}") from None
        kind = frame.get("type")
        if kind != "handshake":
            self._discard()
            detail = frame.get("message", "")
            what = (f"{_article(kind)} {kind} frame" if isinstance(kind, str) and kind
                    else "a frame without a type" if kind is None
                    else f"a frame of type {kind!r}")
            raise TesteeStartError(f"the testee answered the handshake with {what}"
                                   f"{': ' + str(detail) if detail else ''}")
        protocol = frame.get("protocol")
        if protocol != PROTOCOL and isinstance(protocol, int) and not isinstance(protocol, bool):
            self._discard()
            raise TesteeStartError(f"the testee speaks protocol {protocol}, "
                                   f"the runner {PROTOCOL}")
        error = self.schema.response_error(frame)
        if error is not None:
            self._discard()
            raise TesteeStartError(f"the handshake breaks the protocol: {error}")
        handshake = Handshake.from_frame(frame)
        if self.handshake is not None and handshake.encodings != self.handshake.encodings:
            self._discard()
            raise TesteeStartError("the restarted testee announced other encodings")
        self.handshake = handshake
        return handshake

    def request(self, frame: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and return its response, checked against the schema.

        Raises TesteeFailure when the testee crashes, hangs, writes a malformed
        frame or a response that breaks the schema; the next request starts it
        again. Raises TesteeStartError when it cannot be started again.
        """
        if self._process is None:
            self.restarts += 1
            self.start()
        response = self._exchange(frame)
        error = self.schema.response_error(response)
        if error is not None:
            raise TesteeFailure("invalid-response", f"the response breaks the protocol: {error}")
        return response

    def _exchange(self, frame: Mapping[str, Any]) -> dict[str, Any]:
        process = self._process
        assert process is not None
        try:
            stray = process.responses.get_nowait()
        except queue.Empty:
            stray = None
        if stray is not None:
            self._discard()
            if isinstance(stray, dict):
                raise TesteeFailure("extra-frame", "the testee wrote a frame nobody asked for "
                                    f"(type {stray.get('type')!r})")
            raise self._failure(stray, process)
        process.send(encode_frame(frame))
        deadline = time.monotonic() + self.timeout
        try:
            item = process.responses.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self._discard()
            raise TesteeFailure("timeout", f"no response within {self.timeout:g} s",
                                process.stderr_text()) from None
        if isinstance(item, dict):
            return item
        raise self._failure(item, process)

    def _failure(self, item: Any, process: _Process) -> TesteeFailure:
        if isinstance(item, FrameError):
            self._discard()
            return TesteeFailure("malformed-frame", f"malformed frame: {item}",
                                 process.stderr_text())
        status = process.exit_status(wait=2.0)
        self._discard()
        how = "closed its stdout" if status is None else _describe_status(status)
        return TesteeFailure("crash", f"the testee {how} without answering",
                             process.stderr_text())

    def discard(self) -> None:
        """Stop the testee; the next request starts it again. The runner does
        this when a response does not fit its request: the testee's responses
        may be out of step with the requests."""
        self._discard()

    def _discard(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None

    def close(self) -> None:
        """Send shutdown, close stdin and wait briefly; kill the testee if it lingers."""
        process = self._process
        if process is None:
            return
        self._process = None
        process.send(encode_frame({"type": "shutdown"}))
        process.close_input()
        process.exit_status(wait=min(self.timeout, 5.0))
        process.kill()


def _article(word: str) -> str:
    """"a" or "an" before a word."""
    return "an" if word[:1].lower() in ("a", "e", "i", "o", "u") else "a"


def _describe_status(status: int) -> str:
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"
