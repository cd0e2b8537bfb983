"""The integrity block of an Export (operations.md section 17.1), and
``memorywire verify``, which checks an export saved as it came."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
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
        status, out = verify(saved)
        assert status == 1 and out.startswith(f"{saved}:{len(messages)}: /integrity/digest: ") \
            and out.endswith("[DIGEST_MISMATCH]\n"), out
        dropped = [json.loads(json.dumps(m)) for m in messages]
        del dropped[1]["records"][0]
        saved.write_text("".join(json.dumps(m) + "\n" for m in dropped), encoding="utf-8")
        assert verify(saved)[1].endswith(
            ": /integrity/records: 2499 records were read, the integrity block says 2500 [DIGEST_MISMATCH]\n")
        saved.write_text("".join(json.dumps(m) + "\n" for m in messages[:-1]), encoding="utf-8")
        status, out = verify(saved)
        assert status == 1 and "no integrity block" in out

        # An empty export has a block too: no records, the digest of nothing.
        empty = export(svc, Call("nobody"), integrity=True)
        assert empty == [{**HEAD, "operation_id": "e", "integrity": {
            "digest": "sha256:" + hashlib.sha256(b"").hexdigest()}}]
    finally:
        store.close()


# -- signatures (section 17.1, R-OPS-093 and R-OPS-094) -----------------------------


def _keys(tmp_path: Path, name: str = "service") -> tuple[Path, Path, Any]:
    """A fresh Ed25519 key pair: the private key as PEM, the public key as
    PEM, and the private key object."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private = Ed25519PrivateKey.generate()
    key_file, pub_file = tmp_path / f"{name}.pem", tmp_path / f"{name}.pub.pem"
    key_file.write_bytes(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    pub_file.write_bytes(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                           serialization.PublicFormat.SubjectPublicKeyInfo))
    return key_file, pub_file, private


def verify_with(path: Path, key: Path) -> tuple[int, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.run(["verify", str(path), "--public-key", str(key)], stdin=io.BytesIO(), stdout=out, stderr=err)
    return status, out.getvalue().decode() + err.getvalue()


def _save(path: Path, messages: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def test_a_signed_block_verifies_and_each_fault_is_named(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    from memorywire.signing import Signer

    key_file, pub_file, private = _keys(tmp_path)
    _, other_pub, _ = _keys(tmp_path, "other")
    store = Store(":memory:")
    try:
        svc = Service(store, signer=Signer.from_file(key_file))
        call = Call("t")
        svc.put(call, {**HEAD, "operation_id": "p", "items": [{"record": fact(f"f{i}", f"fact {i}")}
                                                               for i in range(5)]})
        messages = export(svc, call, integrity=True)
        block = messages[-1]["integrity"]
        raw_public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        signature = block["signature"]
        # The stated byte string and key id, checked here with the library itself.
        assert signature["algorithm"] == "ed25519"
        assert signature["key_id"] == "sha256:" + hashlib.sha256(raw_public).hexdigest()
        private.public_key().verify(base64.b64decode(signature["signature"]), block["digest"].encode())
        # The service says that it signs.
        caps = memorywire.protobuf.decode(svc.get_capabilities(Call(None), {**HEAD, "operation_id": "c"}),
                                          type="memorywire.v1.GetCapabilitiesResponse")
        assert "export.signature" in caps["features"] and "export.integrity" in caps["features"]
        # The block without integrity asked for carries nothing, signed or not.
        assert all("integrity" not in m for m in export(svc, call))

        saved = _save(tmp_path / "export.jsonl", messages)
        status, out = verify_with(saved, pub_file)
        assert status == 0 and f"5 records, {block['digest']}, signed by {signature['key_id']}: verified" in out
        assert verify(saved)[0] == 0  # without a key, the digest alone is checked

        # A record changed: its bytes no longer give the signed digest.
        changed = json.loads(json.dumps(messages))
        changed[0]["records"][2]["fact"]["text"] = "fact 2!"
        status, out = verify_with(_save(tmp_path / "record.jsonl", changed), pub_file)
        assert status == 1 and "/integrity/digest: " in out and "[DIGEST_MISMATCH]" in out, out
        # The digest changed to match the changed records: the signature fails.
        redigested = json.loads(json.dumps(changed))
        encoder = memorywire.protobuf.Encoder("memorywire.v1.MemoryRecord")
        digest = hashlib.sha256()
        for r in redigested[0]["records"]:
            data = encoder.encode_valid(r)
            digest.update(varint(len(data)) + data)
        redigested[-1]["integrity"]["digest"] = "sha256:" + digest.hexdigest()
        path = _save(tmp_path / "digest.jsonl", redigested)
        assert verify(path)[0] == 0  # the unsigned check is fooled, as section 17.1 says
        status, out = verify_with(path, pub_file)
        line = len(messages)
        assert (status, out) == (1, f"{path}:{line}: /integrity/signature/signature: the signature does "
                                    "not verify against the digest and the public key [SIGNATURE_MISMATCH]\n")
        # Another key.
        status, out = verify_with(saved, other_pub)
        assert status == 1 and f"{saved}:{line}: /integrity/signature/key_id: " in out
        assert "[SIGNATURE_MISMATCH]" in out
        # A signature made for another digest, under the right key id.
        swapped = json.loads(json.dumps(messages))
        swapped[-1]["integrity"]["signature"]["signature"] = base64.b64encode(
            private.sign(b"sha256:" + b"0" * 64)).decode()
        status, out = verify_with(_save(tmp_path / "swapped.jsonl", swapped), pub_file)
        assert status == 1 and "/integrity/signature/signature: " in out and "[SIGNATURE_MISMATCH]" in out
        # No signature at all, and a key given.
        unsigned = json.loads(json.dumps(messages))
        del unsigned[-1]["integrity"]["signature"]
        path = _save(tmp_path / "unsigned.jsonl", unsigned)
        assert verify(path)[0] == 0
        status, out = verify_with(path, pub_file)
        assert (status, out) == (1, f"{path}:{line}: /integrity/signature: the integrity block has no "
                                    "signature, and a public key was given [REQUIRED_FIELD_MISSING]\n")
    finally:
        store.close()


def test_a_raw_key_file_signs_alike_and_a_bad_key_file_is_refused(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    from memorywire.signing import Signer

    key_file, pub_file, private = _keys(tmp_path)
    raw = tmp_path / "raw.key"
    raw.write_bytes(private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                          serialization.NoEncryption()))
    assert Signer.from_file(raw).key_id == Signer.from_file(key_file).key_id
    assert Signer.from_file(raw).sign("sha256:" + "a" * 64) == Signer.from_file(key_file).sign("sha256:" + "a" * 64)
    # The example of the specification is what this key gives.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    example = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(32)))).sign(
        "sha256:5631aeda424c498e682e6e69396a7ccdd9534f2d9f6118d9c8a92d83a85dce26")
    spec = (Path(__file__).parents[3] / "spec" / "v1" / "operations.md").read_text(encoding="utf-8")
    assert f'`{{"algorithm": "ed25519", "key_id": "{example["key_id"]}", "signature": "{example["signature"]}"}}`' \
        in spec
    bad = tmp_path / "bad.key"
    bad.write_bytes(b"not a key")
    with pytest.raises(ValueError, match="not a PEM or raw 32-byte Ed25519 private key"):
        Signer.from_file(bad)
    # A public key that is no key is a usage error of verify, exit 2.
    saved = _save(tmp_path / "e.jsonl", [{**HEAD, "operation_id": "e", "integrity": {
        "digest": "sha256:" + hashlib.sha256(b"").hexdigest()}}])
    status, out = verify_with(saved, bad)
    assert status == 2 and "not a PEM public key" in out


def test_serve_signs_with_its_key_and_without_one_sends_no_signature(tmp_path: Path) -> None:
    import grpc

    from memorywire.service.process import ServeProcess

    key_file, pub_file, _ = _keys(tmp_path)
    request = memorywire.protobuf.encode({**HEAD, "operation_id": "e", "integrity": True},
                                         type="memorywire.v1.ExportRequest")
    for flags, signed in ((["--quiet", "--export-signing-key", str(key_file)], True), (["--quiet"], False)):
        store = tmp_path / f"store-{signed}.sqlite3"
        with ServeProcess(store, flags) as served, grpc.insecure_channel(served.target) as channel:
            caps = memorywire.protobuf.decode(channel.unary_unary(
                "/memorywire.v1.MemoryService/GetCapabilities")(memorywire.protobuf.encode(
                    {**HEAD, "operation_id": "c"}, type="memorywire.v1.GetCapabilitiesRequest"), timeout=10),
                type="memorywire.v1.GetCapabilitiesResponse")
            assert ("export.signature" in caps["features"]) is signed
            put = memorywire.protobuf.encode({**HEAD, "operation_id": "p", "items": [
                {"record": fact("f1", "signed" if signed else "plain")}]}, type="memorywire.v1.PutRequest")
            channel.unary_unary("/memorywire.v1.MemoryService/Put")(
                put, metadata=(("memorywire-tenant", "acme"),), timeout=10)
            messages = [memorywire.protobuf.decode(m, type="memorywire.v1.ExportResponse")
                        for m in channel.unary_stream("/memorywire.v1.MemoryService/Export")(
                            request, metadata=(("memorywire-tenant", "acme"),), timeout=10)]
        assert messages[-1]["integrity"]["records"] == 1
        assert ("signature" in messages[-1]["integrity"]) is signed
        saved = _save(tmp_path / f"export-{signed}.jsonl", messages)
        status, out = verify_with(saved, pub_file)
        assert status == (0 if signed else 1), out
        if not signed:
            assert "/integrity/signature: " in out and "[REQUIRED_FIELD_MISSING]" in out


def test_the_client_checks_the_block_as_the_records_arrive(tmp_path: Path) -> None:
    """``Client.export(integrity=True)`` asks for the block and checks the
    records against it when the stream ends (R-OPS-098); with a public key
    it checks the signature too (R-OPS-097), over a live gRPC server."""
    from memorywire.client import Client
    from memorywire.service.process import ServeProcess

    key_file, pub_file, private = _keys(tmp_path)
    other_pub = _keys(tmp_path, "other")[1]
    for flags, signed in ((["--quiet", "--export-signing-key", str(key_file)], True), (["--quiet"], False)):
        with ServeProcess(tmp_path / f"client-{signed}.sqlite3", flags) as served, \
                Client(served.target, tenant="acme") as client:
            client.put([fact(f"f{i}", f"text {i}") for i in range(3)])
            plain = list(client.export())
            assert [r["id"] for r in plain] == ["f0", "f1", "f2"]
            assert list(client.export(integrity=True)) == plain
            if signed:
                assert list(client.export(public_key=pub_file)) == plain
                assert list(client.export(public_key=private.public_key())) == plain
                with pytest.raises(memorywire.ValidationError) as info:
                    list(client.export(public_key=other_pub))
                assert (info.value.reason, info.value.pointer) == (
                    "SIGNATURE_MISMATCH", "/integrity/signature/key_id")
            else:
                with pytest.raises(memorywire.ValidationError) as info:
                    list(client.export(public_key=pub_file))
                assert (info.value.reason, info.value.pointer) == (
                    "REQUIRED_FIELD_MISSING", "/integrity/signature")


def test_the_client_reader_names_each_fault_of_a_stream() -> None:
    """The reader behind ``Client.export`` on the messages of a real export,
    changed in transit: a record changed, a record lost, the block lost, a
    message after the block; each with its reason and pointer (R-OPS-098)."""
    from memorywire.client._shared import ExportReader

    store = Store(":memory:")
    try:
        svc = Service(store)
        call = Call("t")
        svc.put(call, {**HEAD, "operation_id": "p", "items": [
            {"record": fact(f"f{i}", f"text {i}")} for i in range(4)]})
        messages = export(svc, call, integrity=True)
    finally:
        store.close()

    def read(changed: list[dict[str, Any]]) -> memorywire.ValidationError | None:
        reader = ExportReader(integrity=True)
        for m in changed:
            reader.records(memorywire.protobuf.encode(m, type="memorywire.v1.ExportResponse"))
        try:
            reader.finish()
        except memorywire.ValidationError as e:
            return e
        return None

    assert read(messages) is None
    changed = json.loads(json.dumps(messages))
    changed[0]["records"][2]["fact"]["text"] = "text 9"
    lost = json.loads(json.dumps(messages))
    del lost[0]["records"][3]
    for stream, reason, pointer in ((changed, "DIGEST_MISMATCH", "/integrity/digest"),
                                    (lost, "DIGEST_MISMATCH", "/integrity/records"),
                                    (messages[:-1], "REQUIRED_FIELD_MISSING", "/integrity")):
        fault = read(stream)
        assert fault is not None and (fault.reason, fault.pointer) == (reason, pointer), stream
    with pytest.raises(memorywire.ValidationError) as info:
        read(messages + messages[:1])
    assert (info.value.reason, info.value.pointer) == ("DIGEST_MISMATCH", "/integrity")


def test_serve_refuses_a_key_file_that_holds_no_ed25519_key(tmp_path: Path) -> None:
    from memorywire.service.process import ServeProcess

    bad = tmp_path / "bad.key"
    bad.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    with pytest.raises(RuntimeError, match="(?s)did not start:.*not a PEM or raw 32-byte Ed25519 private key"):
        ServeProcess(tmp_path / "store.sqlite3", ["--export-signing-key", str(bad)])
