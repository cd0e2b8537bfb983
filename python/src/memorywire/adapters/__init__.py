"""Adapters: the records of agent frameworks as memorywire records, and back.

``FORMS`` maps each form name (``"langchain.messages_to_dict"``) to a
:class:`Form`, whose ``to_records(items, **scope)`` gives the records of a
list of framework items and ``from_records(records)`` the items again,
exactly and in their order. The conventions every form follows are
spec/v1/adapters/README.md; each framework has its own document beside it.
"""

from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    align,
    canonical_json,
    from_value,
    is_generated,
    is_unmapped,
    isoformat,
    keep_text,
    media_from_uri,
    micros_to_time,
    ordered,
    parse_time,
    split_time,
    sqlite_time,
    time_to_micros,
    to_value,
    unmapped,
    unmapped_value,
    uri_from_media,
)
from memorywire.adapters._registry import forms as _forms

#: Every form, by name.
FORMS = _forms()

__all__ = [
    "FORMS",
    "AdapterError",
    "Form",
    "Ids",
    "align",
    "canonical_json",
    "from_value",
    "is_generated",
    "is_unmapped",
    "isoformat",
    "keep_text",
    "media_from_uri",
    "micros_to_time",
    "ordered",
    "parse_time",
    "split_time",
    "sqlite_time",
    "time_to_micros",
    "to_value",
    "unmapped",
    "unmapped_value",
    "uri_from_media",
]
