"""The integrity block of an Export (operations.md section 17.1), and
``memorywire verify``, which checks an export saved as it came."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

from service_helpers import fact

import memorywire.protobuf
from memorywire import cli
from memorywire._compiled import varint
from memorywire.service import Service, Store
from memorywire.service.operations import Call

HEAD = {"specversion": "1.0"}


def export(svc: Service, call: Call, **request: Any) -> list[dict[str, Any]]:
    return [memorywire.protobuf.decode(m, type="memorywire.v1.ExportResponse")
            for m in svc.export(call, {**HEAD, "operation_id": "e", **request})]


def verify(path: Path) -> tuple[int, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.run(["verify", str(path)], stdin=io.BytesIO(), stdout=out, stderr=err)
    return status, out.getvalue().decode() + err.getvalue()


def test_the_block_names_the_records_sent_and_verify_checks_it(tmp_path: Path) -> None:
    store = Store(":memory:")
    try:
        svc = Service(store)
        call = Call("t")
        records = [fact(f"f{i}", "x" * 600 + f" {i}", tags=["ü"]) for i in range(2500)]
        for start in range(0, 2500, 500):
            svc.put(call, {**HEAD, "operation_id": f"p{start}",
                           "items": [{"record": r} for r in records[start:start + 500]]})
        plain = export(svc, call)
        assert all("integrity" not in m for m in plain)
        messages = export(svc, call, integrity=True)
        assert len(messages) > 2
        *batches, last = messages
        assert [m.get("records") for m in batches] == [m.get("records") for m in plain]
        assert "records" not in last
        sent = [r for m in batches for r in m["records"]]
        digest = hashlib.sha256()
        encoder = memorywire.protobuf.Encoder("memorywire.v1.MemoryRecord")
        for r in sent:
            data = encoder.encode_valid(r)
            digest.update(varint(len(data)) + data)
        assert last["integrity"] == {"records": 2500, "digest": "sha256:" + digest.hexdigest()}

        saved = tmp_path / "export.jsonl"
        saved.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
        status, out = verify(saved)
        assert status == 0 and "2500 records" in out and "verified" in out
        # One character changed, a record dropped, the block missing: each is caught.
        tampered = [json.loads(json.dumps(m)) for m in messages]
        tampered[0]["records"][7]["fact"]["text"] += "!"
        saved.write_text("".join(json.dumps(m) + "\n" for m in tampered), encoding="utf-8")
        assert verify(saved)[0] == 1
        dropped = [json.loads(json.dumps(m)) for m in messages]
        del dropped[1]["records"][0]
        saved.write_text("".join(json.dumps(m) + "\n" for m in dropped), encoding="utf-8")
        assert "do not match" in verify(saved)[1]
        saved.write_text("".join(json.dumps(m) + "\n" for m in messages[:-1]), encoding="utf-8")
        status, out = verify(saved)
        assert status == 1 and "no integrity block" in out

        # An empty export has a block too: no records, the digest of nothing.
        empty = export(svc, Call("nobody"), integrity=True)
        assert empty == [{**HEAD, "operation_id": "e", "integrity": {
            "digest": "sha256:" + hashlib.sha256(b"").hexdigest()}}]
    finally:
        store.close()
