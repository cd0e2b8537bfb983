from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor
RULES_FIELD_NUMBER: _ClassVar[int]
rules: _descriptor.FieldDescriptor

class FieldRules(_message.Message):
    __slots__ = ("required", "min_length", "max_length", "pattern", "min_items", "max_items", "minimum", "maximum", "format", "key_pattern")
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    MIN_LENGTH_FIELD_NUMBER: _ClassVar[int]
    MAX_LENGTH_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    MIN_ITEMS_FIELD_NUMBER: _ClassVar[int]
    MAX_ITEMS_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    KEY_PATTERN_FIELD_NUMBER: _ClassVar[int]
    required: bool
    min_length: int
    max_length: int
    pattern: str
    min_items: int
    max_items: int
    minimum: float
    maximum: float
    format: str
    key_pattern: str
    def __init__(self, required: _Optional[bool] = ..., min_length: _Optional[int] = ..., max_length: _Optional[int] = ..., pattern: _Optional[str] = ..., min_items: _Optional[int] = ..., max_items: _Optional[int] = ..., minimum: _Optional[float] = ..., maximum: _Optional[float] = ..., format: _Optional[str] = ..., key_pattern: _Optional[str] = ...) -> None: ...
