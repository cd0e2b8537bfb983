"""Records: the fields every memory record has, encrypted payloads and
tombstones."""

from _common import record, with_, without
from vectorkit import invalid, valid

AREA = "Records"
DESCRIPTION = (
    "The MemoryRecord envelope: identity, kind and payload, scope, sequence and revision, "
    "routing, links, lifecycle, provenance, embeddings, native, metadata, extensions and tags; "
    "encrypted payloads and tombstones; the payload rules of core.md section 4."
)

FULL = {
    "specversion": "1.0",
    "id": "mem_01KK9EPXX8WYM2E77JTQ0B7H52",
    "kind": "message",
    "key": "support/rebooking/u-4821",
    "scope": {
        "tenant": "acme-travel",
        "user": "u-4821",
        "agent": "travel-concierge",
        "session": "sess_01KK9EPFCR6ZGM7WSSP4Y6738H",
        "run": "run_7f3a",
        "task": "rebook-connection",
        "project": "support",
        "namespace": ["memories", "u-4821", "support"],
    },
    "sequence": 18339,
    "revision": 2,
    "created_at": "2026-03-09T14:06:12.904Z",
    "updated_at": "2026-03-09T14:07:30.118250Z",
    "message": {
        "role": "user",
        "content": [{"text": {"text": "I missed my connection to Porto. Can you move me to the next flight?"}}],
    },
    "routing": {
        "agent": "travel-concierge",
        "caller_agent": "triage",
        "sender": "triage",
        "recipients": ["travel-concierge", "*"],
        "cause": "support.actions.Handoff",
        "parent_run": "run_7f39",
        "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
    },
    "links": [
        {"type": "responds_to", "target": "mem_01KK9EPFCR6ZGM7WSSP4Y6738H"},
        {"type": "references", "target": "fact-booking-LH1170"},
    ],
    "lifecycle": {
        "status": "active",
        "importance": 0.75,
        "confidence": 1.0,
        "access_count": 4,
        "last_accessed_at": "2026-03-09T14:08:00Z",
        "expires_at": "2026-09-09T00:00:00Z",
        "pinned": True,
    },
    "provenance": {
        "origin": "user",
        "source": "ios-app",
        "trust": "unverified",
        "content_hash": "sha256:770fda7812fd3fa1b43a433f544eb272d92fc9149b00a94f77148985a833c8db",
        "actor": "u-4821",
    },
    "embeddings": [
        {"model": "text-embedding-3-small", "dimensions": 4,
         "values": [0.10000000149011612, -0.0406000018119812, 0.7260000109672546, 0.16680000722408295],
         "field": "/message/content/0/text/text"},
    ],
    "native": {
        "framework": "agency-swarm",
        "framework_version": "1.11.0",
        "format": "responses",
        "record": {"role": "user", "content": "I missed my connection to Porto.", "agent": "travel-concierge",
                   "callerAgent": None, "timestamp": 1773065172904000},
    },
    "metadata": {"client": "ios", "app_version": "5.12.0", "network": {"type": "cellular", "carrier": "MEO"}},
    "extensions": {"acme.priority": 3, "zendesk.ticket_id": 884213, "acme.sla_breached": False},
    "tags": ["support", "rebooking"],
}

MINIMAL = record("fact", {"text": "The user is vegetarian."}, id="fact-1")

ENCRYPTED = {
    "specversion": "1.0",
    "id": "mem_01KJ8K3GYCNA20ZNW5ZSNVMCN5",
    "kind": "fact",
    "scope": {"tenant": "acme-travel", "user": "u-4821"},
    "encrypted": {
        "algorithm": "A256GCM",
        "key_id": "projects/acme-travel/keyRings/memory/cryptoKeys/u-4821/cryptoKeyVersions/3",
        "nonce": "92gOPCbrAFsRiuJv",
        "ciphertext": "wkOWnLxsU19cx30qeZcu/REK4DcO/ZHDNjpT93EGE0Fk1z8bIPraKAyzmlt0SdoASPlkgRXxu6/LiFpsIXjfwtUc",
        "aad": "YWNtZS10cmF2ZWwvbWVtXzAxS0o4SzNHWUNOQTIwWk5XNVpTTlZNQ041",
    },
    "lifecycle": {"importance": 0.9, "pinned": True},
    "provenance": {"origin": "user", "trust": "verified"},
}

TOMBSTONE = {
    "specversion": "1.0",
    "id": "urn:uuid:0adcdec7-ffdb-5877-8e9e-9491169f6e17",
    "kind": "custom",
    "key": "passport",
    "scope": {"tenant": "acme-travel", "namespace": ["memories", "u-4821", "documents"]},
    "sequence": 14219,
    "revision": 4,
    "created_at": "2026-02-03T11:20:09.445Z",
    "updated_at": "2026-03-09T14:11:37.208Z",
    "lifecycle": {"status": "deleted", "deleted_at": "2026-03-09T14:11:37.208Z",
                  "reason": "The user asked the assistant to forget their passport details."},
}

S4 = ["core.md#4"]

CASES = [
    valid("MinimalRecord",
          "The smallest valid record: specversion, id, kind and the payload of the kind.",
          S4 + ["core.md#4.1", "core.md#4.6"], MINIMAL),
    valid("EveryRecordField",
          "A message record that sets every field of MemoryRecord: key, the whole scope, sequence, revision, "
          "both timestamps, routing, links, lifecycle, provenance, an embedding, native, metadata, extensions "
          "and tags. Every field survives every encoding.",
          S4 + ["core.md#4.1", "core.md#5", "core.md#6", "core.md#7", "core.md#8", "core.md#9",
                "core.md#10", "core.md#11", "core.md#12.1", "core.md#12.2"], FULL),
    valid("EncryptedFact",
          "A record of kind fact whose payload is encrypted: algorithm, key id, nonce, ciphertext and additional "
          "authenticated data as bytes; routing metadata stays readable.",
          S4 + ["core.md#4.13", "core.md#3.7"], ENCRYPTED),
    valid("EncryptedMessage",
          "The encrypted member is valid for a record of any kind, here message; only the required algorithm and "
          "ciphertext are set.",
          S4 + ["core.md#4.13"],
          record("message", None, id="msg-enc-1",
                 encrypted={"algorithm": "A256GCM", "ciphertext": "AAECAwQFBgcICQoLDA0ODw=="})),
    valid("TombstoneWithoutPayload",
          "A tombstone (lifecycle.status deleted) keeps identity, scope, sequence, revision, timestamps and "
          "lifecycle and carries no payload member; it is valid without one.",
          S4 + ["core.md#8.2", "json-format.md#4"], TOMBSTONE),
    invalid("TombstoneWithPayload",
            "A tombstone that still carries a payload member is rejected with KIND_MISMATCH at the payload member.",
            S4 + ["core.md#8.2", "json-format.md#4"], "KIND_MISMATCH", "/custom",
            doc=with_(TOMBSTONE, custom={"type": "langgraph.item", "value": {"passport": "X1234567"}})),
    invalid("PayloadMissing",
            "A record that is not a tombstone and carries no payload member fails with REQUIRED_FIELD_MISSING at "
            "the record itself.",
            S4 + ["json-format.md#4"], "REQUIRED_FIELD_MISSING", "",
            doc=record("fact", None, id="fact-1")),
    invalid("KindPayloadMismatch",
            "A record of kind fact whose payload member is message is rejected with KIND_MISMATCH at the payload "
            "member.",
            S4 + ["core.md#4.1", "json-format.md#4"], "KIND_MISMATCH", "/message",
            doc=record("fact", None, id="fact-1",
                       message={"role": "user", "content": [{"text": {"text": "Hi"}}]})),
    invalid("TwoPayloads",
            "A record with two payload members is rejected with ONEOF_CONFLICT at the second member in input order. "
            "(In Protobuf the last member of a oneof wins, so the case has no Protobuf input.)",
            S4 + ["core.md#3.11", "json-format.md#4"], "ONEOF_CONFLICT", "/encrypted",
            doc=with_(MINIMAL, encrypted={"algorithm": "A256GCM", "ciphertext": "AAEC"}), protobuf=None),
    invalid("IdMissing",
            "A record without id fails with REQUIRED_FIELD_MISSING at /id.",
            ["core.md#4.1", "json-format.md#4"], "REQUIRED_FIELD_MISSING", "/id",
            doc=without(MINIMAL, "id")),
    invalid("IdEmpty",
            "An empty id is the default of a required field: REQUIRED_FIELD_MISSING at /id.",
            ["core.md#4.1", "core.md#3.11"], "REQUIRED_FIELD_MISSING", "/id",
            doc=with_(MINIMAL, id="")),
    invalid("KindMissing",
            "kind is required, also on a tombstone, which has no payload: REQUIRED_FIELD_MISSING at /kind.",
            ["core.md#4.1", "core.md#8.2", "json-format.md#4"], "REQUIRED_FIELD_MISSING", "/kind",
            doc=without(TOMBSTONE, "kind")),
    invalid("IdWithTrailingNewline",
            "Patterns are ECMA-262 regular expressions, whose $ matches only at the end of the string: an id "
            "ending in a line feed fails with PATTERN_MISMATCH.",
            ["core.md#4.1", "core.md#3"], "PATTERN_MISMATCH", "/id",
            doc=with_(MINIMAL, id="fact-1\n")),
    invalid("IdWithControlCharacter",
            "The pattern of id excludes C0 control characters and U+007F: an id holding a tab fails with "
            "PATTERN_MISMATCH.",
            ["core.md#4.1", "core.md#3"], "PATTERN_MISMATCH", "/id",
            doc=with_(MINIMAL, id="fact\t1")),
    invalid("IdWithDelete",
            "An id holding U+007F fails with PATTERN_MISMATCH.",
            ["core.md#4.1", "core.md#3"], "PATTERN_MISMATCH", "/id",
            doc=with_(MINIMAL, id="fact\u007f1")),
    valid("IdOf256CodePoints",
          "The length of id counts code points: 256 code points outside the BMP (1024 bytes of UTF-8) are within "
          "the limit of 256.",
          ["core.md#4.1", "core.md#3.1"], with_(MINIMAL, id="\U0001F600" * 256), level="recommended"),
    invalid("IdOf257CodePoints",
            "An id of 257 code points fails with LENGTH_OUT_OF_RANGE.",
            ["core.md#4.1", "core.md#3"], "LENGTH_OUT_OF_RANGE", "/id",
            doc=with_(MINIMAL, id="a" * 257)),
    invalid("LinkTargetMissing",
            "A link without target fails with REQUIRED_FIELD_MISSING at the missing member.",
            ["core.md#7", "json-format.md#4"], "REQUIRED_FIELD_MISSING", "/links/1/target",
            doc=with_(MINIMAL, links=[{"type": "supersedes", "target": "fact-0"}, {"type": "derived_from"}])),
    invalid("LinkTypeMissing",
            "A link without type fails with REQUIRED_FIELD_MISSING.",
            ["core.md#7"], "REQUIRED_FIELD_MISSING", "/links/0/type",
            doc=with_(MINIMAL, links=[{"target": "fact-0"}])),
    invalid("TooManyTags",
            "tags holds at most 1000 elements: 1001 fail with COUNT_OUT_OF_RANGE at the list.",
            ["core.md#4.1", "core.md#3"], "COUNT_OUT_OF_RANGE", "/tags",
            doc=with_(MINIMAL, tags=[f"t{i}" for i in range(1001)])),
    valid("ThousandTags",
          "tags at its item limit of 1000 elements is valid; the MessagePack array needs array 16 and the list "
          "keeps its order.",
          ["core.md#4.1", "core.md#3.10", "msgpack-format.md#7"],
          with_(MINIMAL, tags=[f"t{i:03d}" for i in range(1000)]), level="recommended"),
    invalid("EmptyTag",
            "Each tag has at least one code point: an empty element fails with LENGTH_OUT_OF_RANGE at the element.",
            ["core.md#4.1", "core.md#3"], "LENGTH_OUT_OF_RANGE", "/tags/1",
            doc=with_(MINIMAL, tags=["travel", ""])),
    invalid("TooManyEmbeddings",
            "A record carries at most 16 embeddings: 17 fail with COUNT_OUT_OF_RANGE.",
            ["core.md#4.1", "core.md#10"], "COUNT_OUT_OF_RANGE", "/embeddings",
            doc=with_(MINIMAL, embeddings=[{"model": f"m{i}", "dimensions": 1, "values": [1.0]} for i in range(17)])),
    invalid("EmbeddingWithoutModel",
            "Embedding.model is required: vector search compares only embeddings of the query's model.",
            ["core.md#10"], "REQUIRED_FIELD_MISSING", "/embeddings/0/model",
            doc=with_(MINIMAL, embeddings=[{"dimensions": 2, "values": [1.0, 0.5]}])),
    invalid("ContentHashPattern",
            "provenance.content_hash is sha256: and 64 lowercase hex digits; upper-case digits fail with "
            "PATTERN_MISMATCH.",
            ["core.md#9", "core.md#9.2"], "PATTERN_MISMATCH", "/provenance/content_hash",
            doc=with_(MINIMAL, provenance={"content_hash": "sha256:" + "AB" * 32})),
    invalid("NamespaceElementTooLong",
            "Each element of scope.namespace has at most 256 code points.",
            ["core.md#5"], "LENGTH_OUT_OF_RANGE", "/scope/namespace/1",
            doc=with_(MINIMAL, scope={"namespace": ["memories", "n" * 257]})),
    invalid("ImportanceAboveOne",
            "lifecycle.importance is within 0..1: 1.5 fails with VALUE_OUT_OF_RANGE.",
            ["core.md#8", "json-format.md#3.3"], "VALUE_OUT_OF_RANGE", "/lifecycle/importance",
            doc=with_(MINIMAL, lifecycle={"importance": 1.5})),
    invalid("ConfidenceBelowZero",
            "lifecycle.confidence is within 0..1: -0.25 fails with VALUE_OUT_OF_RANGE.",
            ["core.md#8", "json-format.md#3.3"], "VALUE_OUT_OF_RANGE", "/lifecycle/confidence",
            doc=with_(MINIMAL, lifecycle={"confidence": -0.25})),
    valid("StatusPendingApproval",
          "A staged record: lifecycle.status pending_approval with provenance origin agent and trust untrusted.",
          ["core.md#8", "core.md#8.1", "core.md#9.1"],
          with_(MINIMAL, lifecycle={"status": "pending_approval", "importance": 0.4},
                provenance={"origin": "agent", "trust": "untrusted", "source": "https://example.com/page"})),
    valid("RoutingBetweenAgents",
          "Routing of an agent-to-agent exchange: agent, caller_agent, sender and recipients.",
          ["core.md#6", "core.md#6.1"],
          record("message", {"role": "assistant", "name": "Analyst",
                             "content": [{"text": {"text": "Q1 sales rose 4 %."}}]}, id="msg-9",
                 routing={"agent": "Analyst", "caller_agent": "Manager", "sender": "Analyst",
                          "recipients": ["Manager"]})),
]
