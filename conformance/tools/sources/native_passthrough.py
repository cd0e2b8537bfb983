"""NativePassthrough: the original framework record, kept verbatim."""

from typing import Any

from _common import record
from vectorkit import invalid, valid

AREA = "NativePassthrough"
DESCRIPTION = (
    "native: the original framework record as a Value, preserved exactly by every encoding and conversion: "
    "nulls, integers to 64 bits, floats, strings, nested lists in order and maps."
)

S = ["core.md#11", "core.md#3.4"]


def msg(native: dict[str, Any], id: str = "msg-native") -> dict[str, Any]:
    return record("message", {"role": "user", "content": [{"text": {"text": "I missed my connection to Porto."}}]},
                  id=id, native=native)


CASES = [
    valid("AgencySwarmMessage",
          "An Agency Swarm message with a null callerAgent and an integer microsecond timestamp.",
          S, msg({"framework": "agency-swarm", "framework_version": "1.11.0", "format": "responses",
                  "record": {"role": "user", "content": "I missed my connection to Porto.", "agent": "Concierge",
                             "callerAgent": None, "timestamp": 1773480413589000, "type": "message"}})),
    valid("ArbitraryNestedRecord",
          "An arbitrary nested record: unsorted keys, empty lists and maps, nested lists, integers beyond 2^53, "
          "negative zero, tiny and huge floats, non-ASCII strings, escapes and booleans, all preserved.",
          S, msg({"framework": "letta", "format": "af-legacy", "record": {
              "zeta": {"nested": [[], {}, [[[]]], [{"k": [None, False, True]}]]},
              "alpha": [9223372036854775807, -9223372036854775808, 9007199254740993, 0, -1],
              "floats": [1.0, -0.0, 5e-324, 1.7976931348623157e308, 0.1, 1e21, 1e-7],
              "text": "Olá \"quoted\" \\ back\tslash\n\u0000 \U0001F600",
              "empty": "", "Mixed": {"B": 2, "a": 1, "_": 0, "": -1}}}, id="msg-nested")),
    valid("MetaGptMessage",
          "A MetaGPT message whose send_to set is kept as a list and whose instruct_content is a nested map.",
          S, msg({"framework": "metagpt", "framework_version": "0.8.1", "record": {
              "content": "Write the PRD", "role": "Product Manager", "cause_by": "metagpt.actions.add_requirement",
              "sent_from": "", "send_to": ["<all>"], "instruct_content": None, "id": "5a2d1c"}}, id="msg-mg")),
    valid("DoubleEncodedText",
          "A framework record whose exact text must survive (a double-encoded JSON string) is kept as a string "
          "Value, byte for byte.",
          S, msg({"framework": "letta", "record": "{\"blocks\": [ {\"label\": \"human\", \"value\": \"Ana\"} ],"
                                                  " \"version\": \"0.6.1\"}"}, id="msg-text")),
    valid("NullRecord", "native.record may be the null Value; it is present.", S,
          msg({"framework": "openai", "record": None}, id="msg-null")),
    invalid("NativeWithoutRecord", "NativeRecord.record is required (present).", S,
            "REQUIRED_FIELD_MISSING", "/native/record", doc=msg({"framework": "openai"})),
    invalid("NativeWithoutFramework", "NativeRecord.framework is required.", S,
            "REQUIRED_FIELD_MISSING", "/native/framework", doc=msg({"record": {"a": 1}})),
    invalid("NativeDuplicateKey", "Duplicate keys inside native.record fail with DUPLICATE_KEY.",
            S + ["json-format.md#5"], "DUPLICATE_KEY", "/native/record/role",
            json='{"specversion":"1.0","id":"m","kind":"message","message":{"role":"user"},'
                 '"native":{"framework":"openai","record":{"role":"user","content":"hi","role":"assistant"}}}'),
]
