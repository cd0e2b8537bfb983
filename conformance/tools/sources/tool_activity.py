"""ToolActivity: tool calls and tool results."""

from typing import Any

from _common import record
from vectorkit import invalid, valid

AREA = "ToolActivity"
DESCRIPTION = (
    "Records of kind tool_call and tool_result: call ids, names, arguments kept as the exact string sent, "
    "tool types and statuses, outputs as a string or as content parts, artifacts, standard streams, "
    "durations and errors."
)


def call(payload: dict[str, Any], id: str = "tc-1", **fields: Any) -> dict[str, Any]:
    return record("tool_call", payload, id=id, **fields)


def result(payload: dict[str, Any], id: str = "tr-1", **fields: Any) -> dict[str, Any]:
    return record("tool_result", payload, id=id, **fields)


S44 = ["core.md#4.4"]
S45 = ["core.md#4.5"]

CASES = [
    valid("FunctionCall",
          "A function call whose arguments are kept as the exact JSON text that was sent, white space and "
          "key order included.",
          S44, call({"call_id": "call_Q2xv3", "name": "rebook_flight",
                     "arguments": "{ \"booking\": \"X7K2PL\",  \"flight\": \"TP1947\", \"date\": \"2026-03-09\" }",
                     "tool_type": "function", "status": "completed"},
                    routing={"agent": "travel-concierge"})),
    valid("CallAwaitingApproval",
          "A web search call waiting for a person's approval.",
          S44, call({"call_id": "ws_88", "name": "web_search", "arguments": "{\"query\":\"TP1947 status\"}",
                     "tool_type": "web_search", "status": "awaiting_approval"}, id="tc-2")),
    valid("InvalidCallRecorded",
          "A call that could not be parsed, recorded with status incomplete and its error.",
          S44, call({"call_id": "call_bad", "name": "rebook_flight", "arguments": "{\"booking\": \"X7K2",
                     "status": "incomplete", "error": "arguments are not valid JSON: unexpected end of input"},
                    id="tc-3")),
    valid("ResultWithOutput",
          "A successful result with a string output, standard streams and a duration.",
          S45, result({"call_id": "call_Q2xv3", "name": "rebook_flight",
                       "output": "{\"status\":\"confirmed\",\"seat\":\"14A\"}", "status": "success",
                       "stdout": "booking X7K2PL updated\n", "stderr": "", "duration_micros": 834211})),
    valid("ResultWithEmptyOutput",
          "output has explicit presence: an empty string output is present and written, and duration_micros "
          "of 0 too.",
          S45 + ["core.md#3.11"], result({"call_id": "call_noop", "output": "", "duration_micros": 0,
                                          "status": "success"}, id="tr-2")),
    valid("ResultWithOutputParts",
          "A result whose output is a list of content parts, with an artifact Value beside it.",
          S45 + ["core.md#4.3", "core.md#3.4"],
          result({"call_id": "call_map", "name": "render_map", "output_parts": [
              {"text": {"text": "Route rendered."}},
              {"image": {"data": "iVBORw0KGgo=", "media_type": "image/png"}}],
              "artifact": {"tiles": 12, "bbox": [-9.14, 38.70, -9.13, 38.72], "cached": False}}, id="tr-3")),
    valid("ResultErrorStatus",
          "A failed call: status error with the error message.",
          S45, result({"call_id": "call_Q2xv4", "name": "rebook_flight", "status": "error",
                       "error": "flight TP1947 is full", "stderr": "HTTP 409"}, id="tr-4")),
    valid("ResultDenied",
          "A call that a policy denied.",
          S45, result({"call_id": "call_pay", "name": "charge_card", "status": "denied"}, id="tr-5")),
    valid("ResultInterruptedAndRunning",
          "The statuses interrupted and running, in a message that carries two tool results.",
          S45 + ["core.md#4.3"],
          record("message", {"role": "tool", "content": [
              {"tool_result": {"call_id": "a", "status": "interrupted"}},
              {"tool_result": {"call_id": "b", "status": "running"}}]}, id="msg-tr")),
    valid("CallStatuses",
          "The call statuses pending, approved and in_progress, as content parts.",
          S44 + ["core.md#4.3"],
          record("message", {"role": "assistant", "content": [
              {"tool_call": {"call_id": "a", "name": "f", "status": "pending"}},
              {"tool_call": {"call_id": "b", "name": "f", "status": "approved"}},
              {"tool_call": {"call_id": "c", "name": "f", "status": "in_progress"}}]}, id="msg-tc")),
    invalid("OutputAndOutputParts",
            "A result with both output and output_parts fails with ONEOF_CONFLICT at output_parts, in every "
            "encoding (the two are not a Protobuf oneof).",
            S45 + ["json-format.md#4", "protobuf-format.md#4.4"], "ONEOF_CONFLICT", "/tool_result/output_parts",
            doc=result({"call_id": "c1", "output": "ok", "output_parts": [{"text": {"text": "ok"}}]})),
    invalid("CallIdMissing",
            "ToolCall.call_id is required.",
            S44, "REQUIRED_FIELD_MISSING", "/tool_call/call_id",
            doc=call({"name": "rebook_flight", "arguments": "{}"})),
    invalid("CallNameMissing",
            "ToolCall.name is required.",
            S44, "REQUIRED_FIELD_MISSING", "/tool_call/name",
            doc=call({"call_id": "c1", "arguments": "{}"})),
    invalid("ResultCallIdMissing",
            "ToolResult.call_id is required.",
            S45, "REQUIRED_FIELD_MISSING", "/tool_result/call_id",
            doc=result({"output": "ok"})),
    invalid("ArgumentsAsObject",
            "ToolCall.arguments is a string holding the text that was sent; an object fails with TYPE_MISMATCH.",
            S44 + ["json-format.md#3"], "TYPE_MISMATCH", "/tool_call/arguments",
            doc=call({"call_id": "c1", "name": "f", "arguments": {"booking": "X7K2PL"}}), protobuf=None),
]
