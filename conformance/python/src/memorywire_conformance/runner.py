"""Running cases against a testee and judging what it answers.

The codec suite sends one request per (vector, input encoding, output
encoding); the ``Rejected`` and ``ErrorReason`` cases of an invalid vector
share their validate-only request. Outputs are compared byte for byte with the
canonical bytes of the vector. A case whose input or output encoding the
testee did not announce, or that it answers ``unsupported``, is skipped. A
crash, a hang, a malformed frame, a response that breaks the protocol schema
and a ``runtime_error`` fail the case at hand; the run goes on with a
restarted testee.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from memorywire_conformance.cases import FAILED, PASSED, SKIPPED, Case, Result, Shown
from memorywire_conformance.protocol import Testee, TesteeFailure, TesteeStartError
from memorywire_conformance.vectors import ACCEPT, CONVERT, ERROR_REASON, REJECT, CodecCase

__all__ = ["CodecSuite", "select_cases"]

#: After this many failed restarts in a row, the cases left are failed without a request.
MAX_FAILED_RESTARTS = 3


C = TypeVar("C", bound=Case)


def select_cases(cases: Iterable[C], globs: Sequence[str] | None) -> list[C]:
    """The cases whose id matches one of the globs (all of them without globs)."""
    if not globs:
        return list(cases)
    return [c for c in cases if any(fnmatch.fnmatchcase(c.id, g) for g in globs)]


def describe(response: Mapping[str, Any]) -> str:
    """A response in one line, as a report shows it."""
    kind = response.get("type")
    if kind == "invalid":
        pointer = response.get("pointer")
        return (f"invalid {response.get('reason')} at {pointer!r} "
                f"({response.get('stage')}): {response.get('message', '')}")
    if kind in ("unsupported", "runtime_error"):
        return f"{kind}: {response.get('message', '')}"
    if kind == "payload":
        return "payload"
    return str(kind)


class CodecSuite:
    """The codec suite: decoding, validation and canonical encoding."""

    name = "codec"

    def __init__(self, cases: Sequence[CodecCase]) -> None:
        self.cases = list(cases)

    def requests(self) -> list[list[CodecCase]]:
        """The cases grouped by the request they share, in case order."""
        groups: dict[tuple[str, str, str | None], list[CodecCase]] = {}
        for case in self.cases:
            key = (case.vector.source, case.input, case.output)
            groups.setdefault(key, []).append(case)
        return list(groups.values())

    def run(self, testee: Testee, on_result: Callable[[Result], None] | None = None,
            ) -> list[Result]:
        """Run every case against a started testee; one result per case, in order."""
        results: list[Result] = []
        failed_restarts = 0

        def emit(result: Result) -> None:
            results.append(result)
            if on_result is not None:
                on_result(result)

        handshake = testee.handshake
        announced = set(handshake.encodings) if handshake else set()
        for group in self.requests():
            first = group[0]
            missing = [e for e in (first.input, first.output) if e and e not in announced]
            if missing:
                for case in group:
                    emit(Result(case, SKIPPED,
                                f"the testee does not announce the {missing[0]} encoding"))
                continue
            if failed_restarts >= MAX_FAILED_RESTARTS:
                for case in group:
                    emit(Result(case, FAILED, "not run: the testee could not be started "
                                f"again after {MAX_FAILED_RESTARTS} attempts"))
                continue
            request = {
                "type": "codec",
                "id": first.id,
                "message_type": first.vector.type,
                "input": {"encoding": first.input,
                          "data": base64.b64encode(first.vector.inputs[first.input])
                          .decode("ascii")},
                "output": first.output,
                "canonical": True,
            }
            started = time.perf_counter()
            try:
                response = testee.request(request)
            except TesteeFailure as e:
                duration = time.perf_counter() - started
                for case in group:
                    emit(Result(case, FAILED, f"testee failure ({e.kind}): {e.message}",
                                expected=expected_of(case), duration=duration,
                                stderr=e.stderr))
                continue
            except TesteeStartError as e:
                failed_restarts += 1
                for case in group:
                    emit(Result(case, FAILED, f"the testee could not be started again: {e}",
                                expected=expected_of(case)))
                continue
            failed_restarts = 0
            duration = time.perf_counter() - started
            misfit = _misfit(request, response)
            if misfit:
                # Responses carry no id: one that does not fit its request
                # means the testee may be out of step. Start it afresh.
                testee.discard()
            for case in group:
                result = judge(case, response)
                if misfit:
                    result = Result(case, FAILED, f"{misfit}; the testee was restarted",
                                    expected_of(case), Shown(describe(response)))
                result.duration = duration
                emit(result)
        return results


def _misfit(request: Mapping[str, Any], response: Mapping[str, Any]) -> str:
    """Why a response cannot answer a request, or ""."""
    kind = response.get("type")
    if kind == "handshake":
        return "a codec request was answered with a handshake"
    if kind == "payload" and request["output"] is None:
        return "a validate-only request was answered with a payload"
    if kind == "valid" and request["output"] is not None:
        return "a conversion was answered valid instead of with a payload or invalid"
    return ""


def expected_of(case: CodecCase) -> Shown:
    """What a case expects, as a report shows it."""
    if case.check == CONVERT:
        assert case.output is not None
        return Shown(data=case.vector.canonical[case.output], encoding=case.output)
    if case.check == ACCEPT:
        return Shown("valid")
    if case.check == REJECT:
        return Shown(f"invalid (any reason; the vector says {case.reason} at {case.pointer!r})")
    return Shown(f"invalid {case.reason} at {case.pointer!r}")


def judge(case: CodecCase, response: Mapping[str, Any]) -> Result:
    """The result of one case given the testee's response to its request."""
    kind = response.get("type")
    expected = expected_of(case)
    got = Shown(describe(response))
    if kind == "unsupported":
        return Result(case, SKIPPED, f"the testee answered unsupported: "
                                     f"{response.get('message', '')}")
    if kind == "runtime_error":
        return Result(case, FAILED, f"runtime error: {response.get('message', '')}",
                      expected, got)
    if kind == "payload" and case.output is None:
        return Result(case, FAILED, "a validate-only request was answered with a payload",
                      expected, got)
    if kind == "valid" and case.output is not None:
        return Result(case, FAILED, "a conversion was answered valid instead of with a payload",
                      expected, got)
    if case.check == CONVERT:
        if kind != "payload":
            return Result(case, FAILED, _unexpected(response, "a payload"), expected, got)
        try:
            data = base64.b64decode(response["data"], validate=True)
        except (binascii.Error, ValueError) as e:
            return Result(case, FAILED, f"the payload is not base64: {e}", expected, got)
        got = Shown(data=data, encoding=case.output)
        assert case.output is not None
        want = case.vector.canonical[case.output]
        if data == want:
            return Result(case, PASSED)
        return Result(case, FAILED, _difference(want, data, case.output), expected, got)
    if case.check == ACCEPT:
        if kind == "valid":
            return Result(case, PASSED)
        return Result(case, FAILED, _unexpected(response, "valid"), expected, got)
    # REJECT and ERROR_REASON: the request must fail.
    if kind != "invalid":
        what = ("the conversion succeeded" if kind == "payload"
                else "an invalid document was accepted")
        written = _payload_bytes(response) if kind == "payload" else None
        if written is not None:
            got = Shown(data=written, encoding=case.output)
        return Result(case, FAILED, f"{what}; it must fail with {case.reason}", expected, got)
    if case.check == REJECT:
        return Result(case, PASSED)
    assert case.check == ERROR_REASON
    reason, pointer = response.get("reason"), response.get("pointer")
    wrong = []
    if case.reason is not None and reason != case.reason:
        wrong.append(f"reason {reason} instead of {case.reason}")
    if case.pointer is not None and pointer != case.pointer:
        wrong.append(f"pointer {pointer!r} instead of {case.pointer!r}")
    if not wrong:
        return Result(case, PASSED)
    return Result(case, FAILED, "; ".join(wrong), expected, got)


def _unexpected(response: Mapping[str, Any], wanted: str) -> str:
    if response.get("type") == "invalid":
        return f"a valid document was rejected: {describe(response)}"
    return f"expected {wanted}, got {describe(response)}"


def _payload_bytes(response: Mapping[str, Any]) -> bytes | None:
    try:
        return base64.b64decode(response.get("data", ""), validate=True)
    except (binascii.Error, ValueError):
        return None


def _difference(want: bytes, got: bytes, encoding: str | None) -> str:
    """Where two outputs first differ, with a little context."""
    offset = next((i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b),
                  min(len(want), len(got)))
    start = max(0, offset - 8)

    def window(data: bytes) -> str:
        part = data[start:offset + 16]
        if encoding == "json":
            text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}"
                           for c in part.decode("utf-8", "backslashreplace"))
        else:
            text = part.hex(" ")
        return ("..." if start else "") + text + ("..." if offset + 16 < len(data) else "")

    return (f"the output differs from the canonical bytes at byte {offset} "
            f"(expected {len(want)} bytes, got {len(got)}): expected {window(want)} "
            f"got {window(got)}")
