import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memorywire.v1 import options_pb2 as _options_pb2
from memorywire.v1 import value_pb2 as _value_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RecordKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECORD_KIND_UNSPECIFIED: _ClassVar[RecordKind]
    RECORD_KIND_MESSAGE: _ClassVar[RecordKind]
    RECORD_KIND_TOOL_CALL: _ClassVar[RecordKind]
    RECORD_KIND_TOOL_RESULT: _ClassVar[RecordKind]
    RECORD_KIND_FACT: _ClassVar[RecordKind]
    RECORD_KIND_EPISODE: _ClassVar[RecordKind]
    RECORD_KIND_PROCEDURE: _ClassVar[RecordKind]
    RECORD_KIND_EMOTION: _ClassVar[RecordKind]
    RECORD_KIND_SUMMARY: _ClassVar[RecordKind]
    RECORD_KIND_BLOCK: _ClassVar[RecordKind]
    RECORD_KIND_CUSTOM: _ClassVar[RecordKind]

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_SYSTEM: _ClassVar[Role]
    ROLE_DEVELOPER: _ClassVar[Role]
    ROLE_USER: _ClassVar[Role]
    ROLE_ASSISTANT: _ClassVar[Role]
    ROLE_TOOL: _ClassVar[Role]

class MessageStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MESSAGE_STATUS_UNSPECIFIED: _ClassVar[MessageStatus]
    MESSAGE_STATUS_IN_PROGRESS: _ClassVar[MessageStatus]
    MESSAGE_STATUS_COMPLETED: _ClassVar[MessageStatus]
    MESSAGE_STATUS_INCOMPLETE: _ClassVar[MessageStatus]

class ToolCallStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_CALL_STATUS_UNSPECIFIED: _ClassVar[ToolCallStatus]
    TOOL_CALL_STATUS_PENDING: _ClassVar[ToolCallStatus]
    TOOL_CALL_STATUS_AWAITING_APPROVAL: _ClassVar[ToolCallStatus]
    TOOL_CALL_STATUS_APPROVED: _ClassVar[ToolCallStatus]
    TOOL_CALL_STATUS_IN_PROGRESS: _ClassVar[ToolCallStatus]
    TOOL_CALL_STATUS_COMPLETED: _ClassVar[ToolCallStatus]
    TOOL_CALL_STATUS_INCOMPLETE: _ClassVar[ToolCallStatus]

class ToolResultStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_RESULT_STATUS_UNSPECIFIED: _ClassVar[ToolResultStatus]
    TOOL_RESULT_STATUS_SUCCESS: _ClassVar[ToolResultStatus]
    TOOL_RESULT_STATUS_ERROR: _ClassVar[ToolResultStatus]
    TOOL_RESULT_STATUS_INTERRUPTED: _ClassVar[ToolResultStatus]
    TOOL_RESULT_STATUS_DENIED: _ClassVar[ToolResultStatus]
    TOOL_RESULT_STATUS_RUNNING: _ClassVar[ToolResultStatus]

class FactCategory(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FACT_CATEGORY_UNSPECIFIED: _ClassVar[FactCategory]
    FACT_CATEGORY_FACT: _ClassVar[FactCategory]
    FACT_CATEGORY_PREFERENCE: _ClassVar[FactCategory]

class Sentiment(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SENTIMENT_UNSPECIFIED: _ClassVar[Sentiment]
    SENTIMENT_POSITIVE: _ClassVar[Sentiment]
    SENTIMENT_NEGATIVE: _ClassVar[Sentiment]
    SENTIMENT_NEUTRAL: _ClassVar[Sentiment]
    SENTIMENT_MIXED: _ClassVar[Sentiment]

class LinkType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LINK_TYPE_UNSPECIFIED: _ClassVar[LinkType]
    LINK_TYPE_DERIVED_FROM: _ClassVar[LinkType]
    LINK_TYPE_SUMMARIZES: _ClassVar[LinkType]
    LINK_TYPE_SUPERSEDES: _ClassVar[LinkType]
    LINK_TYPE_CONTRADICTS: _ClassVar[LinkType]
    LINK_TYPE_RESPONDS_TO: _ClassVar[LinkType]
    LINK_TYPE_REFERENCES: _ClassVar[LinkType]

class RecordStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECORD_STATUS_UNSPECIFIED: _ClassVar[RecordStatus]
    RECORD_STATUS_ACTIVE: _ClassVar[RecordStatus]
    RECORD_STATUS_PENDING_APPROVAL: _ClassVar[RecordStatus]
    RECORD_STATUS_ARCHIVED: _ClassVar[RecordStatus]
    RECORD_STATUS_DELETED: _ClassVar[RecordStatus]
    RECORD_STATUS_REJECTED: _ClassVar[RecordStatus]

class Origin(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORIGIN_UNSPECIFIED: _ClassVar[Origin]
    ORIGIN_USER: _ClassVar[Origin]
    ORIGIN_AGENT: _ClassVar[Origin]
    ORIGIN_TOOL: _ClassVar[Origin]
    ORIGIN_SYSTEM: _ClassVar[Origin]
    ORIGIN_IMPORT: _ClassVar[Origin]

class TrustLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRUST_LEVEL_UNSPECIFIED: _ClassVar[TrustLevel]
    TRUST_LEVEL_UNTRUSTED: _ClassVar[TrustLevel]
    TRUST_LEVEL_UNVERIFIED: _ClassVar[TrustLevel]
    TRUST_LEVEL_VERIFIED: _ClassVar[TrustLevel]
    TRUST_LEVEL_SYSTEM: _ClassVar[TrustLevel]
RECORD_KIND_UNSPECIFIED: RecordKind
RECORD_KIND_MESSAGE: RecordKind
RECORD_KIND_TOOL_CALL: RecordKind
RECORD_KIND_TOOL_RESULT: RecordKind
RECORD_KIND_FACT: RecordKind
RECORD_KIND_EPISODE: RecordKind
RECORD_KIND_PROCEDURE: RecordKind
RECORD_KIND_EMOTION: RecordKind
RECORD_KIND_SUMMARY: RecordKind
RECORD_KIND_BLOCK: RecordKind
RECORD_KIND_CUSTOM: RecordKind
ROLE_UNSPECIFIED: Role
ROLE_SYSTEM: Role
ROLE_DEVELOPER: Role
ROLE_USER: Role
ROLE_ASSISTANT: Role
ROLE_TOOL: Role
MESSAGE_STATUS_UNSPECIFIED: MessageStatus
MESSAGE_STATUS_IN_PROGRESS: MessageStatus
MESSAGE_STATUS_COMPLETED: MessageStatus
MESSAGE_STATUS_INCOMPLETE: MessageStatus
TOOL_CALL_STATUS_UNSPECIFIED: ToolCallStatus
TOOL_CALL_STATUS_PENDING: ToolCallStatus
TOOL_CALL_STATUS_AWAITING_APPROVAL: ToolCallStatus
TOOL_CALL_STATUS_APPROVED: ToolCallStatus
TOOL_CALL_STATUS_IN_PROGRESS: ToolCallStatus
TOOL_CALL_STATUS_COMPLETED: ToolCallStatus
TOOL_CALL_STATUS_INCOMPLETE: ToolCallStatus
TOOL_RESULT_STATUS_UNSPECIFIED: ToolResultStatus
TOOL_RESULT_STATUS_SUCCESS: ToolResultStatus
TOOL_RESULT_STATUS_ERROR: ToolResultStatus
TOOL_RESULT_STATUS_INTERRUPTED: ToolResultStatus
TOOL_RESULT_STATUS_DENIED: ToolResultStatus
TOOL_RESULT_STATUS_RUNNING: ToolResultStatus
FACT_CATEGORY_UNSPECIFIED: FactCategory
FACT_CATEGORY_FACT: FactCategory
FACT_CATEGORY_PREFERENCE: FactCategory
SENTIMENT_UNSPECIFIED: Sentiment
SENTIMENT_POSITIVE: Sentiment
SENTIMENT_NEGATIVE: Sentiment
SENTIMENT_NEUTRAL: Sentiment
SENTIMENT_MIXED: Sentiment
LINK_TYPE_UNSPECIFIED: LinkType
LINK_TYPE_DERIVED_FROM: LinkType
LINK_TYPE_SUMMARIZES: LinkType
LINK_TYPE_SUPERSEDES: LinkType
LINK_TYPE_CONTRADICTS: LinkType
LINK_TYPE_RESPONDS_TO: LinkType
LINK_TYPE_REFERENCES: LinkType
RECORD_STATUS_UNSPECIFIED: RecordStatus
RECORD_STATUS_ACTIVE: RecordStatus
RECORD_STATUS_PENDING_APPROVAL: RecordStatus
RECORD_STATUS_ARCHIVED: RecordStatus
RECORD_STATUS_DELETED: RecordStatus
RECORD_STATUS_REJECTED: RecordStatus
ORIGIN_UNSPECIFIED: Origin
ORIGIN_USER: Origin
ORIGIN_AGENT: Origin
ORIGIN_TOOL: Origin
ORIGIN_SYSTEM: Origin
ORIGIN_IMPORT: Origin
TRUST_LEVEL_UNSPECIFIED: TrustLevel
TRUST_LEVEL_UNTRUSTED: TrustLevel
TRUST_LEVEL_UNVERIFIED: TrustLevel
TRUST_LEVEL_VERIFIED: TrustLevel
TRUST_LEVEL_SYSTEM: TrustLevel

class MemoryRecord(_message.Message):
    __slots__ = ("specversion", "id", "kind", "key", "scope", "sequence", "revision", "created_at", "updated_at", "message", "tool_call", "tool_result", "fact", "episode", "procedure", "emotion", "summary", "block", "custom", "encrypted", "routing", "links", "lifecycle", "provenance", "embeddings", "native", "metadata", "extensions", "tags")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    FACT_FIELD_NUMBER: _ClassVar[int]
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    PROCEDURE_FIELD_NUMBER: _ClassVar[int]
    EMOTION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTED_FIELD_NUMBER: _ClassVar[int]
    ROUTING_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    LIFECYCLE_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    NATIVE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    EXTENSIONS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    id: str
    kind: RecordKind
    key: str
    scope: Scope
    sequence: int
    revision: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    message: Message
    tool_call: ToolCall
    tool_result: ToolResult
    fact: Fact
    episode: Episode
    procedure: Procedure
    emotion: Emotion
    summary: Summary
    block: MemoryBlock
    custom: CustomRecord
    encrypted: EncryptedPayload
    routing: Routing
    links: _containers.RepeatedCompositeFieldContainer[Link]
    lifecycle: Lifecycle
    provenance: Provenance
    embeddings: _containers.RepeatedCompositeFieldContainer[Embedding]
    native: NativeRecord
    metadata: _containers.RepeatedCompositeFieldContainer[_value_pb2.MapEntry]
    extensions: _containers.RepeatedCompositeFieldContainer[_value_pb2.MapEntry]
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, specversion: _Optional[str] = ..., id: _Optional[str] = ..., kind: _Optional[_Union[RecordKind, str]] = ..., key: _Optional[str] = ..., scope: _Optional[_Union[Scope, _Mapping]] = ..., sequence: _Optional[int] = ..., revision: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., message: _Optional[_Union[Message, _Mapping]] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., tool_result: _Optional[_Union[ToolResult, _Mapping]] = ..., fact: _Optional[_Union[Fact, _Mapping]] = ..., episode: _Optional[_Union[Episode, _Mapping]] = ..., procedure: _Optional[_Union[Procedure, _Mapping]] = ..., emotion: _Optional[_Union[Emotion, _Mapping]] = ..., summary: _Optional[_Union[Summary, _Mapping]] = ..., block: _Optional[_Union[MemoryBlock, _Mapping]] = ..., custom: _Optional[_Union[CustomRecord, _Mapping]] = ..., encrypted: _Optional[_Union[EncryptedPayload, _Mapping]] = ..., routing: _Optional[_Union[Routing, _Mapping]] = ..., links: _Optional[_Iterable[_Union[Link, _Mapping]]] = ..., lifecycle: _Optional[_Union[Lifecycle, _Mapping]] = ..., provenance: _Optional[_Union[Provenance, _Mapping]] = ..., embeddings: _Optional[_Iterable[_Union[Embedding, _Mapping]]] = ..., native: _Optional[_Union[NativeRecord, _Mapping]] = ..., metadata: _Optional[_Iterable[_Union[_value_pb2.MapEntry, _Mapping]]] = ..., extensions: _Optional[_Iterable[_Union[_value_pb2.MapEntry, _Mapping]]] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class Scope(_message.Message):
    __slots__ = ("tenant", "user", "agent", "session", "run", "task", "project", "namespace")
    TENANT_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    tenant: str
    user: str
    agent: str
    session: str
    run: str
    task: str
    project: str
    namespace: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tenant: _Optional[str] = ..., user: _Optional[str] = ..., agent: _Optional[str] = ..., session: _Optional[str] = ..., run: _Optional[str] = ..., task: _Optional[str] = ..., project: _Optional[str] = ..., namespace: _Optional[_Iterable[str]] = ...) -> None: ...

class Routing(_message.Message):
    __slots__ = ("agent", "caller_agent", "sender", "recipients", "cause", "parent_run", "trace_id")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    CALLER_AGENT_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    RECIPIENTS_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    PARENT_RUN_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    agent: str
    caller_agent: str
    sender: str
    recipients: _containers.RepeatedScalarFieldContainer[str]
    cause: str
    parent_run: str
    trace_id: str
    def __init__(self, agent: _Optional[str] = ..., caller_agent: _Optional[str] = ..., sender: _Optional[str] = ..., recipients: _Optional[_Iterable[str]] = ..., cause: _Optional[str] = ..., parent_run: _Optional[str] = ..., trace_id: _Optional[str] = ...) -> None: ...

class Message(_message.Message):
    __slots__ = ("role", "name", "content", "status", "phase", "citations")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CITATIONS_FIELD_NUMBER: _ClassVar[int]
    role: Role
    name: str
    content: _containers.RepeatedCompositeFieldContainer[ContentPart]
    status: MessageStatus
    phase: str
    citations: _containers.RepeatedCompositeFieldContainer[Annotation]
    def __init__(self, role: _Optional[_Union[Role, str]] = ..., name: _Optional[str] = ..., content: _Optional[_Iterable[_Union[ContentPart, _Mapping]]] = ..., status: _Optional[_Union[MessageStatus, str]] = ..., phase: _Optional[str] = ..., citations: _Optional[_Iterable[_Union[Annotation, _Mapping]]] = ...) -> None: ...

class ContentPart(_message.Message):
    __slots__ = ("id", "text", "image", "audio", "video", "file", "data", "reasoning", "refusal", "tool_call", "tool_result", "extensions")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    AUDIO_FIELD_NUMBER: _ClassVar[int]
    VIDEO_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    EXTENSIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: TextPart
    image: MediaPart
    audio: MediaPart
    video: MediaPart
    file: MediaPart
    data: DataPart
    reasoning: ReasoningPart
    refusal: RefusalPart
    tool_call: ToolCall
    tool_result: ToolResult
    extensions: _containers.RepeatedCompositeFieldContainer[_value_pb2.MapEntry]
    def __init__(self, id: _Optional[str] = ..., text: _Optional[_Union[TextPart, _Mapping]] = ..., image: _Optional[_Union[MediaPart, _Mapping]] = ..., audio: _Optional[_Union[MediaPart, _Mapping]] = ..., video: _Optional[_Union[MediaPart, _Mapping]] = ..., file: _Optional[_Union[MediaPart, _Mapping]] = ..., data: _Optional[_Union[DataPart, _Mapping]] = ..., reasoning: _Optional[_Union[ReasoningPart, _Mapping]] = ..., refusal: _Optional[_Union[RefusalPart, _Mapping]] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., tool_result: _Optional[_Union[ToolResult, _Mapping]] = ..., extensions: _Optional[_Iterable[_Union[_value_pb2.MapEntry, _Mapping]]] = ...) -> None: ...

class TextPart(_message.Message):
    __slots__ = ("text", "annotations")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    text: str
    annotations: _containers.RepeatedCompositeFieldContainer[Annotation]
    def __init__(self, text: _Optional[str] = ..., annotations: _Optional[_Iterable[_Union[Annotation, _Mapping]]] = ...) -> None: ...

class Annotation(_message.Message):
    __slots__ = ("type", "url", "title", "file_id", "filename", "text", "index", "start_index", "end_index")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    START_INDEX_FIELD_NUMBER: _ClassVar[int]
    END_INDEX_FIELD_NUMBER: _ClassVar[int]
    type: str
    url: str
    title: str
    file_id: str
    filename: str
    text: str
    index: int
    start_index: int
    end_index: int
    def __init__(self, type: _Optional[str] = ..., url: _Optional[str] = ..., title: _Optional[str] = ..., file_id: _Optional[str] = ..., filename: _Optional[str] = ..., text: _Optional[str] = ..., index: _Optional[int] = ..., start_index: _Optional[int] = ..., end_index: _Optional[int] = ...) -> None: ...

class MediaPart(_message.Message):
    __slots__ = ("uri", "data", "media_type", "file_id", "filename", "detail")
    URI_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    uri: str
    data: bytes
    media_type: str
    file_id: str
    filename: str
    detail: str
    def __init__(self, uri: _Optional[str] = ..., data: _Optional[bytes] = ..., media_type: _Optional[str] = ..., file_id: _Optional[str] = ..., filename: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class DataPart(_message.Message):
    __slots__ = ("value", "schema")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_FIELD_NUMBER: _ClassVar[int]
    value: _value_pb2.Value
    schema: str
    def __init__(self, value: _Optional[_Union[_value_pb2.Value, _Mapping]] = ..., schema: _Optional[str] = ...) -> None: ...

class ReasoningPart(_message.Message):
    __slots__ = ("text", "summary", "signature", "encrypted_content")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    text: str
    summary: _containers.RepeatedScalarFieldContainer[str]
    signature: str
    encrypted_content: str
    def __init__(self, text: _Optional[str] = ..., summary: _Optional[_Iterable[str]] = ..., signature: _Optional[str] = ..., encrypted_content: _Optional[str] = ...) -> None: ...

class RefusalPart(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ToolCall(_message.Message):
    __slots__ = ("call_id", "name", "arguments", "tool_type", "status", "error")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    TOOL_TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    name: str
    arguments: str
    tool_type: str
    status: ToolCallStatus
    error: str
    def __init__(self, call_id: _Optional[str] = ..., name: _Optional[str] = ..., arguments: _Optional[str] = ..., tool_type: _Optional[str] = ..., status: _Optional[_Union[ToolCallStatus, str]] = ..., error: _Optional[str] = ...) -> None: ...

class ToolResult(_message.Message):
    __slots__ = ("call_id", "name", "output", "output_parts", "status", "stdout", "stderr", "duration_micros", "error", "artifact")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_PARTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    DURATION_MICROS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    name: str
    output: str
    output_parts: _containers.RepeatedCompositeFieldContainer[ContentPart]
    status: ToolResultStatus
    stdout: str
    stderr: str
    duration_micros: int
    error: str
    artifact: _value_pb2.Value
    def __init__(self, call_id: _Optional[str] = ..., name: _Optional[str] = ..., output: _Optional[str] = ..., output_parts: _Optional[_Iterable[_Union[ContentPart, _Mapping]]] = ..., status: _Optional[_Union[ToolResultStatus, str]] = ..., stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., duration_micros: _Optional[int] = ..., error: _Optional[str] = ..., artifact: _Optional[_Union[_value_pb2.Value, _Mapping]] = ...) -> None: ...

class Fact(_message.Message):
    __slots__ = ("text", "subject", "predicate", "object", "category")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    text: str
    subject: str
    predicate: str
    object: str
    category: FactCategory
    def __init__(self, text: _Optional[str] = ..., subject: _Optional[str] = ..., predicate: _Optional[str] = ..., object: _Optional[str] = ..., category: _Optional[_Union[FactCategory, str]] = ...) -> None: ...

class Episode(_message.Message):
    __slots__ = ("text", "event_time", "end_time", "participants", "location", "outcome")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    PARTICIPANTS_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    text: str
    event_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    participants: _containers.RepeatedScalarFieldContainer[str]
    location: str
    outcome: str
    def __init__(self, text: _Optional[str] = ..., event_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., participants: _Optional[_Iterable[str]] = ..., location: _Optional[str] = ..., outcome: _Optional[str] = ...) -> None: ...

class Procedure(_message.Message):
    __slots__ = ("name", "description", "states", "initial_state", "current_state", "transitions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    INITIAL_STATE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_STATE_FIELD_NUMBER: _ClassVar[int]
    TRANSITIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    states: _containers.RepeatedScalarFieldContainer[str]
    initial_state: str
    current_state: str
    transitions: _containers.RepeatedCompositeFieldContainer[Transition]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., states: _Optional[_Iterable[str]] = ..., initial_state: _Optional[str] = ..., current_state: _Optional[str] = ..., transitions: _Optional[_Iterable[_Union[Transition, _Mapping]]] = ...) -> None: ...

class Transition(_message.Message):
    __slots__ = ("trigger", "source", "target")
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    trigger: str
    source: str
    target: str
    def __init__(self, trigger: _Optional[str] = ..., source: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class Emotion(_message.Message):
    __slots__ = ("text", "sentiment", "valence", "arousal", "emotion", "target")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SENTIMENT_FIELD_NUMBER: _ClassVar[int]
    VALENCE_FIELD_NUMBER: _ClassVar[int]
    AROUSAL_FIELD_NUMBER: _ClassVar[int]
    EMOTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    text: str
    sentiment: Sentiment
    valence: float
    arousal: float
    emotion: str
    target: str
    def __init__(self, text: _Optional[str] = ..., sentiment: _Optional[_Union[Sentiment, str]] = ..., valence: _Optional[float] = ..., arousal: _Optional[float] = ..., emotion: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class Summary(_message.Message):
    __slots__ = ("text", "covers", "first_sequence", "last_sequence")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    COVERS_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    text: str
    covers: _containers.RepeatedScalarFieldContainer[str]
    first_sequence: int
    last_sequence: int
    def __init__(self, text: _Optional[str] = ..., covers: _Optional[_Iterable[str]] = ..., first_sequence: _Optional[int] = ..., last_sequence: _Optional[int] = ...) -> None: ...

class MemoryBlock(_message.Message):
    __slots__ = ("label", "value", "limit", "read_only", "description")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    label: str
    value: str
    limit: int
    read_only: bool
    description: str
    def __init__(self, label: _Optional[str] = ..., value: _Optional[str] = ..., limit: _Optional[int] = ..., read_only: _Optional[bool] = ..., description: _Optional[str] = ...) -> None: ...

class CustomRecord(_message.Message):
    __slots__ = ("type", "schema", "value")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    type: str
    schema: str
    value: _value_pb2.Value
    def __init__(self, type: _Optional[str] = ..., schema: _Optional[str] = ..., value: _Optional[_Union[_value_pb2.Value, _Mapping]] = ...) -> None: ...

class EncryptedPayload(_message.Message):
    __slots__ = ("algorithm", "key_id", "nonce", "ciphertext", "aad")
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    CIPHERTEXT_FIELD_NUMBER: _ClassVar[int]
    AAD_FIELD_NUMBER: _ClassVar[int]
    algorithm: str
    key_id: str
    nonce: bytes
    ciphertext: bytes
    aad: bytes
    def __init__(self, algorithm: _Optional[str] = ..., key_id: _Optional[str] = ..., nonce: _Optional[bytes] = ..., ciphertext: _Optional[bytes] = ..., aad: _Optional[bytes] = ...) -> None: ...

class Link(_message.Message):
    __slots__ = ("type", "target")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    type: LinkType
    target: str
    def __init__(self, type: _Optional[_Union[LinkType, str]] = ..., target: _Optional[str] = ...) -> None: ...

class Lifecycle(_message.Message):
    __slots__ = ("status", "importance", "confidence", "access_count", "last_accessed_at", "expires_at", "pinned", "deleted_at", "reason")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    ACCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACCESSED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    PINNED_FIELD_NUMBER: _ClassVar[int]
    DELETED_AT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    status: RecordStatus
    importance: float
    confidence: float
    access_count: int
    last_accessed_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    pinned: bool
    deleted_at: _timestamp_pb2.Timestamp
    reason: str
    def __init__(self, status: _Optional[_Union[RecordStatus, str]] = ..., importance: _Optional[float] = ..., confidence: _Optional[float] = ..., access_count: _Optional[int] = ..., last_accessed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., pinned: _Optional[bool] = ..., deleted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class Provenance(_message.Message):
    __slots__ = ("origin", "source", "trust", "content_hash", "actor")
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TRUST_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    origin: Origin
    source: str
    trust: TrustLevel
    content_hash: str
    actor: str
    def __init__(self, origin: _Optional[_Union[Origin, str]] = ..., source: _Optional[str] = ..., trust: _Optional[_Union[TrustLevel, str]] = ..., content_hash: _Optional[str] = ..., actor: _Optional[str] = ...) -> None: ...

class Embedding(_message.Message):
    __slots__ = ("model", "dimensions", "values", "field")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSIONS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    model: str
    dimensions: int
    values: _containers.RepeatedScalarFieldContainer[float]
    field: str
    def __init__(self, model: _Optional[str] = ..., dimensions: _Optional[int] = ..., values: _Optional[_Iterable[float]] = ..., field: _Optional[str] = ...) -> None: ...

class NativeRecord(_message.Message):
    __slots__ = ("framework", "framework_version", "format", "record")
    FRAMEWORK_FIELD_NUMBER: _ClassVar[int]
    FRAMEWORK_VERSION_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    framework: str
    framework_version: str
    format: str
    record: _value_pb2.Value
    def __init__(self, framework: _Optional[str] = ..., framework_version: _Optional[str] = ..., format: _Optional[str] = ..., record: _Optional[_Union[_value_pb2.Value, _Mapping]] = ...) -> None: ...
