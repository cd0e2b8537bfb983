"""Versioning: specversion on documents and nested records."""

from typing import Any

from _common import fact, with_, without
from vectorkit import invalid, ld, mp_pack, valid, vi

AREA = "Versioning"
DESCRIPTION = (
    "The specification version: required on every top-level record, request and response, checked before "
    "anything else; major versions other than 1 rejected whatever the document holds; forbidden on nested "
    "records; newer minor versions accepted."
)

R = "memorywire.v1.MemoryRecord"
P = "memorywire.v1.PutRequest"
BASE = fact()
S = ["versioning.md#1.4", "core.md#13.2"]


def sv(value: str) -> dict[str, Any]:
    return with_(BASE, specversion=value)


CASES = [
    invalid("MajorVersion2",
            "A 2.0 document fails with UNSUPPORTED_VERSION at /specversion.",
            S + ["versioning.md#1"], "UNSUPPORTED_VERSION", "/specversion", doc=sv("2.0")),
    invalid("MajorVersion2WithErrors",
            "A 2.3 document fails with UNSUPPORTED_VERSION whatever else is wrong with it: unknown members, "
            "wrong types, nulls and a missing id.",
            S + ["json-format.md#2.3"], "UNSUPPORTED_VERSION", "/specversion",
            json='{"specversion":"2.3","kind":"memo","sequence":"x","tags":null,"plan":{"steps":1}}',
            msgpack=mp_pack({"specversion": "2.3", "kind": "memo", "sequence": "x", "tags": None,
                             "plan": {"steps": 1}})),
    invalid("MajorVersion2Last",
            "UNSUPPORTED_VERSION wins even when specversion is the last member, after members that are wrong.",
            S + ["json-format.md#2.3"], "UNSUPPORTED_VERSION", "/specversion",
            json='{"id":5,"kind":"fact","fact":{"text":"x"},"mood":"calm","specversion":"2.0"}',
            msgpack=mp_pack({"id": 5, "kind": "fact", "fact": {"text": "x"}, "mood": "calm", "specversion": "2.0"}),
            protobuf=ld(2, b"") + vi(3, 99) + ld(13, ld(1, b"x")) + vi(77, 1) + ld(1, b"2.0")),
    invalid("MajorVersion10", "10.0 is major version 10.", S, "UNSUPPORTED_VERSION", "/specversion", doc=sv("10.0")),
    *[invalid(f"Pattern{name}", f"specversion \"{value}\" does not match ^[1-9][0-9]*\\.(0|[1-9][0-9]*)$: "
              "PATTERN_MISMATCH.", S, "PATTERN_MISMATCH", "/specversion", doc=sv(value))
      for name, value in [("NoMinor", "1"), ("ThreeParts", "1.0.0"), ("Prefix", "v1.0"),
                          ("LeadingZeroMajor", "01.0"), ("LeadingZeroMinor", "1.00"), ("MajorZero", "0.9"),
                          ("Empty", " 1.0")]],
    invalid("SpecversionNumber", "specversion as a number fails with TYPE_MISMATCH.", S, "TYPE_MISMATCH",
            "/specversion", json='{"specversion":1.0,"id":"fact-1","kind":"fact","fact":{"text":"x"}}',
            msgpack=mp_pack({"specversion": 1.0, "id": "fact-1", "kind": "fact", "fact": {"text": "x"}})),
    invalid("SpecversionNull", "A null specversion fails with NULL_VALUE at /specversion, in phase 2.", S,
            "NULL_VALUE", "/specversion", json='{"specversion":null,"id":"fact-1","kind":"fact","fact":{"text":"x"}}',
            msgpack=mp_pack({"specversion": None, "id": "fact-1", "kind": "fact", "fact": {"text": "x"}})),
    invalid("MissingOnRecord",
            "A record that is a document of its own carries specversion: REQUIRED_FIELD_MISSING.",
            S + ["core.md#4.1", "versioning.md#1.2"], "REQUIRED_FIELD_MISSING", "/specversion",
            doc=without(BASE, "specversion")),
    invalid("MissingOnRequest", "Every request carries specversion.", S + ["operations.md#2"],
            "REQUIRED_FIELD_MISSING", "/specversion",
            doc={"operation_id": "op-1", "items": [{"record": {"id": "f", "kind": "fact", "fact": {"text": "x"}}}]},
            type=P),
    invalid("MissingOnReadRequest", "A request that reads carries specversion as one that writes does.",
            S + ["operations.md#2"], "REQUIRED_FIELD_MISSING", "/specversion",
            doc={"operation_id": "op-1", "ids": ["f"]}, type="memorywire.v1.GetRequest"),
    invalid("MissingReportedFirst",
            "The version is checked in phase 2, before the constraints: a record without specversion and "
            "without id reports REQUIRED_FIELD_MISSING at /specversion first.",
            S + ["json-format.md#2.3"], "REQUIRED_FIELD_MISSING", "/specversion",
            doc={"kind": "fact", "fact": {"text": "x"}}),
    invalid("EmptyProtobufRecord",
            "The empty byte string is a Protobuf message with no fields: as a MemoryRecord it lacks specversion.",
            S + ["protobuf-format.md#2.3"], "REQUIRED_FIELD_MISSING", "/specversion",
            protobuf=b"", json=None, msgpack=None),
    invalid("NestedRecordWithSpecversion",
            "A nested record MUST NOT carry specversion: UNKNOWN_FIELD at its specversion member.",
            ["core.md#13.3", "versioning.md#1.2", "operations.md#2"], "UNKNOWN_FIELD",
            "/items/0/record/specversion",
            doc={"specversion": "1.0", "operation_id": "op-1",
                 "items": [{"record": {"specversion": "1.0", "id": "f", "kind": "fact", "fact": {"text": "x"}}}]},
            type=P),
    invalid("NestedRecordWithSpecversionInResponse",
            "The same in the records of a GetResponse.",
            ["core.md#13.3"], "UNKNOWN_FIELD", "/records/1/specversion",
            doc={"specversion": "1.0", "operation_id": "op-1",
                 "records": [{"id": "a", "kind": "fact", "fact": {"text": "x"}},
                             {"specversion": "1.0", "id": "b", "kind": "fact", "fact": {"text": "y"}}]},
            type="memorywire.v1.GetResponse"),
    valid("NewerMinorAccepted",
          "A 1.1 document without unknown content is valid and converts freely; every writer keeps its "
          "specversion.", ["versioning.md#3", "versioning.md#1.5"], sv("1.1")),
    valid("TwoDigitMinor", "1.10 is a newer minor version than 1.9 and 1.0.", ["versioning.md#1.1", "versioning.md#3"],
          sv("1.10")),
    valid("RequestOfNewerMinor", "A request of a newer minor version is read like any document.",
          ["versioning.md#3.5", "operations.md#2"],
          {"specversion": "1.4", "operation_id": "op-1", "ids": ["fact-1"]}, type="memorywire.v1.GetRequest"),
]
