"""The loss report of a bridge: what of each record the target format
cannot carry in its own fields, and where it went (spec/v1/adapters/README.md
§12).

The JSON shape (``LossReport.to_json()``)::

    {"form": "pam.memory_store", "records": 12,
     "entries": [{"record": 3, "id": "r-7", "pointer": "/fact/subject",
                  "change": "set", "kept": "/0/memories/2/metadata/memorywire",
                  "reason": "NOT_REPRESENTABLE"}]}

``record`` is the index of the record in the list given, ``id`` its id,
``pointer`` a JSON Pointer into the record, ``change`` ``"set"`` (the
member's value is not carried by the target's own fields) or ``"absent"``
(the target's own fields carry a value the record lacks, such as a time the
target requires), ``kept`` the JSON Pointer into the items of the extension
point that holds it, or null when nothing holds it (the member is lost).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memorywire.adapters._patch import paths


@dataclass(frozen=True)
class LossEntry:
    """One member of one record that the target's own fields do not carry."""

    record: int
    id: str
    pointer: str
    change: str
    kept: str | None
    reason: str = "NOT_REPRESENTABLE"

    def to_json(self) -> dict[str, Any]:
        return {"record": self.record, "id": self.id, "pointer": self.pointer, "change": self.change,
                "kept": self.kept, "reason": self.reason}


@dataclass
class LossReport:
    """The loss report of one ``from_records`` of a bridge form."""

    form: str
    records: int = 0
    entries: list[LossEntry] = field(default_factory=list)

    @property
    def lost(self) -> list[LossEntry]:
        """The entries that nothing holds."""
        return [e for e in self.entries if e.kept is None]

    def add_patch(self, index: int, record: Mapping[str, Any], patch: Mapping[str, Any], kept: str | None) -> None:
        """One entry per member that ``patch`` (a remainder) changes."""
        rid = str(record.get("id", ""))
        for pointer, change in sorted(paths(patch)):
            self.entries.append(LossEntry(index, rid, pointer, change, kept))

    def to_json(self) -> dict[str, Any]:
        return {"form": self.form, "records": self.records, "entries": [e.to_json() for e in self.entries]}
