"""The ``memorywire`` command: validate, convert and inspect documents and streams.

Exit status: 0 when every input is valid, 1 when an input is not, 2 on a
usage error (a bad option, an unknown message type, a file that cannot be
read or written).
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, TextIO, TypeVar

import orjson

import memorywire
from memorywire import _extras, _model, stream
from memorywire import json as _json
from memorywire.convert import convert, detect_encoding, module
from memorywire.errors import (
    LIMIT_REASONS,
    MemorywireError,
    Violation,
    decode_error,
)
from memorywire.limits import BOUNDS, Limits

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = ["main", "run"]

_T = TypeVar("_T")

PROG = "memorywire"
DEFAULT_TYPE = "memorywire.v1.MemoryRecord"
STDIN_NAME = "<stdin>"

#: Encoding names of --from and --to; "jsonl" is a JSON Lines stream,
#: "protojson" one document in the JSON mapping of Protocol Buffers.
ENCODING_CHOICES = ("json", "jsonl", "msgpack", "protobuf", "protojson")

#: File name suffixes and what they tell: the encoding and whether the file is a stream.
SUFFIXES: dict[str, tuple[str, bool]] = {
    ".json": ("json", False),
    ".jsonl": ("json", True),
    ".ndjson": ("json", True),
    ".msgpack": ("msgpack", False),
    ".mpk": ("msgpack", False),
    ".pb": ("protobuf", False),
    ".binpb": ("protobuf", False),
}

#: Seconds between two redraws of the progress line.
PROGRESS_INTERVAL = 0.5

DESCRIPTION = """\
Validate, convert and inspect memorywire documents: JSON, MessagePack and
Protobuf, one document or a stream of documents."""

EPILOG = """\
encodings:
  json      one JSON document (a .json file)
  jsonl     a JSON Lines stream, one document per line (.jsonl, .ndjson)
  msgpack   one MessagePack document (.msgpack, .mpk); as a stream, the
            documents one after another
  protobuf  one Protobuf message (.pb, .binpb); as a stream, each message
            preceded by its length as a varint
  protojson one document in ProtoJSON, the JSON mapping of Protocol Buffers
            that grpcurl, buf curl and gRPC-JSON gateways speak; only with
            --from or --to, and one document at a time

  Without --from, the encoding comes from the file name, else from the first
  bytes. A .jsonl or .ndjson file is a stream; any other input is one
  document unless --stream is given.

examples:
  memorywire validate record.json
  memorywire validate --type PutRequest request.msgpack
  memorywire validate --output json records.jsonl > errors.jsonl
  cat records.jsonl | memorywire validate --from jsonl -
  memorywire convert records.jsonl --to protobuf -o records.binpb
  memorywire convert record.json --to msgpack -o record.msgpack
  memorywire convert request.json --type PutRequest --to protojson
  memorywire inspect --stream records.binpb

exit status:
  0  every document is valid
  1  some input is not valid
  2  usage error: a bad option, an unknown message type, a file that cannot
     be read or written
"""

VALIDATE_EPILOG = """\
Every error is printed on standard output, one line each:

  FILE:LINE: POINTER: MESSAGE [REASON]

LINE is the line of the document in a JSON Lines stream, its position
(1, 2, ...) in a MessagePack or Protobuf stream, and 1 for a single document.
With --output json, each error is one JSON object on a line of its own
(JSON Lines) with the members file, line, pointer, reason, code and message.
Reading goes on past an invalid document wherever the next one can be found.
With --errors FILE, each rejected document is also written to FILE, one JSON
object a line, with the members file, line, error (its Error: code, reason,
message, violations) and, for JSON input read from a file, document (the
rejected document, or text when it is not JSON), so that the rejected records
can be fixed and sent again.

examples:
  memorywire validate record.json request.msgpack
  memorywire validate --type memorywire.v1.PutRequest request.json
  memorywire validate --stream --from protobuf export.bin
  memorywire validate --output json records.jsonl | jq .reason
  memorywire validate --errors rejected.jsonl records.jsonl
"""

CONVERT_EPILOG = """\
The output is canonical. A stream is converted into a stream: JSON Lines,
MessagePack documents one after another, or length-delimited Protobuf. On the
first invalid document, convert reports it on standard error and exits 1
without writing anything: the output appears only once the whole input has
been converted.

examples:
  memorywire convert record.json --to protobuf -o record.pb
  memorywire convert records.jsonl --to msgpack -o records.msgpack
  memorywire convert --stream --from msgpack records.msgpack --to jsonl
  memorywire convert request.pb --type PutRequest --to json
"""

INSPECT_EPILOG = """\
Each document is printed as indented JSON, members sorted; the documents of a
stream one after another. Errors go to standard error.

examples:
  memorywire inspect record.msgpack
  memorywire inspect --stream --from protobuf records.bin
"""


ADAPT_EPILOG = """\
The items are read from a JSON list, as the framework's serializer or store
gives them (a store row is an object of column name to value); a file of an
interchange format is read as it is (an .omi.json document or an AIMEM
Bundle, the lines of an .omi.jsonl file) and written back so, and a format
of its own files is read from its path (a PAM bundle directory, a Letta .af
file) and written to an output path of its kind. The records are written as
a stream, canonical; errors are reported as by validate, with the JSON
Pointer of the offending member of the items, and nothing is written. With
--to-form, --loss-report writes the loss report: record by record, what the
form's own fields do not carry and where it is kept, if anywhere. The forms
and their mappings are described in spec/v1/adapters/.

examples:
  memorywire adapt --list
  memorywire adapt --from langchain.messages_to_dict export.json --scope session=s1 -o records.jsonl
  memorywire adapt records.jsonl --to-form openai.chat_message -o messages.json
  memorywire adapt --from openai_agents.session_item items.json | \\
      memorywire adapt --to-form langchain.messages_to_dict -
  memorywire adapt records.jsonl --to-form aimem.bundle --loss-report lost.json -o brain.aimem.json
  memorywire adapt --from pam.memory_store export-bundle/ -o records.jsonl
"""


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An argument parser that writes to the streams of one run and returns
    its exit status instead of leaving the process."""

    out: BinaryIO
    err: TextIO

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if not message:
            return
        if file is sys.stderr:
            self.err.write(message)
        else:
            self.out.write(message.encode("utf-8"))

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self.err.write(message)
        raise _Exit(status)


def _parser(out: BinaryIO, err: TextIO) -> _Parser:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = _Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=formatter)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {memorywire.__version__} "
                                f"(specification {memorywire.SPECVERSION})")

    common = _Parser(add_help=False)
    common.add_argument("--type", "-t", default=DEFAULT_TYPE, metavar="TYPE",
                        help="the message type of the documents, by full name "
                             "(memorywire.v1.PutRequest) or short name (PutRequest); "
                             "default: MemoryRecord")
    common.add_argument("--from", "-f", dest="source", choices=ENCODING_CHOICES, metavar="ENC",
                        help="the encoding of the input: json, jsonl, msgpack, protobuf or "
                             "protojson "
                             "(default: from the file name, else from the first bytes)")
    common.add_argument("--stream", action=argparse.BooleanOptionalAction, default=None,
                        help="read the input as a stream of documents (default: only "
                             ".jsonl and .ndjson files and --from jsonl are streams)")
    low, high = BOUNDS["max_document_bytes"]
    common.add_argument("--max-document-bytes", type=_bounded("max_document_bytes"), metavar="N",
                        default=Limits().max_document_bytes,
                        help=f"the greatest size of one document in bytes, {low} to {high} "
                             "(default: %(default)s)")

    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    validate = sub.add_parser(
        "validate", parents=[common], formatter_class=formatter, epilog=VALIDATE_EPILOG,
        help="check documents against the specification",
        description="Check that each input holds valid documents of the message type.")
    validate.add_argument("files", nargs="+", metavar="FILE",
                          help="a file, or - for standard input")
    validate.add_argument("--output", choices=("text", "json"), default="text",
                          help="how errors are printed (default: text)")
    validate.add_argument("--errors", metavar="OUT",
                          help="also write each rejected document with its Error to OUT (JSON Lines)")

    conv = sub.add_parser(
        "convert", parents=[common], formatter_class=formatter, epilog=CONVERT_EPILOG,
        help="convert a document or a stream to another encoding",
        description="Convert a document, or a stream of documents, to canonical form "
                    "in another encoding.")
    conv.add_argument("file", metavar="FILE", help="a file, or - for standard input")
    conv.add_argument("--to", required=True, choices=ENCODING_CHOICES, metavar="ENC",
                      help="the encoding of the output: json, jsonl, msgpack, protobuf or "
                           "protojson")
    conv.add_argument("--output", "-o", default="-", metavar="OUT",
                      help="the output file, or - for standard output (the default)")

    inspect = sub.add_parser(
        "inspect", parents=[common], formatter_class=formatter, epilog=INSPECT_EPILOG,
        help="print documents as indented JSON",
        description="Print each document of the input as readable, indented JSON.")
    inspect.add_argument("file", metavar="FILE", help="a file, or - for standard input")

    verify = sub.add_parser(
        "verify", parents=[common], formatter_class=formatter,
        help="check the integrity block of an export",
        description="Check that a stream of ExportResponse documents (an Export saved as it came, in "
                    "any stream encoding) holds the records its integrity block names: their number "
                    "and the SHA-256 of their canonical Protobuf encodings, each preceded by its "
                    "length (operations.md section 17.1). With --public-key, the block must also "
                    "carry an Ed25519 signature of its digest by that key, checked first. Exit 0 "
                    "when they match, 1 otherwise.",
        epilog="examples:\n  memorywire verify export.jsonl\n"
               "  memorywire verify export.jsonl --public-key service.pub.pem")
    verify.add_argument("file", metavar="FILE", help="a file, or - for standard input")
    verify.add_argument("--public-key", metavar="PEMFILE",
                        help="the PEM Ed25519 public key whose signature the integrity block must carry "
                             "(needs the cryptography package: the signing extra)")

    testee = sub.add_parser(
        "testee", formatter_class=formatter,
        help="run the reference codec as a conformance testee on stdin and stdout",
        description="Serve the testee protocol of the memorywire conformance suite on "
                    "standard input and output, with this package as the codec under test.",
        epilog="example:\n  memorywire-conformance codec --testee \"memorywire testee\"")

    adapt = sub.add_parser(
        "adapt", formatter_class=formatter, epilog=ADAPT_EPILOG,
        help="convert a framework's export to memorywire records, and back",
        description="Convert a JSON file of a framework's items (a list, in one of the forms of "
                    "memorywire.adapters) to a stream of memorywire records, or a stream of "
                    "records back to the items of a form.")
    adapt.add_argument("file", nargs="?", metavar="FILE", help="a file, or - for standard input")
    adapt.add_argument("--from", "-f", dest="source", metavar="FORM|ENC",
                       help="the form of the items read (langchain.messages_to_dict); with "
                            "--to-form, the encoding of the records read (default: detected)")
    adapt.add_argument("--to", choices=("jsonl", "msgpack", "protobuf"), default="jsonl", metavar="ENC",
                       help="the encoding of the records written: jsonl, msgpack or protobuf "
                            "(default: jsonl)")
    adapt.add_argument("--to-form", metavar="FORM",
                       help="read records and write the items of this form as a JSON list")
    adapt.add_argument("--scope", action="append", default=[], metavar="KEY=VALUE",
                       help="a scope field for every record (session=s1, user=u7; namespace "
                            "may be given more than once)")
    adapt.add_argument("--output", "-o", default="-", metavar="OUT",
                       help="the output file, or - for standard output (the default)")
    adapt.add_argument("--list", action="store_true", help="list the forms and exit")
    adapt.add_argument("--loss-report", metavar="FILE",
                       help="with --to-form, write the loss report to FILE (JSON): record by record, what "
                            "the form's own fields do not carry and where it is kept, if anywhere")
    adapt.add_argument("--max-document-bytes", type=_bounded("max_document_bytes"), metavar="N",
                       default=Limits().max_document_bytes,
                       help="the greatest size of the input, and of one record, in bytes")
    adapt.set_defaults(type=DEFAULT_TYPE)

    # Listed here for --help; run() hands its arguments to the service.
    sub.add_parser("serve", add_help=False,
                   help="run the reference MemoryService over gRPC on an embedded SQLite store "
                        "(memorywire serve --help)")
    sub.add_parser("mcp", add_help=False,
                   help="serve memory tools to a model over the Model Context Protocol, on a service or "
                        "an embedded store (memorywire mcp --help)")

    for p in (parser, common, validate, conv, inspect, testee, adapt, verify):
        p.out, p.err = out, err
    testee.set_defaults(handler=_testee, parser=testee, type=DEFAULT_TYPE,
                        max_document_bytes=Limits().max_document_bytes)
    validate.set_defaults(handler=_validate, parser=validate)
    conv.set_defaults(handler=_convert, parser=conv)
    inspect.set_defaults(handler=_inspect, parser=inspect)
    verify.set_defaults(handler=_verify, parser=verify)
    adapt.set_defaults(handler=_adapt, parser=adapt)
    return parser


def _testee(args: argparse.Namespace, ctx: _Context) -> int:
    from memorywire.testee import Testee

    return Testee().serve(ctx.stdin, ctx.stdout)


def _bounded(limit: str) -> Callable[[str], int]:
    """The argument type of a limit: an integer within its BOUNDS."""
    low, high = BOUNDS[limit]

    def parse(text: str) -> int:
        number = re.fullmatch(r"\s*[+-]?([0-9]+)\s*", text)
        if number is None:
            raise argparse.ArgumentTypeError(f"not an integer: {text[:40]!r}")
        # A number too long for int() is out of range anyway.
        value = int(text) if len(number[1]) <= 30 else high + 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}: {text[:40]}")
        return value

    return parse


def resolve_type(name: str) -> str | None:
    """The full name of a message type that can be a document, or None."""
    full = name if "." in name else f"{_model.PACKAGE}.{name}"
    return full if full in _model.top_level_types() else None


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """The entry point of the ``memorywire`` command."""
    try:
        status = run(argv)
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        # The reader of the output went away (memorywire inspect ... | head).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 1
    sys.exit(status)


def run(argv: Sequence[str] | None = None, *, stdin: BinaryIO | None = None,
        stdout: BinaryIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command with the arguments and streams given; return its exit status."""
    ctx = _Context(
        stdin=stdin if stdin is not None else sys.stdin.buffer,
        stdout=stdout if stdout is not None else sys.stdout.buffer,
        stderr=stderr if stderr is not None else sys.stderr,
    )
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["serve"]:
        # The service parses its own options (memorywire serve --help).
        try:
            from memorywire.service.server import main as serve_main
        except ImportError as e:
            if not _extras.missing(e, "service"):
                raise
            print(f"memorywire serve: {_extras.install_hint('the service', 'service')} "
                  f"(no module named {e.name!r})", file=ctx.stderr)
            return 2

        return serve_main(arguments[1:])
    if arguments[:1] == ["mcp"]:
        # The MCP server parses its own options (memorywire mcp --help).
        try:
            from memorywire.mcp import main as mcp_main
        except ImportError as e:
            if not _extras.missing(e, "mcp"):
                raise
            print(f"memorywire mcp: {_extras.install_hint('the MCP server', 'mcp')} "
                  f"(no module named {e.name!r})", file=ctx.stderr)
            return 2

        return mcp_main(arguments[1:])
    parser = _parser(ctx.stdout, ctx.stderr)
    try:
        args = parser.parse_args(arguments)
        full = resolve_type(args.type)
        if full is None:
            args.parser.error(f"unknown message type {args.type!r}; give a name such as "
                              "memorywire.v1.PutRequest or PutRequest")
        args.type = full
        ctx.limits = Limits(max_document_bytes=args.max_document_bytes)
        status: int = args.handler(args, ctx)
    except _Exit as e:
        status = e.status
    ctx.stdout.flush()
    ctx.stderr.flush()
    return status


# -- inputs -----------------------------------------------------------------


@dataclass
class _Context:
    stdin: BinaryIO
    stdout: BinaryIO
    stderr: TextIO
    limits: Limits = Limits()


class _Usage(Exception):
    """A usage error found while running: exit status 2."""


class _Input:
    """An input: its first bytes can be looked at before it is read, and the
    bytes read are counted for the progress line."""

    def __init__(self, fp: BinaryIO) -> None:
        self._fp = fp
        self._head = b""
        self.count = 0

    def peek(self, n: int) -> bytes:
        while len(self._head) < n:
            data = self._fp.read(n - len(self._head))
            if not data:
                break
            self._head += data
        return self._head[:n]

    def read(self, size: int = -1, /) -> bytes:
        if self._head:
            if size < 0:
                data, self._head = self._head + self._fp.read(), b""
            else:
                data, self._head = self._head[:size], self._head[size:]
        else:
            data = self._fp.read(size)
        self.count += len(data)
        return data

    def readline(self, size: int = -1, /) -> bytes:
        if self._head:
            nl = self._head.find(b"\n")
            end = len(self._head) if nl < 0 else nl + 1
            if size >= 0:
                end = min(end, size)
            data, self._head = self._head[:end], self._head[end:]
            if not data.endswith(b"\n") and (size < 0 or len(data) < size):
                data += self._fp.readline(size - len(data) if size >= 0 else -1)
        else:
            data = self._fp.readline(size)
        self.count += len(data)
        return data


@dataclass
class _Source:
    name: str
    input: _Input
    encoding: str | None
    stream: bool
    _file: BinaryIO | None = None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def _open(path: str, args: argparse.Namespace, ctx: _Context) -> _Source:
    suffix_encoding, suffix_stream = (None, False)
    if path != "-":
        suffix_encoding, suffix_stream = SUFFIXES.get(os.path.splitext(path)[1].lower(),
                                                      (None, False))
    source: str | None = args.source
    encoding = "json" if source == "jsonl" else source or suffix_encoding
    is_stream = args.stream if args.stream is not None else (source == "jsonl" or suffix_stream)
    if is_stream and encoding == "protojson":
        raise _Usage("ProtoJSON is read one document at a time, not as a stream")
    if path == "-":
        return _Source(STDIN_NAME, _Input(ctx.stdin), encoding, is_stream)
    try:
        fp = open(path, "rb")
    except OSError as e:
        raise _Usage(f"cannot read {path}: {e.strerror or e}") from None
    return _Source(path, _Input(fp), encoding, is_stream, fp)


def _stream_encoding(src: _Source) -> str:
    if src.encoding is not None:
        return src.encoding
    head = src.input.peek(64)
    return detect_encoding(head) if head.strip() else "json"


def _read_document(src: _Source, limits: Limits) -> tuple[bytes, str]:
    """The bytes of a single document, read no further than the size limit."""
    limit = limits.max_document_bytes
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = src.input.read(min(64 * 1024, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise stream.at_position(decode_error(
            "DOCUMENT_TOO_LARGE", "", f"more than {limit} bytes; the limit is {limit}"), 1)
    data = b"".join(chunks)
    return data, src.encoding or detect_encoding(data)


def _documents(src: _Source, encoding: str | None, args: argparse.Namespace, ctx: _Context,
               progress: _Progress | None = None) -> Iterator[stream.Decoded]:
    """Every document of an input, with its position and validation walk, or its error."""
    if src.stream:
        assert encoding is not None
        count = 0
        for item in stream.iter_decoded(src.input, encoding, type=args.type, limits=ctx.limits):
            count += 1
            if progress is not None:
                progress.update(count, src.input.count)
            yield item
        return
    try:
        data, detected = _read_document(src, ctx.limits)
        decoder = module(detected).Decoder(args.type, limits=ctx.limits)
        yield 1, decoder.decode_walk(data)
    except MemorywireError as e:
        yield 1, stream.at_position(e, 1)


# -- reporting -----------------------------------------------------------------


class _Progress:
    """A line on a terminal: documents and bytes read so far, redrawn at most
    every PROGRESS_INTERVAL seconds; nothing when standard error is not a terminal."""

    def __init__(self, err: TextIO) -> None:
        try:
            self.enabled = err.isatty()
        except (AttributeError, ValueError):
            self.enabled = False
        self._err = err
        self._next = time.monotonic() + PROGRESS_INTERVAL
        self._shown = 0

    def update(self, documents: int, size: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + PROGRESS_INTERVAL
        line = f"\r  {documents} documents, {size} bytes"
        self._shown = max(self._shown, len(line))
        self._err.write(line)
        self._err.flush()

    def clear(self) -> None:
        if self._shown:
            self._err.write("\r" + " " * self._shown + "\r")
            self._err.flush()
            self._shown = 0


def _violations(error: MemorywireError) -> list[Violation]:
    return error.violations or [Violation(error.pointer, error.reason, error.message)]


def _code(error: MemorywireError, v: Violation) -> str:
    if v.reason in LIMIT_REASONS:
        return "RESOURCE_EXHAUSTED"
    return "INVALID_ARGUMENT" if error.code == "RESOURCE_EXHAUSTED" else error.code


def _text_lines(name: str, position: int, error: MemorywireError) -> str:
    return "".join(
        f"{name}:{v.line or position}: {v.pointer or '/'}: {v.message} [{v.reason}]\n"
        for v in _violations(error))


def _json_lines(name: str, position: int, error: MemorywireError) -> bytes:
    return b"".join(
        orjson.dumps({"file": name, "line": v.line or position, "pointer": v.pointer,
                      "reason": v.reason, "code": _code(error, v), "message": v.message})
        + b"\n"
        for v in _violations(error))


def _usage(ctx: _Context, message: str) -> int:
    ctx.stderr.write(f"{PROG}: error: {message}\n")
    return 2


# -- validate --------------------------------------------------------------------


def _rejected_lines(path: str, src: _Source, rejected: list[tuple[int, MemorywireError]]) -> bytes:
    """The lines of an error file (``validate --errors``) for the documents
    of one input that were rejected: each with its Error and, for JSON read
    from a file, the document itself (its text when it is not JSON)."""
    texts: dict[int, bytes] = {}
    if path != "-" and src.encoding == "json":
        try:
            with open(path, "rb") as fp:
                data = fp.read()
        except OSError:
            data = b""
        if src.stream:
            wanted = {position for position, _ in rejected}
            texts = {n: line for n, line in enumerate(data.splitlines(), 1) if n in wanted}
        else:
            texts = {1: data}
    out = []
    for position, e in rejected:
        entry: dict[str, Any] = {"file": src.name, "line": position, "error": e.to_error_document()}
        text = texts.get(position)
        if text is not None:
            try:
                entry["document"] = orjson.loads(text)
            except orjson.JSONDecodeError:
                entry["text"] = text.decode("utf-8", "replace")
        out.append(orjson.dumps(entry) + b"\n")
    return b"".join(out)


def _validate(args: argparse.Namespace, ctx: _Context) -> int:
    status = 0
    errors_out = None
    if args.errors is not None:
        try:
            errors_out = open(args.errors, "wb")  # noqa: SIM115 (closed below)
        except OSError as e:
            return _usage(ctx, f"cannot write {args.errors}: {e.strerror or e}")
    try:
        return _validate_files(args, ctx, errors_out, status)
    finally:
        if errors_out is not None:
            errors_out.close()


def _validate_files(args: argparse.Namespace, ctx: _Context, errors_out: BinaryIO | None,
                    status: int) -> int:
    for path in args.files:
        try:
            src = _open(path, args, ctx)
        except _Usage as e:
            _usage(ctx, str(e))
            status = 2
            continue
        progress = _Progress(ctx.stderr) if src.stream else None
        rejected: list[tuple[int, MemorywireError]] = []
        try:
            encoding = _stream_encoding(src) if src.stream else None
            for position, item in _documents(src, encoding, args, ctx, progress):
                if not isinstance(item, MemorywireError):
                    continue
                rejected.append((position, item))
                if status == 0:
                    status = 1
                if progress is not None:
                    progress.clear()
                if args.output == "json":
                    ctx.stdout.write(_json_lines(src.name, position, item))
                else:
                    ctx.stdout.write(_text_lines(src.name, position, item).encode("utf-8"))
        except BrokenPipeError:
            raise
        except OSError as e:
            _usage(ctx, f"cannot read {path}: {e.strerror or e}")
            status = 2
        finally:
            if progress is not None:
                progress.clear()
            src.close()
        if errors_out is not None and rejected:
            errors_out.write(_rejected_lines(path, src, rejected))
    return status


# -- convert ---------------------------------------------------------------------


class _Output:
    """Where convert writes: a temporary file, moved into place (or copied to
    standard output) only when the whole input has been converted. A failure
    to write is a _Usage error that names the output."""

    def __init__(self, path: str, ctx: _Context) -> None:
        self._path = path
        self._ctx = ctx
        self._tmp: str | None = None
        self._target = path
        self._fp: BinaryIO
        if path != "-":
            try:
                mode = os.stat(path).st_mode
            except FileNotFoundError:
                mode = stat.S_IFREG
            except OSError as e:
                raise self._error(e) from None
            if stat.S_ISDIR(mode):
                raise self._error(IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)))
            if stat.S_ISREG(mode):
                # A symbolic link stays one: the file it names is replaced.
                self._target = os.path.realpath(path)
                fd, self._tmp = self._guarded(
                    tempfile.mkstemp, prefix=f".{os.path.basename(self._target)}.", suffix=".tmp",
                    dir=os.path.dirname(self._target))
                self._fp = os.fdopen(fd, "wb")
                return
        # Standard output, or a file that is not a regular one (a FIFO, a
        # device): written at the end, in place.
        self._fp = self._guarded(self._temporary)

    @staticmethod
    def _temporary() -> BinaryIO:
        return tempfile.TemporaryFile()

    def _error(self, e: OSError) -> _Usage:
        name = "standard output" if self._path == "-" else self._path
        return _Usage(f"cannot write {name}: {e.strerror or e}")

    def _guarded(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self._error(e) from None

    def _open_in_place(self) -> BinaryIO:
        return open(self._path, "wb")

    def write(self, data: bytes, /) -> int:
        return self._guarded(self._fp.write, data)

    def commit(self) -> None:
        if self._tmp is None:
            sink = self._ctx.stdout if self._path == "-" else self._guarded(self._open_in_place)
            try:
                self._fp.seek(0)
                while True:
                    chunk = self._fp.read(64 * 1024)
                    if not chunk:
                        break
                    self._guarded(sink.write, chunk)
            finally:
                if sink is not self._ctx.stdout:
                    self._guarded(sink.close)
            self._fp.close()
            return
        self._guarded(self._fp.close)
        umask = os.umask(0)
        os.umask(umask)
        self._guarded(os.chmod, self._tmp, 0o666 & ~umask)
        self._guarded(os.replace, self._tmp, self._target)
        self._tmp = None

    def discard(self) -> None:
        self._fp.close()
        if self._tmp is not None:
            try:
                os.unlink(self._tmp)
            except OSError:
                pass
            self._tmp = None


def _convert(args: argparse.Namespace, ctx: _Context) -> int:
    try:
        src = _open(args.file, args, ctx)
    except _Usage as e:
        return _usage(ctx, str(e))
    target = "json" if args.to == "jsonl" else args.to
    if src.stream and target == "protojson":
        src.close()
        return _usage(ctx, "ProtoJSON is written one document at a time, not as a stream")
    try:
        out = _Output(args.output, ctx)
    except _Usage as e:
        src.close()
        return _usage(ctx, str(e))
    progress = _Progress(ctx.stderr) if src.stream else None
    done = False
    try:
        if src.stream:
            done = _convert_stream(src, target, out, args, ctx, progress)
        else:
            done = _convert_document(src, target, out, args, ctx)
        if done:
            out.commit()
    except BrokenPipeError:
        raise
    except _Usage as e:  # the output cannot be written
        done = False
        return _usage(ctx, str(e))
    except OSError as e:
        return _usage(ctx, f"cannot read {args.file}: {e.strerror or e}")
    finally:
        if progress is not None:
            progress.clear()
        if not done:
            out.discard()
        src.close()
    return 0 if done else 1


def _convert_document(src: _Source, target: str, out: _Output, args: argparse.Namespace,
                      ctx: _Context) -> bool:
    try:
        data, encoding = _read_document(src, ctx.limits)
        result = convert(data, source=encoding, target=target, type=args.type, limits=ctx.limits)
    except MemorywireError as e:
        ctx.stderr.write(_text_lines(src.name, 1, e))
        return False
    if args.to == "jsonl":
        result += b"\n"
    out.write(result)
    return True


def _convert_stream(src: _Source, target: str, out: _Output, args: argparse.Namespace,
                    ctx: _Context, progress: _Progress | None) -> bool:
    encoding = _stream_encoding(src)
    writer = stream.Writer(out, target, type=args.type, limits=ctx.limits)
    for position, item in _documents(src, encoding, args, ctx, progress):
        error: MemorywireError | None = None
        if isinstance(item, MemorywireError):
            error = item
        else:
            try:
                writer.write_valid(*item, source=encoding)
            except MemorywireError as e:
                error = stream.at_position(e, position)
        if error is not None:
            if progress is not None:
                progress.clear()
            ctx.stderr.write(_text_lines(src.name, position, error))
            return False
    return True


# -- adapt -----------------------------------------------------------------------


def _adapt(args: argparse.Namespace, ctx: _Context) -> int:
    from memorywire.adapters import FORMS

    if args.list:
        width = max((len(name) for name in FORMS), default=0)
        for name, each in FORMS.items():
            ctx.stdout.write(f"{name:<{width}}  {each.description}\n".encode())
        return 0
    if args.file is None:
        return _usage(ctx, "give a FILE, or - for standard input")
    name = args.to_form if args.to_form is not None else args.source
    if name is None:
        return _usage(ctx, "give the form of the items with --from FORM, or --to-form FORM")
    form = FORMS.get(name)
    if form is None:
        return _usage(ctx, f"unknown form {name!r}; memorywire adapt --list names them")
    if form.extra is not None:
        return _usage(ctx, f"{name} holds Python objects, not JSON; use another form of "
                           f"{form.framework} on the command line")
    if args.loss_report is not None and args.to_form is None:
        return _usage(ctx, "--loss-report goes with --to-form")
    src: _Source | None = None
    try:
        scope = _scope_options(args.scope)
        if args.to_form is not None:
            if args.source is not None and args.source not in ("json", "jsonl", "msgpack", "protobuf"):
                raise _Usage(f"--from names the encoding of the records with --to-form: {args.source!r}")
            args.source, args.stream = ("jsonl" if args.source == "json" else args.source), True
            src = _open(args.file, args, ctx)
            return _adapt_back(src, form, args, ctx)
        if isinstance(form.file, str) or args.file == "-":
            args.source, args.stream = "json", False
            src = _open(args.file, args, ctx)
        return _adapt_forth(src, form, scope, args, ctx)
    except _Usage as e:
        return _usage(ctx, str(e))
    except OSError as e:
        return _usage(ctx, f"cannot read {args.file}: {e.strerror or e}")
    finally:
        if src is not None:
            src.close()


def _adapt_items(src: _Source | None, form: Any, args: argparse.Namespace, ctx: _Context) -> list[Any]:
    """The items given to --from FORM, as ``form.file`` holds them: a JSON
    array, one document, JSON Lines, or (``src`` None) the form's own files
    at the path."""
    import json

    if src is None:  # the form reads its own files (a PAM bundle directory, an Agent File)
        path = args.file
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs) \
            if os.path.isdir(path) else os.path.getsize(path)
        if size > ctx.limits.max_document_bytes:
            raise _Usage(f"{path} has {size} bytes; the limit is {ctx.limits.max_document_bytes}")
        found: list[Any] = form.file.read(path)
        return found
    data, _ = _read_document(src, ctx.limits)

    def parse(text: bytes, where: str) -> Any:
        try:
            return json.loads(text, object_pairs_hook=_duplicate_free, parse_float=_finite,
                              parse_constant=_no_constant)
        except (ValueError, RecursionError) as e:
            raise decode_error("INVALID_JSON", "", f"{where} not JSON: {e}") from None

    shape = form.file if isinstance(form.file, str) else "list"
    if shape == "lines":  # one item per line; blank lines are skipped
        items = [parse(line, f"line {n} is") for n, line in enumerate(data.splitlines(), 1) if line.strip()]
    else:
        items = parse(data, "the items are")
        if shape == "document" and isinstance(items, dict):
            items = [items]
    if not isinstance(items, list):
        raise decode_error("TYPE_MISMATCH", "", "the items are a JSON list (an array)")
    return items


def _adapt_forth(src: _Source | None, form: Any, scope: dict[str, Any], args: argparse.Namespace,
                 ctx: _Context) -> int:
    """--from FORM: the items to records, written as a stream."""
    from memorywire.adapters import AdapterError

    where = args.file if src is None else src.name
    out: _Output | None = None
    try:
        records = form.to_records(_adapt_items(src, form, args, ctx), **scope)
        out = _Output(args.output, ctx)
        writer = stream.Writer(out, args.to, type=DEFAULT_TYPE, limits=ctx.limits)
        for record in records:
            writer.write(record)
        out.commit()
        out = None
    except OSError as e:
        return _usage(ctx, f"cannot read {args.file}: {e.strerror or e}")
    except (AdapterError, MemorywireError) as e:
        ctx.stderr.write(_text_lines(where, 1, e))
        return 1
    finally:
        if out is not None:
            out.discard()
    return 0


def _adapt_back(src: _Source, form: Any, args: argparse.Namespace, ctx: _Context) -> int:
    """--to-form FORM: records to the items, written as ``form.file`` holds
    them (a form's own files where the output path is of their kind), and
    the loss report."""
    import json

    from memorywire.adapters import AdapterError, to_value

    records: list[dict[str, Any]] = []
    for position, item in _documents(src, _stream_encoding(src), args, ctx):
        if isinstance(item, MemorywireError):
            ctx.stderr.write(_text_lines(src.name, position, item))
            return 1
        records.append(item[0])
    out: _Output | None = None
    try:
        report = None
        if args.loss_report is not None:
            items, report = form.from_records_reporting(records)
        else:
            items = form.from_records(records)
        if isinstance(form.file, str) or args.output == "-" or not form.file.write(items, args.output):
            shape = form.file if isinstance(form.file, str) else "list"

            def dump(x: Any) -> str:
                # What JSON cannot hold (bytes, big integers stay) is written with the value tags.
                return json.dumps(x, ensure_ascii=False, allow_nan=False, default=lambda v: to_value(v))

            if shape == "lines":
                text = "\n".join(dump(x) for x in items)
            else:
                text = dump(items[0] if shape == "document" and len(items) == 1 else items)
            out = _Output(args.output, ctx)
            out.write(text.encode("utf-8") + b"\n")
            out.commit()
            out = None
        if report is not None:
            _write_loss_report(report, args, ctx)
    except AdapterError as e:
        ctx.stderr.write(_text_lines(src.name, 1, e))
        return 1
    except ValueError as e:
        ctx.stderr.write(f"{src.name}:1: /: the items have no JSON form: {e} [NOT_REPRESENTABLE]\n")
        return 1
    except OSError as e:
        return _usage(ctx, f"cannot write {args.output}: {e.strerror or e}")
    finally:
        if out is not None:
            out.discard()
    return 0


def _write_loss_report(report: Any, args: argparse.Namespace, ctx: _Context) -> None:
    import json

    if args.loss_report is None:
        return
    out = _Output(args.loss_report, ctx)
    out.write(json.dumps(report.to_json(), ensure_ascii=False, indent=2).encode("utf-8") + b"\n")
    out.commit()


def _scope_options(options: list[str]) -> dict[str, Any]:
    scope: dict[str, Any] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep:
            raise _Usage(f"--scope takes KEY=VALUE, not {option!r}")
        if key == "namespace":
            scope.setdefault("namespace", []).append(value)
        elif key in scope:
            raise _Usage(f"--scope gives {key} twice")
        else:
            scope[key] = value
    return scope


def _duplicate_free(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the member {key!r} occurs twice in one object")
        found[key] = value
    return found


def _finite(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(f"the number {token[:40]} overflows a float")
    return value


def _no_constant(token: str) -> float:
    raise ValueError(f"{token} is not JSON")



# -- inspect ---------------------------------------------------------------------


def _inspect(args: argparse.Namespace, ctx: _Context) -> int:
    try:
        src = _open(args.file, args, ctx)
    except _Usage as e:
        return _usage(ctx, str(e))
    status = 0
    encoder = _json.Encoder(args.type, limits=ctx.limits)
    try:
        encoding = _stream_encoding(src) if src.stream else None
        for position, item in _documents(src, encoding, args, ctx):
            if isinstance(item, MemorywireError):
                ctx.stderr.write(_text_lines(src.name, position, item))
                status = 1
                continue
            try:
                text = encoder.encode_valid(*item)
            except MemorywireError as e:  # content of a newer minor version without a JSON form
                ctx.stderr.write(_text_lines(src.name, position, stream.at_position(e, position)))
                status = 1
                continue
            # The canonical JSON form, indented.
            ctx.stdout.write(orjson.dumps(orjson.loads(text), option=orjson.OPT_INDENT_2) + b"\n")
            if item[1].parsed is not None:
                # Fields of a newer minor version read from Protobuf have no names to show.
                ctx.stderr.write(f"{src.name}:{position}: note: {', '.join(item[1].unknown)}: "
                                 "fields of a newer minor version, not shown\n")
    except BrokenPipeError:
        raise
    except OSError as e:
        return _usage(ctx, f"cannot read {args.file}: {e.strerror or e}")
    finally:
        src.close()
    return status


# -- verify ------------------------------------------------------------------------


def _verify(args: argparse.Namespace, ctx: _Context) -> int:
    """Recompute the integrity block of an export and compare."""
    from memorywire import integrity

    # The input is a stream of ExportResponse messages, whatever its suffix
    # (the arguments the parsers share keep their defaults for the others).
    args.type = "memorywire.v1.ExportResponse"
    if args.stream is None:
        args.stream = True
    public = None
    if args.public_key is not None:
        from memorywire import signing

        try:
            public = signing.load_public_key(args.public_key)
        except OSError as e:
            return _usage(ctx, f"cannot read {args.public_key}: {e.strerror or e}")
        except ValueError as e:
            return _usage(ctx, str(e))
    try:
        src = _open(args.file, args, ctx)
    except _Usage as e:
        return _usage(ctx, str(e))
    digest = integrity.ExportDigest()
    block_at = 0
    block: dict[str, Any] | None = None
    try:
        encoding = _stream_encoding(src) if src.stream else None
        for position, item in _documents(src, encoding, args, ctx):
            if isinstance(item, MemorywireError):
                ctx.stdout.write(_text_lines(src.name, position, item).encode("utf-8"))
                return 1
            doc = item[0]
            if block is None:
                block_at = position  # the block, or else the last message, is where a fault is named
            else:
                ctx.stdout.write(f"{src.name}:{position}: a message follows the integrity block\n".encode())
                return 1
            for record in doc.get("records", ()):
                digest.add(record)
            if "integrity" in doc:
                block = doc["integrity"]
    except BrokenPipeError:
        raise
    except OSError as e:
        return _usage(ctx, f"cannot read {args.file}: {e.strerror or e}")
    finally:
        src.close()
    fault = integrity.check(block, digest, public)
    if fault is not None:
        ctx.stdout.write(_text_lines(src.name, block_at, fault).encode("utf-8"))
        return 1
    signed = f", signed by {block['signature']['key_id']}" if public is not None and block else ""
    ctx.stdout.write(f"{src.name}: {digest.records} records, {digest.digest}{signed}: verified\n".encode())
    return 0
