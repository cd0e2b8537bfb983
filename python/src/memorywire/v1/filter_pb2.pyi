from memorywire.v1 import options_pb2 as _options_pb2
from memorywire.v1 import value_pb2 as _value_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ComparisonOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPARISON_OPERATOR_UNSPECIFIED: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_EQ: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_NE: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_GT: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_GTE: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_LT: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_LTE: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_IN: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_EXISTS: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_PREFIX: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_CONTAINS: _ClassVar[ComparisonOperator]
COMPARISON_OPERATOR_UNSPECIFIED: ComparisonOperator
COMPARISON_OPERATOR_EQ: ComparisonOperator
COMPARISON_OPERATOR_NE: ComparisonOperator
COMPARISON_OPERATOR_GT: ComparisonOperator
COMPARISON_OPERATOR_GTE: ComparisonOperator
COMPARISON_OPERATOR_LT: ComparisonOperator
COMPARISON_OPERATOR_LTE: ComparisonOperator
COMPARISON_OPERATOR_IN: ComparisonOperator
COMPARISON_OPERATOR_EXISTS: ComparisonOperator
COMPARISON_OPERATOR_PREFIX: ComparisonOperator
COMPARISON_OPERATOR_CONTAINS: ComparisonOperator

class Filter(_message.Message):
    __slots__ = ("all", "any", "compare")
    ALL_FIELD_NUMBER: _ClassVar[int]
    ANY_FIELD_NUMBER: _ClassVar[int]
    NOT_FIELD_NUMBER: _ClassVar[int]
    COMPARE_FIELD_NUMBER: _ClassVar[int]
    all: FilterList
    any: FilterList
    compare: Comparison
    def __init__(self, all: _Optional[_Union[FilterList, _Mapping]] = ..., any: _Optional[_Union[FilterList, _Mapping]] = ..., compare: _Optional[_Union[Comparison, _Mapping]] = ..., **kwargs) -> None: ...

class FilterList(_message.Message):
    __slots__ = ("filters",)
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    filters: _containers.RepeatedCompositeFieldContainer[Filter]
    def __init__(self, filters: _Optional[_Iterable[_Union[Filter, _Mapping]]] = ...) -> None: ...

class Comparison(_message.Message):
    __slots__ = ("field", "operator", "value")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    field: str
    operator: ComparisonOperator
    value: _value_pb2.Value
    def __init__(self, field: _Optional[str] = ..., operator: _Optional[_Union[ComparisonOperator, str]] = ..., value: _Optional[_Union[_value_pb2.Value, _Mapping]] = ...) -> None: ...
