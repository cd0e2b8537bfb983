"""Messages: conversation messages and their content parts."""

from typing import Any

from _common import record
from vectorkit import invalid, valid

AREA = "Messages"
DESCRIPTION = (
    "Records of kind message: roles, names, statuses and phases, and every kind of content part "
    "(text with annotations, image, audio, video, file, data, reasoning, refusal, tool call and tool "
    "result), with their constraints."
)


def message(msg: dict[str, Any], id: str = "msg-1", **fields: Any) -> dict[str, Any]:
    return record("message", msg, id=id, **fields)


USER = message({"role": "user", "content": [{"text": {"text": "Can you book me a window seat to Lisbon?"}}]})

MULTIPART = message({
    "role": "assistant",
    "name": "travel-concierge",
    "content": [
        {"id": "rs_68ce2a3d9b14", "reasoning": {
            "summary": ["Comparing Metro, Aerobus and taxi from LIS to Baixa-Chiado."],
            "signature": "EqMCCkYIBxgCKkDxs2VPrZ8PAxiuB2uwoVOXYkHbv",
            "encrypted_content": "gAAAAABpsDbTzUi0LEDBuzr9tyh3FWvoFs2XkyIr_Z05LiXUJVMJfiXb"}},
        {"text": {
            "text": "Take the Metro red line to Alameda and change to the green line for Baixa-Chiado; "
                    "a Navegante single costs €1.85.",
            "annotations": [{"type": "url_citation",
                             "url": "https://www.metrolisboa.pt/en/travel/how-to-get-there/airport/",
                             "title": "Airport | Metropolitano de Lisboa", "start_index": 0, "end_index": 84}]}},
        {"image": {"uri": "https://assets.example.com/maps/lis-metro.png", "media_type": "image/png",
                   "detail": "auto"}},
        {"audio": {"data": "UklGRnQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YVAAAAA=",
                   "media_type": "audio/wav"}},
        {"video": {"file_id": "file-7Hc2", "filename": "walkthrough.mp4", "media_type": "video/mp4"}},
        {"file": {"file_id": "file-9Qx1", "filename": "itinerary.pdf", "media_type": "application/pdf"}},
        {"data": {"value": {"route": ["LIS", "Alameda", "Baixa-Chiado"], "minutes": 35, "fare_eur": 1.85},
                  "schema": "https://schemas.example.com/route.json"}},
    ],
    "status": "completed",
    "phase": "final_answer",
    "citations": [{"type": "file_citation", "file_id": "file-9Qx1", "filename": "itinerary.pdf", "index": 0}],
}, id="msg_68ce2a41f0c7")

S42 = ["core.md#4.2"]
S43 = ["core.md#4.3"]

CASES = [
    valid("UserText", "A user message with one text part.", S42 + S43, USER),
    valid("AssistantMultipart",
          "An assistant message with reasoning, annotated text, image by URI, audio by inline bytes, video and "
          "file by file id, and a data part; status, phase and citations.",
          S42 + S43 + ["core.md#3.7"], MULTIPART),
    valid("SystemRole", "A system message.", S42,
          message({"role": "system", "content": [{"text": {"text": "You are a travel assistant."}}]}, id="msg-sys")),
    valid("DeveloperRole", "A developer message with a name.", S42,
          message({"role": "developer", "name": "ops", "content": [{"text": {"text": "Answer in Portuguese."}}]},
                  id="msg-dev")),
    valid("ToolRole", "A tool message that is still in progress.", S42,
          message({"role": "tool", "status": "in_progress", "content": [{"text": {"text": "{\"seats\": 3}"}}]},
                  id="msg-tool")),
    valid("IncompleteWithRefusal", "An incomplete assistant message that holds a refusal part.", S42 + S43,
          message({"role": "assistant", "status": "incomplete",
                   "content": [{"refusal": {"text": "I can't share another passenger's booking."}}]},
                  id="msg-refusal")),
    valid("MessageWithoutContent",
          "content is optional: a message with a role and no parts is valid (a message that only calls tools "
          "carries them as separate records).",
          S42, message({"role": "assistant", "name": "planner"}, id="msg-empty")),
    valid("ToolCallAndResultParts",
          "Tool calls and tool results as content parts of one message, with a part id and part extensions.",
          S42 + S43 + ["core.md#4.4", "core.md#4.5", "core.md#12.2"],
          message({"role": "assistant", "content": [
              {"id": "fc_1", "tool_call": {"call_id": "call_Xk2", "name": "search_flights",
                                           "arguments": "{\"from\":\"FRA\",\"to\":\"OPO\"}"},
               "extensions": {"openai.item_type": "function_call"}},
              {"id": "fco_1", "tool_result": {"call_id": "call_Xk2", "output": "[\"LH1180\",\"TP571\"]",
                                              "status": "success"}},
          ]}, id="msg-tools")),
    valid("AnnotationIndexZero",
          "Annotation.start_index and index have explicit presence: 0 is present and written.",
          S43 + ["core.md#3.11"],
          message({"role": "assistant", "content": [{"text": {"text": "See the timetable.", "annotations": [
              {"type": "url_citation", "url": "https://example.com/t", "index": 0, "start_index": 0,
               "end_index": 18}]}}]}, id="msg-ann")),
    invalid("RoleMissing",
            "A message without role fails with REQUIRED_FIELD_MISSING at /message/role.",
            S42 + ["json-format.md#4"], "REQUIRED_FIELD_MISSING", "/message/role",
            doc=message({"content": [{"text": {"text": "Hi"}}]})),
    invalid("ContentPartEmpty",
            "A content part with no member of its part group fails with REQUIRED_FIELD_MISSING at the part.",
            S43 + ["json-format.md#4"], "REQUIRED_FIELD_MISSING", "/message/content/1",
            doc=message({"role": "user", "content": [{"text": {"text": "Hi"}}, {"id": "p2"}]})),
    invalid("ContentPartTwoMembers",
            "A content part with two members of its part group fails with ONEOF_CONFLICT at the second one. "
            "(In Protobuf the last member of a oneof wins, so the case has no Protobuf input.)",
            S43 + ["json-format.md#4", "core.md#3.11"], "ONEOF_CONFLICT", "/message/content/0/image",
            doc=message({"role": "user", "content": [
                {"text": {"text": "Look"}, "image": {"uri": "https://example.com/a.png"}}]}),
            protobuf=None),
    invalid("MediaPartEmpty",
            "A media part needs one of uri, data and file_id: REQUIRED_FIELD_MISSING at the part.",
            S43 + ["json-format.md#4"], "REQUIRED_FIELD_MISSING", "/message/content/0/image",
            doc=message({"role": "user", "content": [{"image": {"media_type": "image/png", "detail": "low"}}]})),
    invalid("TextPartWithoutText",
            "TextPart.text is required.",
            S43, "REQUIRED_FIELD_MISSING", "/message/content/0/text/text",
            doc=message({"role": "user", "content": [{"text": {"annotations": [{"type": "url_citation"}]}}]})),
    invalid("AnnotationWithoutType",
            "Annotation.type is required.",
            S43, "REQUIRED_FIELD_MISSING", "/message/content/0/text/annotations/0/type",
            doc=message({"role": "user", "content": [{"text": {"text": "x", "annotations": [{"url": "https://e.com"}]}}]})),
    invalid("RefusalWithoutText",
            "RefusalPart.text is required.",
            S43, "REQUIRED_FIELD_MISSING", "/message/content/0/refusal/text",
            doc=message({"role": "assistant", "content": [{"refusal": {}}]})),
    invalid("DataPartWithoutValue",
            "DataPart.value is required (present); an absent value fails.",
            S43, "REQUIRED_FIELD_MISSING", "/message/content/0/data/value",
            doc=message({"role": "assistant", "content": [{"data": {"schema": "urn:example:route"}}]})),
    invalid("PhaseTooLong",
            "Message.phase has at most 64 code points.",
            S42, "LENGTH_OUT_OF_RANGE", "/message/phase",
            doc=message({"role": "assistant", "phase": "p" * 65})),
    invalid("MediaUriNotAbsolute",
            "MediaPart.uri has the format uri, an absolute URI: a relative reference fails with INVALID_FORMAT.",
            S43 + ["core.md#3"], "INVALID_FORMAT", "/message/content/0/image/uri",
            doc=message({"role": "user", "content": [{"image": {"uri": "maps/lis-metro.png"}}]}),
            level="recommended"),
    invalid("MediaTypeWithoutSubtype",
            "MediaPart.media_type has the format media-type: \"image\" without a subtype fails with "
            "INVALID_FORMAT.",
            S43 + ["core.md#3"], "INVALID_FORMAT", "/message/content/0/image/media_type",
            doc=message({"role": "user",
                         "content": [{"image": {"uri": "https://e.com/a.png", "media_type": "image"}}]}),
            level="recommended"),
    invalid("PartExtensionKeyPattern",
            "The extensions of a content part follow the extension key pattern.",
            S43 + ["core.md#12.2"], "PATTERN_MISMATCH", "/message/content/0/extensions/ItemType",
            doc=message({"role": "user", "content": [{"text": {"text": "x"}, "extensions": {"ItemType": "msg"}}]})),
]
