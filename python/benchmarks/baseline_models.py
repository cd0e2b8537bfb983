# Copyright 2026 The memorywire Authors
# SPDX-License-Identifier: Apache-2.0
"""pydantic v2 models and msgspec Structs of memorywire message and fact records.

Written by make_baseline_models.py from memorywire's field tables; do not edit.
Each library gets a model of the JSON form and one of the MessagePack form
(timestamps as the timestamp extension, bytes and float32 vectors as bin).
"""

# ruff: noqa: E501
# Optional pydantic fields default to None without admitting null, which mypy cannot see.
# mypy: disable-error-code="assignment, arg-type"
from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

TIMESTAMP = '^(?!0000)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?Z\\Z'
BASE64 = '^(?:(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?)\\Z'


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", regex_engine="python-re")


# -- msgspec, the JSON form ----------------------------------------


class ToolResult(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    call_id: Annotated[str, Meta(min_length=1, max_length=256)]
    name: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    output: str | UnsetType = UNSET
    output_parts: Annotated[list[ContentPart], Meta(max_length=10000)] | UnsetType = UNSET
    status: Literal['success', 'error', 'interrupted', 'denied', 'running'] | UnsetType = UNSET
    stdout: str | UnsetType = UNSET
    stderr: str | UnsetType = UNSET
    duration_micros: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    error: str | UnsetType = UNSET
    artifact: Any | UnsetType = UNSET


class ToolCall(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    call_id: Annotated[str, Meta(min_length=1, max_length=256)]
    name: Annotated[str, Meta(min_length=1, max_length=256)]
    arguments: str | UnsetType = UNSET
    tool_type: Annotated[str, Meta(max_length=64)] | UnsetType = UNSET
    status: Literal['pending', 'awaiting_approval', 'approved', 'in_progress', 'completed', 'incomplete'] | UnsetType = UNSET
    error: str | UnsetType = UNSET


class RefusalPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: Annotated[str, Meta(min_length=1)]


class ReasoningPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: str | UnsetType = UNSET
    summary: Annotated[list[str], Meta(max_length=1000)] | UnsetType = UNSET
    signature: str | UnsetType = UNSET
    encrypted_content: str | UnsetType = UNSET


class DataPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    value: Any
    schema: Annotated[str, Meta(max_length=2048, pattern='^(?:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] | UnsetType = UNSET


class MediaPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    uri: Annotated[str, Meta(max_length=8192, pattern='^(?:[A-Za-z][A-Za-z0-9+.-]*:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] | UnsetType = UNSET
    data: Annotated[str, Meta(pattern=BASE64)] | UnsetType = UNSET
    media_type: Annotated[str, Meta(max_length=256, pattern='^(?:[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(?:[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*;[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"]*"))*)?\\Z')] | UnsetType = UNSET
    file_id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    filename: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    detail: Annotated[str, Meta(max_length=32)] | UnsetType = UNSET


class TextPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: Annotated[str, Meta(min_length=1)]
    annotations: Annotated[list[Annotation], Meta(max_length=10000)] | UnsetType = UNSET


class Annotation(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    type: Annotated[str, Meta(min_length=1, max_length=64)]
    url: Annotated[str, Meta(max_length=8192)] | UnsetType = UNSET
    title: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    file_id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    filename: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    text: str | UnsetType = UNSET
    index: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    start_index: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    end_index: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET


class ContentPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    text: TextPart | UnsetType = UNSET
    image: MediaPart | UnsetType = UNSET
    audio: MediaPart | UnsetType = UNSET
    video: MediaPart | UnsetType = UNSET
    file: MediaPart | UnsetType = UNSET
    data: DataPart | UnsetType = UNSET
    reasoning: ReasoningPart | UnsetType = UNSET
    refusal: RefusalPart | UnsetType = UNSET
    tool_call: ToolCall | UnsetType = UNSET
    tool_result: ToolResult | UnsetType = UNSET
    extensions: Annotated[dict[Annotated[str, Meta(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Meta(max_length=1000)] | UnsetType = UNSET


class NativeRecord(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    framework: Annotated[str, Meta(min_length=1, max_length=256)]
    framework_version: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    format: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    record: Any


class Embedding(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    model: Annotated[str, Meta(min_length=1, max_length=256)]
    dimensions: Annotated[int, Meta(ge=1, le=65536)]
    values: Annotated[list[Annotated[float, Meta(ge=-3.4028234663852886e+38, le=3.4028234663852886e+38)]], Meta(min_length=1, max_length=65536)]
    field: Annotated[str, Meta(max_length=1024, pattern='^(?:(?:/(?:[^~/]|~[01])*)*)?\\Z')] | UnsetType = UNSET


class Provenance(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    origin: Literal['user', 'agent', 'tool', 'system', 'import'] | UnsetType = UNSET
    source: Annotated[str, Meta(max_length=8192)] | UnsetType = UNSET
    trust: Literal['untrusted', 'unverified', 'verified', 'system'] | UnsetType = UNSET
    content_hash: Annotated[str, Meta(pattern='^\\Z|^sha256:[0-9a-f]{64}\\Z')] | UnsetType = UNSET
    actor: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET


class Lifecycle(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    status: Literal['active', 'pending_approval', 'archived', 'deleted', 'rejected'] | UnsetType = UNSET
    importance: Annotated[float, Meta(ge=0.0, le=1.0)] | UnsetType = UNSET
    confidence: Annotated[float, Meta(ge=0.0, le=1.0)] | UnsetType = UNSET
    access_count: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    last_accessed_at: Annotated[str, Meta(pattern=TIMESTAMP)] | UnsetType = UNSET
    expires_at: Annotated[str, Meta(pattern=TIMESTAMP)] | UnsetType = UNSET
    pinned: bool | UnsetType = UNSET
    deleted_at: Annotated[str, Meta(pattern=TIMESTAMP)] | UnsetType = UNSET
    reason: Annotated[str, Meta(max_length=4096)] | UnsetType = UNSET


class Link(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    type: Literal['derived_from', 'summarizes', 'supersedes', 'contradicts', 'responds_to', 'references']
    target: Annotated[str, Meta(min_length=1, max_length=256)]


class Routing(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    agent: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    caller_agent: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    sender: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    recipients: Annotated[list[Annotated[str, Meta(min_length=1, max_length=256)]], Meta(max_length=1000)] | UnsetType = UNSET
    cause: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    parent_run: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    trace_id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET


class Fact(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: Annotated[str, Meta(min_length=1)]
    subject: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    predicate: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    object: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    category: Literal['fact', 'preference'] | UnsetType = UNSET


class Message(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    role: Literal['system', 'developer', 'user', 'assistant', 'tool']
    name: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    content: Annotated[list[ContentPart], Meta(max_length=10000)] | UnsetType = UNSET
    status: Literal['in_progress', 'completed', 'incomplete'] | UnsetType = UNSET
    phase: Annotated[str, Meta(max_length=64)] | UnsetType = UNSET
    citations: Annotated[list[Annotation], Meta(max_length=10000)] | UnsetType = UNSET


class Scope(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    tenant: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    user: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    agent: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    session: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    run: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    task: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    project: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    namespace: Annotated[list[Annotated[str, Meta(min_length=1, max_length=256)]], Meta(max_length=32)] | UnsetType = UNSET


class MemoryRecord(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    specversion: Literal["1.0"]
    id: Annotated[str, Meta(min_length=1, max_length=256, pattern='^\\Z|^[^\\u0000-\\u001f\\u007f]+\\Z')]
    kind: Literal['message', 'tool_call', 'tool_result', 'fact', 'episode', 'procedure', 'emotion', 'summary', 'block', 'custom']
    key: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    scope: Scope | UnsetType = UNSET
    sequence: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    revision: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    created_at: Annotated[str, Meta(pattern=TIMESTAMP)] | UnsetType = UNSET
    updated_at: Annotated[str, Meta(pattern=TIMESTAMP)] | UnsetType = UNSET
    message: Message | UnsetType = UNSET
    fact: Fact | UnsetType = UNSET
    routing: Routing | UnsetType = UNSET
    links: Annotated[list[Link], Meta(max_length=1000)] | UnsetType = UNSET
    lifecycle: Lifecycle | UnsetType = UNSET
    provenance: Provenance | UnsetType = UNSET
    embeddings: Annotated[list[Embedding], Meta(max_length=16)] | UnsetType = UNSET
    native: NativeRecord | UnsetType = UNSET
    metadata: Annotated[dict[str, Any], Meta(max_length=1000)] | UnsetType = UNSET
    extensions: Annotated[dict[Annotated[str, Meta(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Meta(max_length=1000)] | UnsetType = UNSET
    tags: Annotated[list[Annotated[str, Meta(min_length=1)]], Meta(max_length=1000)] | UnsetType = UNSET

# -- msgspec, the MessagePack form ----------------------------------------


class MpToolResult(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    call_id: Annotated[str, Meta(min_length=1, max_length=256)]
    name: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    output: str | UnsetType = UNSET
    output_parts: Annotated[list[MpContentPart], Meta(max_length=10000)] | UnsetType = UNSET
    status: Literal['success', 'error', 'interrupted', 'denied', 'running'] | UnsetType = UNSET
    stdout: str | UnsetType = UNSET
    stderr: str | UnsetType = UNSET
    duration_micros: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    error: str | UnsetType = UNSET
    artifact: Any | UnsetType = UNSET


class MpToolCall(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    call_id: Annotated[str, Meta(min_length=1, max_length=256)]
    name: Annotated[str, Meta(min_length=1, max_length=256)]
    arguments: str | UnsetType = UNSET
    tool_type: Annotated[str, Meta(max_length=64)] | UnsetType = UNSET
    status: Literal['pending', 'awaiting_approval', 'approved', 'in_progress', 'completed', 'incomplete'] | UnsetType = UNSET
    error: str | UnsetType = UNSET


class MpRefusalPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: Annotated[str, Meta(min_length=1)]


class MpReasoningPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: str | UnsetType = UNSET
    summary: Annotated[list[str], Meta(max_length=1000)] | UnsetType = UNSET
    signature: str | UnsetType = UNSET
    encrypted_content: str | UnsetType = UNSET


class MpDataPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    value: Any
    schema: Annotated[str, Meta(max_length=2048, pattern='^(?:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] | UnsetType = UNSET


class MpMediaPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    uri: Annotated[str, Meta(max_length=8192, pattern='^(?:[A-Za-z][A-Za-z0-9+.-]*:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] | UnsetType = UNSET
    data: bytes | UnsetType = UNSET
    media_type: Annotated[str, Meta(max_length=256, pattern='^(?:[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(?:[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*;[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"]*"))*)?\\Z')] | UnsetType = UNSET
    file_id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    filename: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    detail: Annotated[str, Meta(max_length=32)] | UnsetType = UNSET


class MpTextPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: Annotated[str, Meta(min_length=1)]
    annotations: Annotated[list[MpAnnotation], Meta(max_length=10000)] | UnsetType = UNSET


class MpAnnotation(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    type: Annotated[str, Meta(min_length=1, max_length=64)]
    url: Annotated[str, Meta(max_length=8192)] | UnsetType = UNSET
    title: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    file_id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    filename: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    text: str | UnsetType = UNSET
    index: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    start_index: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    end_index: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET


class MpContentPart(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    text: MpTextPart | UnsetType = UNSET
    image: MpMediaPart | UnsetType = UNSET
    audio: MpMediaPart | UnsetType = UNSET
    video: MpMediaPart | UnsetType = UNSET
    file: MpMediaPart | UnsetType = UNSET
    data: MpDataPart | UnsetType = UNSET
    reasoning: MpReasoningPart | UnsetType = UNSET
    refusal: MpRefusalPart | UnsetType = UNSET
    tool_call: MpToolCall | UnsetType = UNSET
    tool_result: MpToolResult | UnsetType = UNSET
    extensions: Annotated[dict[Annotated[str, Meta(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Meta(max_length=1000)] | UnsetType = UNSET


class MpNativeRecord(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    framework: Annotated[str, Meta(min_length=1, max_length=256)]
    framework_version: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    format: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    record: Any


class MpEmbedding(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    model: Annotated[str, Meta(min_length=1, max_length=256)]
    dimensions: Annotated[int, Meta(ge=1, le=65536)]
    values: bytes
    field: Annotated[str, Meta(max_length=1024, pattern='^(?:(?:/(?:[^~/]|~[01])*)*)?\\Z')] | UnsetType = UNSET


class MpProvenance(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    origin: Literal['user', 'agent', 'tool', 'system', 'import'] | UnsetType = UNSET
    source: Annotated[str, Meta(max_length=8192)] | UnsetType = UNSET
    trust: Literal['untrusted', 'unverified', 'verified', 'system'] | UnsetType = UNSET
    content_hash: Annotated[str, Meta(pattern='^\\Z|^sha256:[0-9a-f]{64}\\Z')] | UnsetType = UNSET
    actor: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET


class MpLifecycle(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    status: Literal['active', 'pending_approval', 'archived', 'deleted', 'rejected'] | UnsetType = UNSET
    importance: Annotated[float, Meta(ge=0.0, le=1.0)] | UnsetType = UNSET
    confidence: Annotated[float, Meta(ge=0.0, le=1.0)] | UnsetType = UNSET
    access_count: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    last_accessed_at: datetime.datetime | UnsetType = UNSET
    expires_at: datetime.datetime | UnsetType = UNSET
    pinned: bool | UnsetType = UNSET
    deleted_at: datetime.datetime | UnsetType = UNSET
    reason: Annotated[str, Meta(max_length=4096)] | UnsetType = UNSET


class MpLink(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    type: Literal['derived_from', 'summarizes', 'supersedes', 'contradicts', 'responds_to', 'references']
    target: Annotated[str, Meta(min_length=1, max_length=256)]


class MpRouting(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    agent: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    caller_agent: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    sender: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    recipients: Annotated[list[Annotated[str, Meta(min_length=1, max_length=256)]], Meta(max_length=1000)] | UnsetType = UNSET
    cause: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    parent_run: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    trace_id: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET


class MpFact(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    text: Annotated[str, Meta(min_length=1)]
    subject: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    predicate: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    object: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    category: Literal['fact', 'preference'] | UnsetType = UNSET


class MpMessage(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    role: Literal['system', 'developer', 'user', 'assistant', 'tool']
    name: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    content: Annotated[list[MpContentPart], Meta(max_length=10000)] | UnsetType = UNSET
    status: Literal['in_progress', 'completed', 'incomplete'] | UnsetType = UNSET
    phase: Annotated[str, Meta(max_length=64)] | UnsetType = UNSET
    citations: Annotated[list[MpAnnotation], Meta(max_length=10000)] | UnsetType = UNSET


class MpScope(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    tenant: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    user: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    agent: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    session: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    run: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    task: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    project: Annotated[str, Meta(max_length=256)] | UnsetType = UNSET
    namespace: Annotated[list[Annotated[str, Meta(min_length=1, max_length=256)]], Meta(max_length=32)] | UnsetType = UNSET


class MpMemoryRecord(Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    specversion: Literal["1.0"]
    id: Annotated[str, Meta(min_length=1, max_length=256, pattern='^\\Z|^[^\\u0000-\\u001f\\u007f]+\\Z')]
    kind: Literal['message', 'tool_call', 'tool_result', 'fact', 'episode', 'procedure', 'emotion', 'summary', 'block', 'custom']
    key: Annotated[str, Meta(max_length=1024)] | UnsetType = UNSET
    scope: MpScope | UnsetType = UNSET
    sequence: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    revision: Annotated[int, Meta(ge=0, le=9007199254740991)] | UnsetType = UNSET
    created_at: datetime.datetime | UnsetType = UNSET
    updated_at: datetime.datetime | UnsetType = UNSET
    message: MpMessage | UnsetType = UNSET
    fact: MpFact | UnsetType = UNSET
    routing: MpRouting | UnsetType = UNSET
    links: Annotated[list[MpLink], Meta(max_length=1000)] | UnsetType = UNSET
    lifecycle: MpLifecycle | UnsetType = UNSET
    provenance: MpProvenance | UnsetType = UNSET
    embeddings: Annotated[list[MpEmbedding], Meta(max_length=16)] | UnsetType = UNSET
    native: MpNativeRecord | UnsetType = UNSET
    metadata: Annotated[dict[str, Any], Meta(max_length=1000)] | UnsetType = UNSET
    extensions: Annotated[dict[Annotated[str, Meta(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Meta(max_length=1000)] | UnsetType = UNSET
    tags: Annotated[list[Annotated[str, Meta(min_length=1)]], Meta(max_length=1000)] | UnsetType = UNSET

# -- pydantic, the JSON form ----------------------------------------


class PToolResult(_Model):
    call_id: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    name: Annotated[str, StringConstraints(max_length=256)] = None
    output: str = None
    output_parts: Annotated[list[PContentPart], Field(max_length=10000)] = None
    status: Literal['success', 'error', 'interrupted', 'denied', 'running'] = None
    stdout: str = None
    stderr: str = None
    duration_micros: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    error: str = None
    artifact: Any = None


class PToolCall(_Model):
    call_id: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    name: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    arguments: str = None
    tool_type: Annotated[str, StringConstraints(max_length=64)] = None
    status: Literal['pending', 'awaiting_approval', 'approved', 'in_progress', 'completed', 'incomplete'] = None
    error: str = None


class PRefusalPart(_Model):
    text: Annotated[str, StringConstraints(min_length=1)]


class PReasoningPart(_Model):
    text: str = None
    summary: Annotated[list[str], Field(max_length=1000)] = None
    signature: str = None
    encrypted_content: str = None


class PDataPart(_Model):
    value: Any
    schema_: Annotated[str, StringConstraints(max_length=2048, pattern='^(?:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] = Field(None, alias='schema')


class PMediaPart(_Model):
    uri: Annotated[str, StringConstraints(max_length=8192, pattern='^(?:[A-Za-z][A-Za-z0-9+.-]*:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] = None
    data: Annotated[str, StringConstraints(pattern=BASE64)] = None
    media_type: Annotated[str, StringConstraints(max_length=256, pattern='^(?:[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(?:[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*;[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"]*"))*)?\\Z')] = None
    file_id: Annotated[str, StringConstraints(max_length=256)] = None
    filename: Annotated[str, StringConstraints(max_length=1024)] = None
    detail: Annotated[str, StringConstraints(max_length=32)] = None


class PTextPart(_Model):
    text: Annotated[str, StringConstraints(min_length=1)]
    annotations: Annotated[list[PAnnotation], Field(max_length=10000)] = None


class PAnnotation(_Model):
    type: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    url: Annotated[str, StringConstraints(max_length=8192)] = None
    title: Annotated[str, StringConstraints(max_length=1024)] = None
    file_id: Annotated[str, StringConstraints(max_length=256)] = None
    filename: Annotated[str, StringConstraints(max_length=1024)] = None
    text: str = None
    index: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    start_index: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    end_index: Annotated[int, Field(ge=0, le=9007199254740991)] = None


class PContentPart(_Model):
    id: Annotated[str, StringConstraints(max_length=256)] = None
    text: PTextPart = None
    image: PMediaPart = None
    audio: PMediaPart = None
    video: PMediaPart = None
    file: PMediaPart = None
    data: PDataPart = None
    reasoning: PReasoningPart = None
    refusal: PRefusalPart = None
    tool_call: PToolCall = None
    tool_result: PToolResult = None
    extensions: Annotated[dict[Annotated[str, StringConstraints(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Field(max_length=1000)] = None


class PNativeRecord(_Model):
    framework: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    framework_version: Annotated[str, StringConstraints(max_length=256)] = None
    format: Annotated[str, StringConstraints(max_length=256)] = None
    record: Any


class PEmbedding(_Model):
    model: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    dimensions: Annotated[int, Field(ge=1, le=65536)]
    values: Annotated[list[Annotated[float, Field(ge=-3.4028234663852886e+38, le=3.4028234663852886e+38)]], Field(min_length=1, max_length=65536)]
    field: Annotated[str, StringConstraints(max_length=1024, pattern='^(?:(?:/(?:[^~/]|~[01])*)*)?\\Z')] = None


class PProvenance(_Model):
    origin: Literal['user', 'agent', 'tool', 'system', 'import'] = None
    source: Annotated[str, StringConstraints(max_length=8192)] = None
    trust: Literal['untrusted', 'unverified', 'verified', 'system'] = None
    content_hash: Annotated[str, StringConstraints(pattern='^\\Z|^sha256:[0-9a-f]{64}\\Z')] = None
    actor: Annotated[str, StringConstraints(max_length=256)] = None


class PLifecycle(_Model):
    status: Literal['active', 'pending_approval', 'archived', 'deleted', 'rejected'] = None
    importance: Annotated[float, Field(ge=0.0, le=1.0)] = None
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = None
    access_count: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    last_accessed_at: Annotated[str, StringConstraints(pattern=TIMESTAMP)] = None
    expires_at: Annotated[str, StringConstraints(pattern=TIMESTAMP)] = None
    pinned: bool = None
    deleted_at: Annotated[str, StringConstraints(pattern=TIMESTAMP)] = None
    reason: Annotated[str, StringConstraints(max_length=4096)] = None


class PLink(_Model):
    type: Literal['derived_from', 'summarizes', 'supersedes', 'contradicts', 'responds_to', 'references']
    target: Annotated[str, StringConstraints(min_length=1, max_length=256)]


class PRouting(_Model):
    agent: Annotated[str, StringConstraints(max_length=256)] = None
    caller_agent: Annotated[str, StringConstraints(max_length=256)] = None
    sender: Annotated[str, StringConstraints(max_length=256)] = None
    recipients: Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=256)]], Field(max_length=1000)] = None
    cause: Annotated[str, StringConstraints(max_length=1024)] = None
    parent_run: Annotated[str, StringConstraints(max_length=256)] = None
    trace_id: Annotated[str, StringConstraints(max_length=256)] = None


class PFact(_Model):
    text: Annotated[str, StringConstraints(min_length=1)]
    subject: Annotated[str, StringConstraints(max_length=1024)] = None
    predicate: Annotated[str, StringConstraints(max_length=1024)] = None
    object: Annotated[str, StringConstraints(max_length=1024)] = None
    category: Literal['fact', 'preference'] = None


class PMessage(_Model):
    role: Literal['system', 'developer', 'user', 'assistant', 'tool']
    name: Annotated[str, StringConstraints(max_length=256)] = None
    content: Annotated[list[PContentPart], Field(max_length=10000)] = None
    status: Literal['in_progress', 'completed', 'incomplete'] = None
    phase: Annotated[str, StringConstraints(max_length=64)] = None
    citations: Annotated[list[PAnnotation], Field(max_length=10000)] = None


class PScope(_Model):
    tenant: Annotated[str, StringConstraints(max_length=256)] = None
    user: Annotated[str, StringConstraints(max_length=256)] = None
    agent: Annotated[str, StringConstraints(max_length=256)] = None
    session: Annotated[str, StringConstraints(max_length=256)] = None
    run: Annotated[str, StringConstraints(max_length=256)] = None
    task: Annotated[str, StringConstraints(max_length=256)] = None
    project: Annotated[str, StringConstraints(max_length=256)] = None
    namespace: Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=256)]], Field(max_length=32)] = None


class PMemoryRecord(_Model):
    specversion: Literal["1.0"]
    id: Annotated[str, StringConstraints(min_length=1, max_length=256, pattern='^\\Z|^[^\\u0000-\\u001f\\u007f]+\\Z')]
    kind: Literal['message', 'tool_call', 'tool_result', 'fact', 'episode', 'procedure', 'emotion', 'summary', 'block', 'custom']
    key: Annotated[str, StringConstraints(max_length=1024)] = None
    scope: PScope = None
    sequence: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    revision: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    created_at: Annotated[str, StringConstraints(pattern=TIMESTAMP)] = None
    updated_at: Annotated[str, StringConstraints(pattern=TIMESTAMP)] = None
    message: PMessage = None
    fact: PFact = None
    routing: PRouting = None
    links: Annotated[list[PLink], Field(max_length=1000)] = None
    lifecycle: PLifecycle = None
    provenance: PProvenance = None
    embeddings: Annotated[list[PEmbedding], Field(max_length=16)] = None
    native: PNativeRecord = None
    metadata: Annotated[dict[str, Any], Field(max_length=1000)] = None
    extensions: Annotated[dict[Annotated[str, StringConstraints(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Field(max_length=1000)] = None
    tags: Annotated[list[Annotated[str, StringConstraints(min_length=1)]], Field(max_length=1000)] = None

# -- pydantic, the MessagePack form ----------------------------------------


class PMpToolResult(_Model):
    call_id: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    name: Annotated[str, StringConstraints(max_length=256)] = None
    output: str = None
    output_parts: Annotated[list[PMpContentPart], Field(max_length=10000)] = None
    status: Literal['success', 'error', 'interrupted', 'denied', 'running'] = None
    stdout: str = None
    stderr: str = None
    duration_micros: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    error: str = None
    artifact: Any = None


class PMpToolCall(_Model):
    call_id: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    name: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    arguments: str = None
    tool_type: Annotated[str, StringConstraints(max_length=64)] = None
    status: Literal['pending', 'awaiting_approval', 'approved', 'in_progress', 'completed', 'incomplete'] = None
    error: str = None


class PMpRefusalPart(_Model):
    text: Annotated[str, StringConstraints(min_length=1)]


class PMpReasoningPart(_Model):
    text: str = None
    summary: Annotated[list[str], Field(max_length=1000)] = None
    signature: str = None
    encrypted_content: str = None


class PMpDataPart(_Model):
    value: Any
    schema_: Annotated[str, StringConstraints(max_length=2048, pattern='^(?:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] = Field(None, alias='schema')


class PMpMediaPart(_Model):
    uri: Annotated[str, StringConstraints(max_length=8192, pattern='^(?:[A-Za-z][A-Za-z0-9+.-]*:[^\\x00-\\x1f\\x7f\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?\\Z')] = None
    data: bytes = None
    media_type: Annotated[str, StringConstraints(max_length=256, pattern='^(?:[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(?:[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*;[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"]*"))*)?\\Z')] = None
    file_id: Annotated[str, StringConstraints(max_length=256)] = None
    filename: Annotated[str, StringConstraints(max_length=1024)] = None
    detail: Annotated[str, StringConstraints(max_length=32)] = None


class PMpTextPart(_Model):
    text: Annotated[str, StringConstraints(min_length=1)]
    annotations: Annotated[list[PMpAnnotation], Field(max_length=10000)] = None


class PMpAnnotation(_Model):
    type: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    url: Annotated[str, StringConstraints(max_length=8192)] = None
    title: Annotated[str, StringConstraints(max_length=1024)] = None
    file_id: Annotated[str, StringConstraints(max_length=256)] = None
    filename: Annotated[str, StringConstraints(max_length=1024)] = None
    text: str = None
    index: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    start_index: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    end_index: Annotated[int, Field(ge=0, le=9007199254740991)] = None


class PMpContentPart(_Model):
    id: Annotated[str, StringConstraints(max_length=256)] = None
    text: PMpTextPart = None
    image: PMpMediaPart = None
    audio: PMpMediaPart = None
    video: PMpMediaPart = None
    file: PMpMediaPart = None
    data: PMpDataPart = None
    reasoning: PMpReasoningPart = None
    refusal: PMpRefusalPart = None
    tool_call: PMpToolCall = None
    tool_result: PMpToolResult = None
    extensions: Annotated[dict[Annotated[str, StringConstraints(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Field(max_length=1000)] = None


class PMpNativeRecord(_Model):
    framework: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    framework_version: Annotated[str, StringConstraints(max_length=256)] = None
    format: Annotated[str, StringConstraints(max_length=256)] = None
    record: Any


class PMpEmbedding(_Model):
    model: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    dimensions: Annotated[int, Field(ge=1, le=65536)]
    values: bytes
    field: Annotated[str, StringConstraints(max_length=1024, pattern='^(?:(?:/(?:[^~/]|~[01])*)*)?\\Z')] = None


class PMpProvenance(_Model):
    origin: Literal['user', 'agent', 'tool', 'system', 'import'] = None
    source: Annotated[str, StringConstraints(max_length=8192)] = None
    trust: Literal['untrusted', 'unverified', 'verified', 'system'] = None
    content_hash: Annotated[str, StringConstraints(pattern='^\\Z|^sha256:[0-9a-f]{64}\\Z')] = None
    actor: Annotated[str, StringConstraints(max_length=256)] = None


class PMpLifecycle(_Model):
    status: Literal['active', 'pending_approval', 'archived', 'deleted', 'rejected'] = None
    importance: Annotated[float, Field(ge=0.0, le=1.0)] = None
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = None
    access_count: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    last_accessed_at: datetime.datetime = None
    expires_at: datetime.datetime = None
    pinned: bool = None
    deleted_at: datetime.datetime = None
    reason: Annotated[str, StringConstraints(max_length=4096)] = None


class PMpLink(_Model):
    type: Literal['derived_from', 'summarizes', 'supersedes', 'contradicts', 'responds_to', 'references']
    target: Annotated[str, StringConstraints(min_length=1, max_length=256)]


class PMpRouting(_Model):
    agent: Annotated[str, StringConstraints(max_length=256)] = None
    caller_agent: Annotated[str, StringConstraints(max_length=256)] = None
    sender: Annotated[str, StringConstraints(max_length=256)] = None
    recipients: Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=256)]], Field(max_length=1000)] = None
    cause: Annotated[str, StringConstraints(max_length=1024)] = None
    parent_run: Annotated[str, StringConstraints(max_length=256)] = None
    trace_id: Annotated[str, StringConstraints(max_length=256)] = None


class PMpFact(_Model):
    text: Annotated[str, StringConstraints(min_length=1)]
    subject: Annotated[str, StringConstraints(max_length=1024)] = None
    predicate: Annotated[str, StringConstraints(max_length=1024)] = None
    object: Annotated[str, StringConstraints(max_length=1024)] = None
    category: Literal['fact', 'preference'] = None


class PMpMessage(_Model):
    role: Literal['system', 'developer', 'user', 'assistant', 'tool']
    name: Annotated[str, StringConstraints(max_length=256)] = None
    content: Annotated[list[PMpContentPart], Field(max_length=10000)] = None
    status: Literal['in_progress', 'completed', 'incomplete'] = None
    phase: Annotated[str, StringConstraints(max_length=64)] = None
    citations: Annotated[list[PMpAnnotation], Field(max_length=10000)] = None


class PMpScope(_Model):
    tenant: Annotated[str, StringConstraints(max_length=256)] = None
    user: Annotated[str, StringConstraints(max_length=256)] = None
    agent: Annotated[str, StringConstraints(max_length=256)] = None
    session: Annotated[str, StringConstraints(max_length=256)] = None
    run: Annotated[str, StringConstraints(max_length=256)] = None
    task: Annotated[str, StringConstraints(max_length=256)] = None
    project: Annotated[str, StringConstraints(max_length=256)] = None
    namespace: Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=256)]], Field(max_length=32)] = None


class PMpMemoryRecord(_Model):
    specversion: Literal["1.0"]
    id: Annotated[str, StringConstraints(min_length=1, max_length=256, pattern='^\\Z|^[^\\u0000-\\u001f\\u007f]+\\Z')]
    kind: Literal['message', 'tool_call', 'tool_result', 'fact', 'episode', 'procedure', 'emotion', 'summary', 'block', 'custom']
    key: Annotated[str, StringConstraints(max_length=1024)] = None
    scope: PMpScope = None
    sequence: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    revision: Annotated[int, Field(ge=0, le=9007199254740991)] = None
    created_at: datetime.datetime = None
    updated_at: datetime.datetime = None
    message: PMpMessage = None
    fact: PMpFact = None
    routing: PMpRouting = None
    links: Annotated[list[PMpLink], Field(max_length=1000)] = None
    lifecycle: PMpLifecycle = None
    provenance: PMpProvenance = None
    embeddings: Annotated[list[PMpEmbedding], Field(max_length=16)] = None
    native: PMpNativeRecord = None
    metadata: Annotated[dict[str, Any], Field(max_length=1000)] = None
    extensions: Annotated[dict[Annotated[str, StringConstraints(pattern='^[a-z0-9]+(-[a-z0-9]+)*(\\.[a-z0-9]+(-[a-z0-9]+)*)*\\.[a-z_][a-z0-9_]*\\Z')], Any], Field(max_length=1000)] = None
    tags: Annotated[list[Annotated[str, StringConstraints(min_length=1)]], Field(max_length=1000)] = None
