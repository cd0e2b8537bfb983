"""The named string formats of the rules (spec/v1/core.md, section 3).

Each format is one regular expression written in the common subset of
Python's and ECMA-262's syntax, so that the codec, the JSON Schemas (as a
``pattern``, which every stock validator runs) and the reference validator
read it the same way. An empty string is a field's default, which counts as
absent: the codec does not check it, and the schemas accept it.
"""

from __future__ import annotations

import re

#: White space as Python's ``\s`` reads it (str.isspace), spelled out: ``\s``
#: of ECMA-262 is a different set.
_SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
#: RFC 6838 restricted-name characters.
_TOKEN = r"[A-Za-z0-9!#$&^_.+-]+"

FORMATS: dict[str, str] = {
    # RFC 3986: a scheme, then anything but spaces and controls.
    "uri": rf"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x1f\x7f{_SPACE}]*",
    "uri-reference": rf"[^\x00-\x1f\x7f{_SPACE}]*",
    # RFC 6838: type "/" subtype, then parameters.
    "media-type": rf'{_TOKEN}/{_TOKEN}(?:[{_SPACE}]*;[{_SPACE}]*{_TOKEN}=(?:{_TOKEN}|"[^"]*"))*',
    # RFC 6901: empty, or "/"-separated tokens in which "~" is only "~0" or "~1".
    "json-pointer": r"(?:/(?:[^~/]|~[01])*)*",
}

#: The syntax of an enum value's JSON and MessagePack name; a document of a
#: newer minor version may hold one this reader does not know
#: (spec/v1/versioning.md, section 3.2).
ENUM_NAME = r"[a-z][a-z0-9_]*"

_COMPILED = {name: re.compile(pattern) for name, pattern in FORMATS.items()}


def check_format(v: str, name: str) -> bool:
    """Whether a string has the named format of the rules."""
    return _COMPILED[name].fullmatch(v) is not None


def schema_pattern(name: str) -> str:
    """The JSON Schema ``pattern`` of a format: the format, or the empty string."""
    return f"^(?:{FORMATS[name]})?$"
