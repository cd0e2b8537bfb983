import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memorywire.v1 import error_pb2 as _error_pb2
from memorywire.v1 import filter_pb2 as _filter_pb2
from memorywire.v1 import options_pb2 as _options_pb2
from memorywire.v1 import record_pb2 as _record_pb2
from memorywire.v1 import value_pb2 as _value_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PutMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PUT_MODE_UNSPECIFIED: _ClassVar[PutMode]
    PUT_MODE_UPSERT: _ClassVar[PutMode]
    PUT_MODE_CREATE: _ClassVar[PutMode]

class PutStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PUT_STATUS_UNSPECIFIED: _ClassVar[PutStatus]
    PUT_STATUS_CREATED: _ClassVar[PutStatus]
    PUT_STATUS_UPDATED: _ClassVar[PutStatus]
    PUT_STATUS_UNCHANGED: _ClassVar[PutStatus]
    PUT_STATUS_STAGED: _ClassVar[PutStatus]
    PUT_STATUS_FAILED: _ClassVar[PutStatus]

class HistoryThread(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HISTORY_THREAD_UNSPECIFIED: _ClassVar[HistoryThread]
    HISTORY_THREAD_ALL: _ClassVar[HistoryThread]
    HISTORY_THREAD_USER: _ClassVar[HistoryThread]
    HISTORY_THREAD_BETWEEN: _ClassVar[HistoryThread]

class SortOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SORT_ORDER_UNSPECIFIED: _ClassVar[SortOrder]
    SORT_ORDER_ASCENDING: _ClassVar[SortOrder]
    SORT_ORDER_DESCENDING: _ClassVar[SortOrder]

class FusionMethod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FUSION_METHOD_UNSPECIFIED: _ClassVar[FusionMethod]
    FUSION_METHOD_RRF: _ClassVar[FusionMethod]
    FUSION_METHOD_WEIGHTED: _ClassVar[FusionMethod]

class DeleteMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DELETE_MODE_UNSPECIFIED: _ClassVar[DeleteMode]
    DELETE_MODE_SOFT: _ClassVar[DeleteMode]
    DELETE_MODE_HARD: _ClassVar[DeleteMode]

class ExpireAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXPIRE_ACTION_UNSPECIFIED: _ClassVar[ExpireAction]
    EXPIRE_ACTION_ARCHIVE: _ClassVar[ExpireAction]
    EXPIRE_ACTION_DELETE: _ClassVar[ExpireAction]
    EXPIRE_ACTION_DEMOTE: _ClassVar[ExpireAction]

class MergeStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MERGE_STRATEGY_UNSPECIFIED: _ClassVar[MergeStrategy]
    MERGE_STRATEGY_KEEP_TARGET: _ClassVar[MergeStrategy]
    MERGE_STRATEGY_KEEP_NEWEST: _ClassVar[MergeStrategy]
    MERGE_STRATEGY_KEEP_HIGHEST: _ClassVar[MergeStrategy]

class CompactDisposition(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPACT_DISPOSITION_UNSPECIFIED: _ClassVar[CompactDisposition]
    COMPACT_DISPOSITION_ARCHIVE: _ClassVar[CompactDisposition]
    COMPACT_DISPOSITION_DELETE: _ClassVar[CompactDisposition]
    COMPACT_DISPOSITION_KEEP: _ClassVar[CompactDisposition]

class ReviewDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REVIEW_DECISION_UNSPECIFIED: _ClassVar[ReviewDecision]
    REVIEW_DECISION_APPROVE: _ClassVar[ReviewDecision]
    REVIEW_DECISION_REJECT: _ClassVar[ReviewDecision]
    REVIEW_DECISION_AMEND: _ClassVar[ReviewDecision]

class ChangeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHANGE_TYPE_UNSPECIFIED: _ClassVar[ChangeType]
    CHANGE_TYPE_CREATED: _ClassVar[ChangeType]
    CHANGE_TYPE_UPDATED: _ClassVar[ChangeType]
    CHANGE_TYPE_DELETED: _ClassVar[ChangeType]

class SignatureAlgorithm(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIGNATURE_ALGORITHM_UNSPECIFIED: _ClassVar[SignatureAlgorithm]
    SIGNATURE_ALGORITHM_ED25519: _ClassVar[SignatureAlgorithm]

class ImportConflict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IMPORT_CONFLICT_UNSPECIFIED: _ClassVar[ImportConflict]
    IMPORT_CONFLICT_OVERWRITE: _ClassVar[ImportConflict]
    IMPORT_CONFLICT_SKIP: _ClassVar[ImportConflict]
    IMPORT_CONFLICT_NEW_ID: _ClassVar[ImportConflict]
    IMPORT_CONFLICT_MERGE: _ClassVar[ImportConflict]

class ImportMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IMPORT_MODE_UNSPECIFIED: _ClassVar[ImportMode]
    IMPORT_MODE_MERGE: _ClassVar[ImportMode]
    IMPORT_MODE_REPLACE: _ClassVar[ImportMode]
PUT_MODE_UNSPECIFIED: PutMode
PUT_MODE_UPSERT: PutMode
PUT_MODE_CREATE: PutMode
PUT_STATUS_UNSPECIFIED: PutStatus
PUT_STATUS_CREATED: PutStatus
PUT_STATUS_UPDATED: PutStatus
PUT_STATUS_UNCHANGED: PutStatus
PUT_STATUS_STAGED: PutStatus
PUT_STATUS_FAILED: PutStatus
HISTORY_THREAD_UNSPECIFIED: HistoryThread
HISTORY_THREAD_ALL: HistoryThread
HISTORY_THREAD_USER: HistoryThread
HISTORY_THREAD_BETWEEN: HistoryThread
SORT_ORDER_UNSPECIFIED: SortOrder
SORT_ORDER_ASCENDING: SortOrder
SORT_ORDER_DESCENDING: SortOrder
FUSION_METHOD_UNSPECIFIED: FusionMethod
FUSION_METHOD_RRF: FusionMethod
FUSION_METHOD_WEIGHTED: FusionMethod
DELETE_MODE_UNSPECIFIED: DeleteMode
DELETE_MODE_SOFT: DeleteMode
DELETE_MODE_HARD: DeleteMode
EXPIRE_ACTION_UNSPECIFIED: ExpireAction
EXPIRE_ACTION_ARCHIVE: ExpireAction
EXPIRE_ACTION_DELETE: ExpireAction
EXPIRE_ACTION_DEMOTE: ExpireAction
MERGE_STRATEGY_UNSPECIFIED: MergeStrategy
MERGE_STRATEGY_KEEP_TARGET: MergeStrategy
MERGE_STRATEGY_KEEP_NEWEST: MergeStrategy
MERGE_STRATEGY_KEEP_HIGHEST: MergeStrategy
COMPACT_DISPOSITION_UNSPECIFIED: CompactDisposition
COMPACT_DISPOSITION_ARCHIVE: CompactDisposition
COMPACT_DISPOSITION_DELETE: CompactDisposition
COMPACT_DISPOSITION_KEEP: CompactDisposition
REVIEW_DECISION_UNSPECIFIED: ReviewDecision
REVIEW_DECISION_APPROVE: ReviewDecision
REVIEW_DECISION_REJECT: ReviewDecision
REVIEW_DECISION_AMEND: ReviewDecision
CHANGE_TYPE_UNSPECIFIED: ChangeType
CHANGE_TYPE_CREATED: ChangeType
CHANGE_TYPE_UPDATED: ChangeType
CHANGE_TYPE_DELETED: ChangeType
SIGNATURE_ALGORITHM_UNSPECIFIED: SignatureAlgorithm
SIGNATURE_ALGORITHM_ED25519: SignatureAlgorithm
IMPORT_CONFLICT_UNSPECIFIED: ImportConflict
IMPORT_CONFLICT_OVERWRITE: ImportConflict
IMPORT_CONFLICT_SKIP: ImportConflict
IMPORT_CONFLICT_NEW_ID: ImportConflict
IMPORT_CONFLICT_MERGE: ImportConflict
IMPORT_MODE_UNSPECIFIED: ImportMode
IMPORT_MODE_MERGE: ImportMode
IMPORT_MODE_REPLACE: ImportMode

class PutRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "items", "atomic", "require_approval")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    ATOMIC_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    items: _containers.RepeatedCompositeFieldContainer[PutItem]
    atomic: bool
    require_approval: bool
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[PutItem, _Mapping]]] = ..., atomic: _Optional[bool] = ..., require_approval: _Optional[bool] = ...) -> None: ...

class PutItem(_message.Message):
    __slots__ = ("record", "expected_revision", "mode")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_REVISION_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    record: _record_pb2.MemoryRecord
    expected_revision: int
    mode: PutMode
    def __init__(self, record: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ..., expected_revision: _Optional[int] = ..., mode: _Optional[_Union[PutMode, str]] = ...) -> None: ...

class PutResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "results")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    results: _containers.RepeatedCompositeFieldContainer[PutResult]
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., results: _Optional[_Iterable[_Union[PutResult, _Mapping]]] = ...) -> None: ...

class PutResult(_message.Message):
    __slots__ = ("id", "status", "sequence", "revision", "error")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    id: str
    status: PutStatus
    sequence: int
    revision: int
    error: _error_pb2.Error
    def __init__(self, id: _Optional[str] = ..., status: _Optional[_Union[PutStatus, str]] = ..., sequence: _Optional[int] = ..., revision: _Optional[int] = ..., error: _Optional[_Union[_error_pb2.Error, _Mapping]] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "ids", "include_deleted", "touch")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_DELETED_FIELD_NUMBER: _ClassVar[int]
    TOUCH_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    ids: _containers.RepeatedScalarFieldContainer[str]
    include_deleted: bool
    touch: bool
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., ids: _Optional[_Iterable[str]] = ..., include_deleted: _Optional[bool] = ..., touch: _Optional[bool] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "records", "missing_ids")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    MISSING_IDS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    records: _containers.RepeatedCompositeFieldContainer[_record_pb2.MemoryRecord]
    missing_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., records: _Optional[_Iterable[_Union[_record_pb2.MemoryRecord, _Mapping]]] = ..., missing_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class HistoryRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "thread", "agents", "kinds", "cursor", "limit", "order", "branch")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    thread: HistoryThread
    agents: _containers.RepeatedScalarFieldContainer[str]
    kinds: _containers.RepeatedScalarFieldContainer[_record_pb2.RecordKind]
    cursor: str
    limit: int
    order: SortOrder
    branch: str
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., thread: _Optional[_Union[HistoryThread, str]] = ..., agents: _Optional[_Iterable[str]] = ..., kinds: _Optional[_Iterable[_Union[_record_pb2.RecordKind, str]]] = ..., cursor: _Optional[str] = ..., limit: _Optional[int] = ..., order: _Optional[_Union[SortOrder, str]] = ..., branch: _Optional[str] = ...) -> None: ...

class HistoryResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "records", "next_cursor")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    records: _containers.RepeatedCompositeFieldContainer[_record_pb2.MemoryRecord]
    next_cursor: str
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., records: _Optional[_Iterable[_Union[_record_pb2.MemoryRecord, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "filter", "text", "vector", "fusion", "limit", "cursor", "min_score", "touch", "include_archived", "exact")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    VECTOR_FIELD_NUMBER: _ClassVar[int]
    FUSION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
    TOUCH_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    filter: _filter_pb2.Filter
    text: str
    vector: VectorQuery
    fusion: Fusion
    limit: int
    cursor: str
    min_score: float
    touch: bool
    include_archived: bool
    exact: bool
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., filter: _Optional[_Union[_filter_pb2.Filter, _Mapping]] = ..., text: _Optional[str] = ..., vector: _Optional[_Union[VectorQuery, _Mapping]] = ..., fusion: _Optional[_Union[Fusion, _Mapping]] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ..., min_score: _Optional[float] = ..., touch: _Optional[bool] = ..., include_archived: _Optional[bool] = ..., exact: _Optional[bool] = ...) -> None: ...

class VectorQuery(_message.Message):
    __slots__ = ("model", "values")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    model: str
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, model: _Optional[str] = ..., values: _Optional[_Iterable[float]] = ...) -> None: ...

class Fusion(_message.Message):
    __slots__ = ("method", "rrf_k", "text_weight")
    METHOD_FIELD_NUMBER: _ClassVar[int]
    RRF_K_FIELD_NUMBER: _ClassVar[int]
    TEXT_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    method: FusionMethod
    rrf_k: int
    text_weight: float
    def __init__(self, method: _Optional[_Union[FusionMethod, str]] = ..., rrf_k: _Optional[int] = ..., text_weight: _Optional[float] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "hits", "next_cursor", "approximate")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    HITS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    APPROXIMATE_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    next_cursor: str
    approximate: bool
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., next_cursor: _Optional[str] = ..., approximate: _Optional[bool] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("record", "score", "text_score", "vector_score")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TEXT_SCORE_FIELD_NUMBER: _ClassVar[int]
    VECTOR_SCORE_FIELD_NUMBER: _ClassVar[int]
    record: _record_pb2.MemoryRecord
    score: float
    text_score: float
    vector_score: float
    def __init__(self, record: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ..., score: _Optional[float] = ..., text_score: _Optional[float] = ..., vector_score: _Optional[float] = ...) -> None: ...

class UpdateRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "id", "patch", "expected_revision")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_REVISION_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    id: str
    patch: _value_pb2.Value
    expected_revision: int
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., patch: _Optional[_Union[_value_pb2.Value, _Mapping]] = ..., expected_revision: _Optional[int] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "record")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    record: _record_pb2.MemoryRecord
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., record: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ...) -> None: ...

class DeleteRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "ids", "filter", "mode", "reason", "expected_revision")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_REVISION_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    ids: _containers.RepeatedScalarFieldContainer[str]
    filter: _filter_pb2.Filter
    mode: DeleteMode
    reason: str
    expected_revision: int
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., ids: _Optional[_Iterable[str]] = ..., filter: _Optional[_Union[_filter_pb2.Filter, _Mapping]] = ..., mode: _Optional[_Union[DeleteMode, str]] = ..., reason: _Optional[str] = ..., expected_revision: _Optional[int] = ...) -> None: ...

class DeleteResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "deleted_ids")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    DELETED_IDS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    deleted_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., deleted_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ExpireRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "policy", "action", "dry_run", "as_of")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    policy: ExpirePolicy
    action: ExpireAction
    dry_run: bool
    as_of: _timestamp_pb2.Timestamp
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., policy: _Optional[_Union[ExpirePolicy, _Mapping]] = ..., action: _Optional[_Union[ExpireAction, str]] = ..., dry_run: _Optional[bool] = ..., as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExpirePolicy(_message.Message):
    __slots__ = ("older_than_seconds", "not_accessed_seconds", "importance_below", "half_life_seconds", "kinds", "past_expiry")
    OLDER_THAN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    NOT_ACCESSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_BELOW_FIELD_NUMBER: _ClassVar[int]
    HALF_LIFE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    PAST_EXPIRY_FIELD_NUMBER: _ClassVar[int]
    older_than_seconds: int
    not_accessed_seconds: int
    importance_below: float
    half_life_seconds: int
    kinds: _containers.RepeatedScalarFieldContainer[_record_pb2.RecordKind]
    past_expiry: bool
    def __init__(self, older_than_seconds: _Optional[int] = ..., not_accessed_seconds: _Optional[int] = ..., importance_below: _Optional[float] = ..., half_life_seconds: _Optional[int] = ..., kinds: _Optional[_Iterable[_Union[_record_pb2.RecordKind, str]]] = ..., past_expiry: _Optional[bool] = ...) -> None: ...

class ExpireResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "expired_ids")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_IDS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    expired_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., expired_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MergeRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "target_id", "source_ids", "strategy", "expected_revision")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_IDS_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_REVISION_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    target_id: str
    source_ids: _containers.RepeatedScalarFieldContainer[str]
    strategy: MergeStrategy
    expected_revision: int
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., target_id: _Optional[str] = ..., source_ids: _Optional[_Iterable[str]] = ..., strategy: _Optional[_Union[MergeStrategy, str]] = ..., expected_revision: _Optional[int] = ...) -> None: ...

class MergeResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "record", "superseded_ids")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_IDS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    record: _record_pb2.MemoryRecord
    superseded_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., record: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ..., superseded_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class CompactRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "ids", "summary", "disposition")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DISPOSITION_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    ids: _containers.RepeatedScalarFieldContainer[str]
    summary: _record_pb2.MemoryRecord
    disposition: CompactDisposition
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., ids: _Optional[_Iterable[str]] = ..., summary: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ..., disposition: _Optional[_Union[CompactDisposition, str]] = ...) -> None: ...

class CompactResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "summary", "compacted_ids")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    COMPACTED_IDS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    summary: _record_pb2.MemoryRecord
    compacted_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., summary: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ..., compacted_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ReviewRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "id", "decision", "patch", "reviewer", "reason")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    REVIEWER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    id: str
    decision: ReviewDecision
    patch: _value_pb2.Value
    reviewer: str
    reason: str
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., decision: _Optional[_Union[ReviewDecision, str]] = ..., patch: _Optional[_Union[_value_pb2.Value, _Mapping]] = ..., reviewer: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReviewResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "record")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    record: _record_pb2.MemoryRecord
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., record: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "cursor", "consumer", "filter", "from_start", "max_events")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    CONSUMER_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    FROM_START_FIELD_NUMBER: _ClassVar[int]
    MAX_EVENTS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    cursor: str
    consumer: str
    filter: _filter_pb2.Filter
    from_start: bool
    max_events: int
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., cursor: _Optional[str] = ..., consumer: _Optional[str] = ..., filter: _Optional[_Union[_filter_pb2.Filter, _Mapping]] = ..., from_start: _Optional[bool] = ..., max_events: _Optional[int] = ...) -> None: ...

class WatchResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "event")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    event: ChangeEvent
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., event: _Optional[_Union[ChangeEvent, _Mapping]] = ...) -> None: ...

class ChangeEvent(_message.Message):
    __slots__ = ("cursor", "type", "record")
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    cursor: str
    type: ChangeType
    record: _record_pb2.MemoryRecord
    def __init__(self, cursor: _Optional[str] = ..., type: _Optional[_Union[ChangeType, str]] = ..., record: _Optional[_Union[_record_pb2.MemoryRecord, _Mapping]] = ...) -> None: ...

class CommitOffsetRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "consumer", "cursor")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CONSUMER_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    consumer: str
    cursor: str
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., consumer: _Optional[str] = ..., cursor: _Optional[str] = ...) -> None: ...

class CommitOffsetResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "cursor")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    cursor: str
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., cursor: _Optional[str] = ...) -> None: ...

class ExportRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "include_deleted", "filter", "integrity")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_DELETED_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    INTEGRITY_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    include_deleted: bool
    filter: _filter_pb2.Filter
    integrity: bool
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., include_deleted: _Optional[bool] = ..., filter: _Optional[_Union[_filter_pb2.Filter, _Mapping]] = ..., integrity: _Optional[bool] = ...) -> None: ...

class ExportResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "records", "integrity")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    INTEGRITY_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    records: _containers.RepeatedCompositeFieldContainer[_record_pb2.MemoryRecord]
    integrity: ExportIntegrity
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., records: _Optional[_Iterable[_Union[_record_pb2.MemoryRecord, _Mapping]]] = ..., integrity: _Optional[_Union[ExportIntegrity, _Mapping]] = ...) -> None: ...

class ExportIntegrity(_message.Message):
    __slots__ = ("records", "digest", "signature")
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    records: int
    digest: str
    signature: ExportSignature
    def __init__(self, records: _Optional[int] = ..., digest: _Optional[str] = ..., signature: _Optional[_Union[ExportSignature, _Mapping]] = ...) -> None: ...

class ExportSignature(_message.Message):
    __slots__ = ("algorithm", "key_id", "signature")
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    algorithm: SignatureAlgorithm
    key_id: str
    signature: bytes
    def __init__(self, algorithm: _Optional[_Union[SignatureAlgorithm, str]] = ..., key_id: _Optional[str] = ..., signature: _Optional[bytes] = ...) -> None: ...

class ImportRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "records", "mode", "conflict", "deduplicate", "dry_run")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    CONFLICT_FIELD_NUMBER: _ClassVar[int]
    DEDUPLICATE_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    records: _containers.RepeatedCompositeFieldContainer[_record_pb2.MemoryRecord]
    mode: ImportMode
    conflict: ImportConflict
    deduplicate: bool
    dry_run: bool
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., records: _Optional[_Iterable[_Union[_record_pb2.MemoryRecord, _Mapping]]] = ..., mode: _Optional[_Union[ImportMode, str]] = ..., conflict: _Optional[_Union[ImportConflict, str]] = ..., deduplicate: _Optional[bool] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class ImportResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "imported", "created", "replaced", "unchanged", "skipped", "duplicates", "renamed")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    REPLACED_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    RENAMED_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    imported: int
    created: int
    replaced: int
    unchanged: int
    skipped: int
    duplicates: int
    renamed: int
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., imported: _Optional[int] = ..., created: _Optional[int] = ..., replaced: _Optional[int] = ..., unchanged: _Optional[int] = ..., skipped: _Optional[int] = ..., duplicates: _Optional[int] = ..., renamed: _Optional[int] = ...) -> None: ...

class GetCapabilitiesRequest(_message.Message):
    __slots__ = ("specversion", "operation_id")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ...) -> None: ...

class GetCapabilitiesResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "implementation", "implementation_version", "specversions", "operations", "features", "limits")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    IMPLEMENTATION_FIELD_NUMBER: _ClassVar[int]
    IMPLEMENTATION_VERSION_FIELD_NUMBER: _ClassVar[int]
    SPECVERSIONS_FIELD_NUMBER: _ClassVar[int]
    OPERATIONS_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    implementation: str
    implementation_version: str
    specversions: _containers.RepeatedScalarFieldContainer[str]
    operations: _containers.RepeatedScalarFieldContainer[str]
    features: _containers.RepeatedScalarFieldContainer[str]
    limits: Limits
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., implementation: _Optional[str] = ..., implementation_version: _Optional[str] = ..., specversions: _Optional[_Iterable[str]] = ..., operations: _Optional[_Iterable[str]] = ..., features: _Optional[_Iterable[str]] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("max_document_bytes", "max_depth", "max_batch_records", "max_string_bytes", "max_items", "max_dimensions")
    MAX_DOCUMENT_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_RECORDS_FIELD_NUMBER: _ClassVar[int]
    MAX_STRING_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_ITEMS_FIELD_NUMBER: _ClassVar[int]
    MAX_DIMENSIONS_FIELD_NUMBER: _ClassVar[int]
    max_document_bytes: int
    max_depth: int
    max_batch_records: int
    max_string_bytes: int
    max_items: int
    max_dimensions: int
    def __init__(self, max_document_bytes: _Optional[int] = ..., max_depth: _Optional[int] = ..., max_batch_records: _Optional[int] = ..., max_string_bytes: _Optional[int] = ..., max_items: _Optional[int] = ..., max_dimensions: _Optional[int] = ...) -> None: ...

class EraseRequest(_message.Message):
    __slots__ = ("specversion", "operation_id", "scope", "filter")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    scope: _record_pb2.Scope
    filter: _filter_pb2.Filter
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., scope: _Optional[_Union[_record_pb2.Scope, _Mapping]] = ..., filter: _Optional[_Union[_filter_pb2.Filter, _Mapping]] = ...) -> None: ...

class EraseResponse(_message.Message):
    __slots__ = ("specversion", "operation_id", "receipt")
    SPECVERSION_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    specversion: str
    operation_id: str
    receipt: ErasureReceipt
    def __init__(self, specversion: _Optional[str] = ..., operation_id: _Optional[str] = ..., receipt: _Optional[_Union[ErasureReceipt, _Mapping]] = ...) -> None: ...

class ErasureReceipt(_message.Message):
    __slots__ = ("records", "changes", "operations", "digest", "erased_at")
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    OPERATIONS_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    ERASED_AT_FIELD_NUMBER: _ClassVar[int]
    records: int
    changes: int
    operations: int
    digest: str
    erased_at: _timestamp_pb2.Timestamp
    def __init__(self, records: _Optional[int] = ..., changes: _Optional[int] = ..., operations: _Optional[int] = ..., digest: _Optional[str] = ..., erased_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
