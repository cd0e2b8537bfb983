"""Frames, the protocol schema, and the testee process."""

from __future__ import annotations

import io
import json
import struct

import pytest
from runner_support import REPO, fake_command

from memorywire_conformance.protocol import (
    MAX_FRAME_BYTES,
    FrameError,
    ProtocolSchema,
    Testee,
    TesteeFailure,
    TesteeStartError,
    decode_frame,
    encode_frame,
    load_protocol_schema,
    read_frame,
)


def frame_bytes(body: bytes) -> bytes:
    return struct.pack("<I", len(body)) + body


def test_encode_frame_is_length_prefixed_compact_utf8_json():
    data = encode_frame({"type": "codec", "id": "Required.A.B", "text": "é"})
    body = '{"type":"codec","id":"Required.A.B","text":"é"}'.encode()
    assert data == struct.pack("<I", len(body)) + body
    assert data[:4] == len(body).to_bytes(4, "little")


def test_frames_round_trip_in_a_stream():
    frames = [{"type": "handshake", "protocol": 1, "suite": "x"}, {"type": "valid"},
              {"type": "payload", "data": "AAEC"}]
    stream = io.BytesIO(b"".join(encode_frame(f) for f in frames))
    assert [read_frame(stream) for _ in frames] == frames
    assert read_frame(stream) is None


def test_decode_frame_returns_the_rest():
    data = encode_frame({"type": "valid"}) + b"\x01\x02"
    frame, rest = decode_frame(data)
    assert frame == {"type": "valid"}
    assert rest == b"\x01\x02"


def test_encode_frame_refuses_nan():
    with pytest.raises(ValueError):
        encode_frame({"x": float("nan")})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x05\x00", "inside a frame length"),
        (struct.pack("<I", 10) + b"{}", "ends after 2 of the 10 bytes"),
        (frame_bytes(b"not json"), "not JSON"),
        (frame_bytes(b"[1, 2]"), "not an object"),
        (frame_bytes(b'{"a": NaN}'), "not JSON"),
        (frame_bytes(b'{"a": "\xff"}'), "not UTF-8"),
        (struct.pack("<I", MAX_FRAME_BYTES + 1), "exceeds the limit"),
    ],
)
def test_malformed_frames(data, message):
    with pytest.raises(FrameError, match=message):
        read_frame(io.BytesIO(data))


def test_decode_frame_needs_the_whole_frame():
    with pytest.raises(FrameError):
        decode_frame(encode_frame({"type": "valid"})[:-1])
    with pytest.raises(FrameError):
        decode_frame(b"\x00")


def test_the_shipped_schema_is_the_published_one():
    published = REPO / "conformance" / "protocol" / "v1" / "testee-protocol.schema.json"
    assert load_protocol_schema() == json.loads(published.read_text("utf-8"))
    assert load_protocol_schema()["$id"].startswith("https://memorywire.dev/conformance/v1/")


GOOD_RESPONSES = [
    {"type": "handshake", "name": "x", "version": "1", "language": "go", "protocol": 1,
     "specversions": ["1.0"], "encodings": ["json"]},
    {"type": "handshake", "name": "x", "version": "1", "language": "go", "protocol": 1,
     "specversions": ["1.0", "1.1"], "encodings": ["json", "protobuf"],
     "capabilities": ["limits.custom"]},
    {"type": "payload", "data": ""},
    {"type": "payload", "data": "AAECAw=="},
    {"type": "valid"},
    {"type": "invalid", "stage": "parse", "reason": "TRUNCATED", "pointer": "", "message": ""},
    {"type": "invalid", "stage": "validation", "reason": "UNKNOWN_FIELD",
     "pointer": "/scope/a~1b", "message": "no such field"},
    {"type": "unsupported", "message": "no msgpack"},
    {"type": "runtime_error", "message": "boom"},
]

BAD_RESPONSES = [
    ({"type": "nope"}, "type 'nope'"),
    ({"data": "AA=="}, "type None"),
    ({"type": "payload", "data": "AA="}, "does not match"),
    ({"type": "payload", "data": "AA==", "extra": 1}, "Additional properties"),
    ({"type": "invalid", "stage": "parse", "reason": "truncated", "pointer": "",
      "message": ""}, "does not match"),
    ({"type": "invalid", "stage": "lexing", "reason": "TRUNCATED", "pointer": "",
      "message": ""}, "is not one of"),
    ({"type": "invalid", "stage": "parse", "reason": "TRUNCATED", "pointer": "a/b",
      "message": ""}, "does not match"),
    ({"type": "invalid", "stage": "parse", "reason": "TRUNCATED", "pointer": "/a~2",
      "message": ""}, "does not match"),
    ({"type": "invalid", "stage": "parse", "reason": "TRUNCATED", "pointer": ""},
     "'message' is a required property"),
    ({"type": "handshake", "name": "x", "version": "1", "language": "go", "protocol": 2,
      "specversions": ["1.0"], "encodings": ["json"]}, "1 was expected"),
    ({"type": "handshake", "name": "x", "version": "1", "language": "go", "protocol": 1,
      "specversions": ["1.0"], "encodings": ["yaml"]}, "is not one of"),
    ({"type": "handshake", "name": "x", "version": "1", "language": "go", "protocol": 1,
      "specversions": ["1.0"], "encodings": []}, "should be non-empty"),
]


@pytest.fixture(scope="module")
def schema():
    return ProtocolSchema()


@pytest.mark.parametrize("frame", GOOD_RESPONSES)
def test_good_responses(schema, frame):
    assert schema.response_error(frame) is None
    assert schema.is_valid(frame)


@pytest.mark.parametrize(("frame", "message"), BAD_RESPONSES)
def test_bad_responses(schema, frame, message):
    error = schema.response_error(frame)
    assert error is not None and message in error


def test_requests(schema):
    good = [
        {"type": "handshake", "protocol": 1, "suite": "memorywire-conformance 1.0.0"},
        {"type": "codec", "id": "Required.A.B.JsonInput.Accepted",
         "message_type": "memorywire.v1.MemoryRecord",
         "input": {"encoding": "json", "data": "e30="}, "output": None, "canonical": True},
        {"type": "codec", "id": "Required.A.B.JsonInput.MsgpackOutput",
         "message_type": "memorywire.v1.PutRequest",
         "input": {"encoding": "json", "data": "e30="}, "output": "msgpack", "canonical": True},
        {"type": "shutdown"},
    ]
    for frame in good:
        assert schema.request_error(frame) is None, frame
        assert schema.is_valid(frame)
    assert schema.request_error({"type": "codec", "id": "x"}) is not None
    assert not schema.is_valid({"type": "shutdown", "now": True})


def test_a_request_is_not_a_response(schema):
    assert schema.response_error({"type": "shutdown"}) is not None
    assert schema.request_error({"type": "valid"}) is not None


# The testee process.


def codec_request(case_id: str, output: str | None = None) -> dict:
    return {"type": "codec", "id": case_id, "message_type": "memorywire.v1.MemoryRecord",
            "input": {"encoding": "json", "data": "e30="}, "output": output, "canonical": True}


ACCEPTED = "Required.Timestamps.NanosecondPrecision.JsonInput.Accepted"


def test_testee_handshake_and_requests():
    with Testee(fake_command(), timeout=5, suite="test") as testee:
        handshake = testee.start()
        assert handshake.name == "fake"
        assert handshake.encodings == ("json", "msgpack", "protobuf")
        assert testee.request(codec_request(ACCEPTED)) == {"type": "valid"}
        assert testee.request(codec_request(ACCEPTED)) == {"type": "valid"}
        assert testee.restarts == 0


@pytest.mark.parametrize(
    ("option", "kind"),
    [("--crash", "crash"), ("--hang", "timeout"), ("--malformed", "malformed-frame"),
     ("--bad-response", "invalid-response")],
)
def test_testee_failures_and_restart(option, kind):
    with Testee(fake_command(option, "*.Bad.*"), timeout=1, suite="test") as testee:
        testee.start()
        with pytest.raises(TesteeFailure) as failure:
            testee.request(codec_request("Required.Timestamps.Bad.JsonInput.Accepted"))
        assert failure.value.kind == kind
        # The next request restarts the testee where needed.
        assert testee.request(codec_request(ACCEPTED)) == {"type": "valid"}
        assert testee.restarts == (0 if kind == "invalid-response" else 1)


def test_crash_keeps_the_end_of_stderr():
    with Testee(fake_command("--crash", "*"), timeout=5) as testee:
        testee.start()
        with pytest.raises(TesteeFailure) as failure:
            testee.request(codec_request(ACCEPTED))
        assert "exited with status 3" in failure.value.message
        assert "crashing on " + ACCEPTED in failure.value.stderr


@pytest.mark.parametrize("options", [("--crash-at-start",), ("--no-handshake",)])
def test_start_failures(options):
    testee = Testee(fake_command(*options), timeout=5)
    with pytest.raises(TesteeStartError):
        testee.start()
    testee.close()


def test_missing_command():
    with pytest.raises(TesteeStartError, match="cannot start"):
        Testee("/nonexistent/testee --flag").start()
    with pytest.raises(TesteeStartError, match="empty"):
        Testee("   ")


# The handshake is checked against the protocol schema.

HANDSHAKE = {"type": "handshake", "name": "fake", "version": "0", "language": "python",
             "protocol": 1, "specversions": ["1.0"], "encodings": ["json"]}


def handshake_testee(frame: dict) -> Testee:
    return Testee(fake_command("--handshake-json", json.dumps(frame)), timeout=5)


def without(name: str) -> dict:
    return {k: v for k, v in HANDSHAKE.items() if k != name}


@pytest.mark.parametrize(
    ("frame", "pointer", "message"),
    [
        (without("name"), "/name", "'name' is a required property"),
        (without("specversions"), "/specversions", "required"),
        (without("encodings"), "/encodings", "required"),
        ({**HANDSHAKE, "encodings": "json"}, "/encodings", "is not of type 'array'"),
        ({**HANDSHAKE, "encodings": ["json", "yaml"]}, "/encodings/1", "is not one of"),
        ({**HANDSHAKE, "encodings": []}, "/encodings", "non-empty"),
        ({**HANDSHAKE, "colour": "blue"}, "/colour", "'colour' was unexpected"),
        ({**HANDSHAKE, "a/b~c": 1}, "/a~1b~0c", "unexpected"),
        ({**HANDSHAKE, "specversions": ["1"]}, "/specversions/0", "does not match"),
        ({**HANDSHAKE, "name": 7}, "/name", "is not of type 'string'"),
    ],
)
def test_a_handshake_that_breaks_the_schema_cannot_start(frame, pointer, message):
    testee = handshake_testee(frame)
    with pytest.raises(TesteeStartError) as error:
        testee.start()
    testee.close()
    text = str(error.value)
    assert f"the handshake breaks the protocol: {pointer}: " in text
    assert message in text
    assert testee.handshake is None


def test_a_handshake_of_another_protocol_names_it():
    testee = handshake_testee({**HANDSHAKE, "protocol": 2, "future": True})
    with pytest.raises(TesteeStartError, match="speaks protocol 2, the runner 1"):
        testee.start()
    testee.close()


@pytest.mark.parametrize(
    ("frame", "words"),
    [({"type": "unsupported", "message": "no"}, "with an unsupported frame: no"),
     ({"type": "invalid", "stage": "parse", "reason": "X", "pointer": "", "message": "m"},
      "with an invalid frame: m"),
     ({"type": "runtime_error", "message": "boom"}, "with a runtime_error frame: boom"),
     ({"name": "x"}, "with a frame without a type")],
)
def test_a_handshake_answered_with_another_frame(frame, words):
    testee = handshake_testee(frame)
    with pytest.raises(TesteeStartError) as error:
        testee.start()
    testee.close()
    assert str(error.value) == f"the testee answered the handshake {words}"


def test_schema_errors_point_at_the_member(schema):
    assert schema.response_error({"type": "payload"}) == "/data: 'data' is a required property"
    assert schema.response_error({"type": "payload", "data": "", "x": 1}).startswith("/x: ")


# Text on stdout, where only frames belong.


@pytest.mark.parametrize("read", [read_frame, decode_frame])
def test_text_on_stdout_is_named_as_such(read):
    data = b"hello world\n"
    with pytest.raises(FrameError) as error:
        read(io.BytesIO(data) if read is read_frame else data)
    text = str(error.value)
    assert "'hell'" in text and "1819043176" not in text
    assert "printed to standard output, which carries only frames" in text


def test_a_binary_oversized_length_is_shown_in_hex():
    with pytest.raises(FrameError) as error:
        read_frame(io.BytesIO(struct.pack("<I", MAX_FRAME_BYTES + 1)))
    text = str(error.value)
    assert "exceeds the limit" in text and "standard output" not in text


def test_a_testee_that_prints_fails_the_case_with_a_hint():
    with Testee(fake_command("--print", "*"), timeout=5) as testee:
        testee.start()
        with pytest.raises(TesteeFailure) as failure:
            testee.request(codec_request(ACCEPTED))
        assert failure.value.kind == "malformed-frame"
        assert "'hell'" in failure.value.message
        assert "standard output" in failure.value.message
