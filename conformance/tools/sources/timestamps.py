"""Timestamps: RFC 3339 in JSON, ext -1 in MessagePack, Timestamp messages
in Protobuf."""

from typing import Any

from _common import fact, with_
from vectorkit import (
    MExt,
    MTs,
    canonical_protobuf,
    invalid,
    ld,
    mp_pack,
    mp_tree,
    pb_timestamp,
    valid,
    vi,
)

AREA = "Timestamps"
DESCRIPTION = (
    "Timestamps: nanosecond precision in every encoding, the canonical fraction of 0, 3, 6 or 9 digits, "
    "the three MessagePack layouts on input and the smallest on output, the range 0001..9999, calendar "
    "dates, and every malformed spelling."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
S = ["core.md#3.8", "json-format.md#3.6", "msgpack-format.md#3.6", "protobuf-format.md#3.6"]


def at(ts: str, **more: Any) -> dict[str, Any]:
    return with_(BASE, created_at=ts, **more)


def jat(text: str) -> str:
    return ('{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"The user prefers window seats."},'
            '"created_at":' + text + "}")


def mat(value: Any) -> bytes:
    tree = mp_tree(BASE, R)
    tree["created_at"] = value
    return mp_pack(tree)


def pat(seconds: int, nanos: int) -> bytes:
    return canonical_protobuf(BASE, R) + ld(8, pb_timestamp(seconds, nanos))


CASES = [
    valid("NanosecondPrecision", "123456789 ns survive every encoding.", S, at("2024-05-01T12:30:00.123456789Z")),
    valid("OneNanosecond", "A fraction of one nanosecond is written with 9 digits.", S,
          at("2024-05-01T12:30:00.000000001Z")),
    valid("Microseconds", "123456 µs: 6 digits.", S, at("2024-05-01T12:30:00.123456Z")),
    valid("OneMicrosecond", "1 µs: 6 digits, .000001.", S, at("2024-05-01T12:30:00.000001Z")),
    valid("Milliseconds", "589 ms: 3 digits.", S, at("2026-03-14T09:26:53.589Z")),
    valid("WholeSecond", "No fraction when the nanoseconds are 0.", S, at("2024-05-01T12:30:00Z")),
    valid("FractionOneDigit",
          "The input fraction .5 is 500000000 ns, written .500.", ["json-format.md#3.6"],
          at("2024-05-01T12:30:00.500Z"), json=jat('"2024-05-01T12:30:00.5Z"'), msgpack=None, protobuf=None),
    valid("FractionTwoDigits", ".12 is written .120.", ["json-format.md#3.6"],
          at("2024-05-01T12:30:00.120Z"), json=jat('"2024-05-01T12:30:00.12Z"'), msgpack=None, protobuf=None),
    valid("FractionFourDigits", ".1200 is written .120.", ["json-format.md#3.6"],
          at("2024-05-01T12:30:00.120Z"), json=jat('"2024-05-01T12:30:00.1200Z"'), msgpack=None, protobuf=None),
    valid("FractionSevenDigits", ".1234567 is written .123456700.", ["json-format.md#3.6"],
          at("2024-05-01T12:30:00.123456700Z"), json=jat('"2024-05-01T12:30:00.1234567Z"'),
          msgpack=None, protobuf=None),
    valid("ZeroFractionOmitted", "A zero fraction of any length is omitted: .0 and .000000000.",
          ["json-format.md#3.6"], at("2024-05-01T12:30:00Z", updated_at="2024-05-01T12:30:01Z"),
          json=jat('"2024-05-01T12:30:00.0Z","updated_at":"2024-05-01T12:30:01.000000000Z"'),
          msgpack=None, protobuf=None),
    valid("TrailingZerosOfSixDigits", ".123000 is written .123.", ["json-format.md#3.6"],
          at("2024-05-01T12:30:00.123Z"), json=jat('"2024-05-01T12:30:00.123000Z"'), msgpack=None, protobuf=None),
    valid("LeapDay2024", "February 29 of a leap year.", S, at("2024-02-29T23:59:59.999Z")),
    valid("LeapDay2000", "February 29 of 2000, a leap year divisible by 400.", S, at("2000-02-29T00:00:00Z")),
    valid("RangeMinimum", "0001-01-01T00:00:00Z, the first instant of the range.", S, at("0001-01-01T00:00:00Z")),
    valid("RangeMaximum", "9999-12-31T23:59:59.999999999Z, the last instant of the range.", S,
          at("9999-12-31T23:59:59.999999999Z")),
    valid("Epoch", "1970-01-01T00:00:00Z: the Protobuf Timestamp is an empty message, and is present.", S,
          at("1970-01-01T00:00:00Z")),
    valid("BeforeEpochWithFraction",
          "1969-12-31T23:59:59.500Z: Protobuf seconds -1 (a 10-byte varint) and nanos 500000000; MessagePack "
          "timestamp 96.", S, at("1969-12-31T23:59:59.500Z")),
    valid("Timestamp32Boundary",
          "2106-02-07T06:28:15Z is seconds 2^32-1, the last instant of timestamp 32.",
          ["msgpack-format.md#3.6"], at("2106-02-07T06:28:15Z")),
    valid("Timestamp64AfterTimestamp32",
          "2106-02-07T06:28:16Z is seconds 2^32: timestamp 64 although the nanoseconds are 0.",
          ["msgpack-format.md#3.6"], at("2106-02-07T06:28:16Z")),
    valid("Timestamp64Boundary",
          "2514-05-30T01:53:03.999999999Z is seconds 2^34-1, the last instant of timestamp 64.",
          ["msgpack-format.md#3.6"], at("2514-05-30T01:53:03.999999999Z")),
    valid("Timestamp96AfterTimestamp64",
          "2514-05-30T01:53:04Z is seconds 2^34: timestamp 96.",
          ["msgpack-format.md#3.6"], at("2514-05-30T01:53:04Z")),
    valid("MsgpackTimestamp64Input",
          "A whole second in timestamp 64 layout is read; the canonical writer uses timestamp 32.",
          ["msgpack-format.md#3.6"], at("2024-05-01T12:30:00Z"),
          msgpack=mat(MTs(1714566600, 0, 64)), json=None, protobuf=None),
    valid("MsgpackTimestamp96Input",
          "An instant with nanoseconds in timestamp 96 layout is read; the canonical writer uses timestamp 64.",
          ["msgpack-format.md#3.6"], at("2024-05-01T12:30:00.500Z"),
          msgpack=mat(MTs(1714566600, 500000000, 96)), json=None, protobuf=None),
    valid("MsgpackTimestampInExt8",
          "A reader accepts a timestamp in any ext format whose data length is 4, 8 or 12: here ext 8 with "
          "length 4.", ["msgpack-format.md#3.6"], at("2024-05-01T12:30:00Z"),
          msgpack=mat(MExt(-1, (1714566600).to_bytes(4, "big"), "8")), json=None, protobuf=None,
          level="recommended"),
    valid("ProtobufExplicitZeroNanos",
          "A Protobuf Timestamp that writes nanos 0 explicitly is the same instant.",
          ["protobuf-format.md#3.6", "protobuf-format.md#4.1"], at("2024-05-01T12:30:00Z"),
          protobuf=canonical_protobuf(BASE, R) + ld(8, vi(1, 1714566600) + vi(2, 0)), json=None, msgpack=None),
    valid("TimestampLists",
          "Timestamps inside nested messages: episode times and lifecycle times.",
          S + ["core.md#4.7", "core.md#8"],
          {"specversion": "1.0", "id": "ep-1", "kind": "episode",
           "episode": {"text": "Checked in.", "event_time": "2026-03-09T05:10:00.25Z",
                       "end_time": "2026-03-09T05:12:30.000250Z"},
           "lifecycle": {"last_accessed_at": "2026-03-10T00:00:00.000000010Z", "expires_at": "2027-03-09T00:00:00Z",
                         "deleted_at": "2026-03-11T00:00:00.1Z", "status": "archived"}}),
    # -- invalid in JSON -------------------------------------------------------
    invalid("NotALeapYear", "2023-02-29 does not exist: INVALID_TIMESTAMP.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2023-02-29T00:00:00Z"')),
    invalid("CenturyNotLeapYear", "1900-02-29 does not exist: 1900 is not a leap year.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"1900-02-29T00:00:00Z"')),
    invalid("April31", "April has 30 days.", ["json-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at",
            json=jat('"2024-04-31T00:00:00Z"')),
    invalid("Month13", "Month 13.", ["json-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at",
            json=jat('"2024-13-01T00:00:00Z"')),
    invalid("YearZero", "Year 0000 is before the range.", ["json-format.md#3.6", "core.md#3.8"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"0000-12-31T23:59:59Z"')),
    invalid("Hour24", "Hour 24.", ["json-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at",
            json=jat('"2024-05-01T24:00:00Z"')),
    invalid("LeapSecond", "Second 60: leap seconds are not representable.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2016-12-31T23:59:60Z"')),
    invalid("NumericOffset", "A numeric offset, even +00:00, is not allowed.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-05-01T12:30:00+00:00"')),
    invalid("NegativeZeroOffset", "The offset -00:00 is not allowed.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-05-01T12:30:00-00:00"')),
    invalid("OffsetWithFraction", "A fraction followed by an offset.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-05-01T14:30:00.5+02:00"')),
    invalid("LowercaseZ", "A lower-case z is not allowed.", ["json-format.md#3.6"], "INVALID_TIMESTAMP",
            "/created_at", json=jat('"2024-05-01T12:30:00z"')),
    invalid("LowercaseT", "A lower-case t is not allowed.", ["json-format.md#3.6"], "INVALID_TIMESTAMP",
            "/created_at", json=jat('"2024-05-01t12:30:00Z"')),
    invalid("SpaceSeparator", "A space in place of T is not allowed.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-05-01 12:30:00Z"')),
    invalid("MissingZ", "A timestamp without Z is not allowed.", ["json-format.md#3.6"], "INVALID_TIMESTAMP",
            "/created_at", json=jat('"2024-05-01T12:30:00"')),
    invalid("TenFractionDigits", "A fraction of 10 digits is not allowed.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-05-01T12:30:00.1234567890Z"')),
    invalid("EmptyFraction", "A dot without fraction digits is not allowed.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-05-01T12:30:00.Z"')),
    invalid("MissingSeconds", "HH:MM without seconds is not allowed.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-05-01T12:30Z"')),
    invalid("ShortDate", "Every date component has its fixed number of digits.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"2024-5-1T12:30:00Z"')),
    invalid("FiveDigitYear", "The year has four digits: 10000 is out of range.", ["json-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", json=jat('"10000-01-01T00:00:00Z"')),
    invalid("EpochNumber", "A number of seconds in place of the string fails with TYPE_MISMATCH.",
            ["json-format.md#3.6"], "TYPE_MISMATCH", "/created_at", json=jat("1714566600")),
    invalid("InvalidTimestampInList", "A malformed timestamp nested in a payload fails at its member.",
            ["json-format.md#3.6"], "INVALID_TIMESTAMP", "/episode/end_time",
            json='{"specversion":"1.0","id":"ep-1","kind":"episode","episode":{"text":"x",'
                 '"event_time":"2026-03-09T05:10:00Z","end_time":"2026-03-09T05:12:30"}}'),
    # -- invalid in MessagePack ------------------------------------------------
    invalid("MsgpackNanosTooLarge64",
            "A timestamp 64 whose 30-bit nanoseconds are 10^9 or more fails with INVALID_TIMESTAMP.",
            ["msgpack-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at",
            msgpack=mat(MExt(-1, ((1_000_000_000 << 34) | 1714566600).to_bytes(8, "big"))), json=None, protobuf=None),
    invalid("MsgpackNanosTooLarge96",
            "A timestamp 96 with nanoseconds 4294967295 fails with INVALID_TIMESTAMP.",
            ["msgpack-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at",
            msgpack=mat(MExt(-1, b"\xff\xff\xff\xff" + (1714566600).to_bytes(8, "big"))), json=None, protobuf=None),
    invalid("MsgpackAfterRange",
            "Seconds 253402300800 (10000-01-01T00:00:00Z) are after the range: INVALID_TIMESTAMP.",
            ["msgpack-format.md#3.6", "core.md#3.8"], "INVALID_TIMESTAMP", "/created_at",
            msgpack=mat(MTs(253402300800, 0)), json=None, protobuf=None),
    invalid("MsgpackBeforeRange",
            "Seconds -62135596801 (one second before 0001-01-01) are before the range: INVALID_TIMESTAMP.",
            ["msgpack-format.md#3.6", "core.md#3.8"], "INVALID_TIMESTAMP", "/created_at",
            msgpack=mat(MTs(-62135596801, 0)), json=None, protobuf=None),
    invalid("MsgpackBadLength",
            "An ext -1 whose data length is not 4, 8 or 12 fails with INVALID_TIMESTAMP.",
            ["msgpack-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at",
            msgpack=mat(MExt(-1, b"\x00\x00\x00\x00\x00\x00")), json=None, protobuf=None),
    invalid("MsgpackOtherExtType",
            "An ext object of a type other than -1 fails with TYPE_MISMATCH at its pointer.",
            ["msgpack-format.md#2.1", "msgpack-format.md#3.6"], "TYPE_MISMATCH", "/created_at",
            msgpack=mat(MExt(1, (1714566600).to_bytes(4, "big"))), json=None, protobuf=None),
    invalid("MsgpackStringTimestamp",
            "An RFC 3339 str where a timestamp is expected fails with TYPE_MISMATCH.",
            ["msgpack-format.md#3"], "TYPE_MISMATCH", "/created_at",
            msgpack=mat("2024-05-01T12:30:00Z"), json=None, protobuf=None),
    invalid("MsgpackIntTimestamp",
            "An int where a timestamp is expected fails with TYPE_MISMATCH.",
            ["msgpack-format.md#3"], "TYPE_MISMATCH", "/created_at",
            msgpack=mat(1714566600), json=None, protobuf=None),
    # -- invalid in Protobuf ---------------------------------------------------
    invalid("ProtobufNanosTooLarge", "nanos of 10^9 fails with INVALID_TIMESTAMP.", ["protobuf-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at", protobuf=pat(1714566600, 1_000_000_000), json=None, msgpack=None),
    invalid("ProtobufNegativeNanos", "Negative nanos fail with INVALID_TIMESTAMP.", ["protobuf-format.md#3.6"],
            "INVALID_TIMESTAMP", "/created_at",
            protobuf=canonical_protobuf(BASE, R) + ld(8, vi(1, -1) + vi(2, -500000000)), json=None, msgpack=None),
    invalid("ProtobufAfterRange", "Seconds after 9999-12-31T23:59:59Z fail with INVALID_TIMESTAMP.",
            ["protobuf-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at", protobuf=pat(253402300800, 0),
            json=None, msgpack=None),
    invalid("ProtobufBeforeRange", "Seconds before 0001-01-01T00:00:00Z fail with INVALID_TIMESTAMP.",
            ["protobuf-format.md#3.6"], "INVALID_TIMESTAMP", "/created_at", protobuf=pat(-62135596801, 999999999),
            json=None, msgpack=None),
]
