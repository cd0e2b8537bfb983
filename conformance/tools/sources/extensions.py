"""Extensions: metadata and vendor-namespaced extensions."""

from _common import fact, record, with_
from vectorkit import Case, invalid, valid

AREA = "Extensions"
DESCRIPTION = (
    "metadata and extensions: preserved in every encoding with their keys sorted in canonical form, any "
    "string as a metadata key, the extension key pattern enforced, item limits, and JSON Pointer escaping "
    "of keys in errors."
)

BASE = fact()
S = ["core.md#12.1", "core.md#12.2"]


def bad_key(name: str, key: str, pointer_key: str, what: str) -> Case:
    return invalid(name, f"The extension key {key!r} {what}: PATTERN_MISMATCH at the key's member.",
                   ["core.md#12.2"], "PATTERN_MISMATCH", "/extensions/" + pointer_key,
                   doc=with_(BASE, extensions={"agency-swarm.message_origin": "handoff", key: 1}))


CASES = [
    valid("RecordExtensions",
          "Extension attributes of several vendors, with Values of every kind, preserved and sorted by key.",
          S + ["json-format.md#7.2"],
          with_(BASE, extensions={
              "zendesk.ticket_id": 884213, "agency-swarm.message_origin": "handoff_reminder",
              "langchain.response_metadata": {"model_name": "gpt-4o", "finish_reason": "stop",
                                              "token_usage": {"prompt": 812, "completion": 64}},
              "example.com.priority": 2, "io.opentelemetry.trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
              "acme.sla_breached": False, "acme.score": 0.25, "acme.note": None,
              "a1.b-2.c_3": ["x", 1, 1.0]})),
    valid("ReservedNamespacePreserved",
          "Keys in the reserved memorywire namespace are preserved as any other.",
          ["core.md#12.2"], with_(BASE, extensions={"memorywire.experimental_flag": True})),
    valid("MetadataAnyKeys",
          "Any string is a metadata key: spaces, punctuation, upper case, non-ASCII, the empty string.",
          ["core.md#12.1", "core.md#3.10"],
          with_(BASE, metadata={"Source Doc": "handbook.pdf", "page": 12, "": "empty key", "ключ": "значение",
                                "x.y/z~w": [1, 2], "UPPER": True})),
    valid("MetadataFromFrameworks",
          "A framework's metadata dictionary kept as is, nested.",
          ["core.md#12.1"],
          record("message", {"role": "assistant", "content": [{"text": {"text": "Here is the PRD."}}]},
                 id="msg-metagpt", metadata={"agent": "ProductManager", "round": 3,
                                             "instruct_content": {"class": "PRD", "fields": {"goals": ["g1", "g2"]}}},
                 extensions={"metagpt.cause_by": "metagpt.actions.write_prd.WritePRD"})),
    bad_key("ExtensionKeyUppercase", "Acme.priority", "Acme.priority", "has an upper-case letter"),
    bad_key("ExtensionKeyWithoutNamespace", "priority", "priority", "has no namespace"),
    bad_key("ExtensionKeyEmptyLabel", "acme..priority", "acme..priority", "has an empty label"),
    bad_key("ExtensionKeyHyphenAtEnd", "acme-.priority", "acme-.priority", "has a label ending in a hyphen"),
    bad_key("ExtensionKeyNameWithHyphen", "acme.sla-breached", "acme.sla-breached", "has a hyphen in its name"),
    bad_key("ExtensionKeyNameStartsWithDigit", "acme.1st", "acme.1st", "has a name that starts with a digit"),
    bad_key("ExtensionKeyWithSlash", "acme/x.priority", "acme~1x.priority",
            "holds a / (escaped ~1 in the pointer)"),
    bad_key("ExtensionKeyEmpty", "", "", "is empty"),
    invalid("TooManyMetadataEntries",
            "metadata holds at most 1000 entries: 1001 fail with COUNT_OUT_OF_RANGE at the map.",
            ["core.md#4.1", "core.md#12.1"], "COUNT_OUT_OF_RANGE", "/metadata",
            doc=with_(BASE, metadata={f"k{i:04d}": i for i in range(1001)})),
    invalid("ContentPartExtensionKey",
            "The extensions of a content part follow the same pattern.",
            ["core.md#12.2", "core.md#4.3"], "PATTERN_MISMATCH", "/message/content/0/extensions/x",
            doc=record("message", {"role": "user", "content": [{"text": {"text": "hi"}, "extensions": {"x": 1}}]},
                       id="m")),
]
