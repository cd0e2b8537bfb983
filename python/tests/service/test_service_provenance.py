"""Trust and origin a caller asserts (security.md section 3.3, core.md
section 9.1): this service entitles no caller to trust verified or system, or
to origin system, and lowers them on every write: trust to unverified,
origin system to not recorded."""

from __future__ import annotations

from typing import Any

from service_helpers import fact

from memorywire.client import Client

ASSERTED = {"origin": "system", "trust": "system", "source": "crm-sync", "actor": "ops"}
LOWERED = {"trust": "unverified", "source": "crm-sync", "actor": "ops"}


def provenance(mw: Client, id: str) -> dict[str, Any]:
    rec = mw.get(id)["records"][0]
    out = dict(rec.get("provenance", {}))
    out.pop("content_hash", None)
    return out


def test_put_lowers_asserted_trust_and_origin(mw: Client) -> None:
    mw.put([fact("f1", "x", provenance=ASSERTED),
            fact("f2", "y", provenance={"origin": "tool", "trust": "verified"}),
            fact("f3", "z", provenance={"origin": "user", "trust": "untrusted"})])
    assert provenance(mw, "f1") == LOWERED
    assert provenance(mw, "f2") == {"origin": "tool", "trust": "unverified"}
    # What any caller may assert is kept as written.
    assert provenance(mw, "f3") == {"origin": "user", "trust": "untrusted"}
    # Written again as it was, the record is the one stored: unchanged.
    assert mw.put(fact("f1", "x", provenance=ASSERTED))["results"][0]["status"] == "unchanged"


def test_update_and_amend_lower_asserted_trust(mw: Client) -> None:
    mw.put(fact("f1", "x", provenance={"trust": "untrusted"}))
    out = mw.update("f1", {"provenance": {"trust": "verified", "origin": "system"}})
    assert out["record"]["provenance"]["trust"] == "unverified"
    assert "origin" not in out["record"]["provenance"]
    assert provenance(mw, "f1") == {"trust": "unverified"}
    mw.put(fact("s1", "staged"), require_approval=True)
    out = mw.review("s1", "amend", patch={"provenance": {"trust": "system"}})
    assert out["record"]["provenance"]["trust"] == "unverified"


def test_compact_and_import_lower_asserted_trust(mw: Client) -> None:
    mw.put([fact("m1", "a"), fact("m2", "b")])
    out = mw.compact(["m1", "m2"], {"id": "sum-1", "kind": "summary", "summary": {"text": "ab"},
                                    "provenance": {"trust": "verified", "origin": "agent"}})
    assert out["summary"]["provenance"]["trust"] == "unverified"
    assert out["summary"]["provenance"]["origin"] == "agent"
    mw.import_([fact("i1", "imported", provenance=ASSERTED)])
    assert provenance(mw, "i1") == LOWERED
