"""Signatures over the integrity block of an Export (operations.md section
17.1): Ed25519 (RFC 8032) over the UTF-8 bytes of the block's ``digest``.

The service signs with a private key read from a file
(``memorywire serve --export-signing-key FILE``); a reader checks with the
public key (``memorywire verify FILE --public-key PEMFILE``). Both need the
``cryptography`` package (the ``signing`` extra).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memorywire.errors import ValidationError, violation

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = ["ALGORITHM", "Signer", "check", "key_id", "load_public_key"]

#: The name of the one algorithm, as the JSON encoding spells the enum value.
ALGORITHM = "ed25519"

#: The pointer of the signature inside an ExportResponse.
POINTER = "/integrity/signature"


def _cryptography() -> Any:
    try:
        from cryptography.hazmat.primitives import serialization
    except ImportError as e:  # pragma: no cover - the extra is installed with the tests
        raise ValueError("export signatures need the cryptography package: "
                         "pip install 'memorywire[signing]'") from e
    return serialization


def _raw_public(public: Ed25519PublicKey) -> bytes:
    serialization = _cryptography()
    raw: bytes = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw


def key_id(public: Ed25519PublicKey) -> str:
    """The key id of a public key: ``sha256:`` and the lowercase hex SHA-256
    of its 32 raw bytes."""
    return "sha256:" + hashlib.sha256(_raw_public(public)).hexdigest()


class Signer:
    """An Ed25519 private key that signs integrity blocks."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self.private = private
        #: The key id of the matching public key.
        self.key_id = key_id(private.public_key())

    @classmethod
    def from_file(cls, path: str | Path) -> Signer:
        """The key in a file: PEM (PKCS #8, unencrypted) or the raw 32-byte
        private key. A file that holds neither is a ValueError."""
        serialization = _cryptography()
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        data = Path(path).read_bytes()
        if len(data) == 32:
            return cls(Ed25519PrivateKey.from_private_bytes(data))
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path}: not a PEM or raw 32-byte Ed25519 private key ({e})") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path}: the PEM private key is not an Ed25519 key")
        return cls(key)

    def sign(self, digest: str) -> dict[str, Any]:
        """The ``signature`` member of an integrity block with this digest."""
        signature = self.private.sign(digest.encode("utf-8"))
        return {"algorithm": ALGORITHM, "key_id": self.key_id,
                "signature": base64.b64encode(signature).decode("ascii")}


def load_public_key(path: str | Path) -> Ed25519PublicKey:
    """The Ed25519 public key of a PEM file (SubjectPublicKeyInfo). A file
    that holds none is a ValueError."""
    serialization = _cryptography()
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a PEM public key ({e})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(f"{path}: the PEM public key is not an Ed25519 key")
    return key


def check(block: Mapping[str, Any], public: Ed25519PublicKey) -> ValidationError | None:
    """None when the integrity block carries a signature of its digest by
    ``public``; otherwise the error that names the member at fault (section
    17.1): REQUIRED_FIELD_MISSING without a signature, SIGNATURE_MISMATCH for
    another algorithm, another key or a signature that does not verify."""
    from cryptography.exceptions import InvalidSignature

    signature = block.get("signature")
    if signature is None:
        return violation("REQUIRED_FIELD_MISSING", POINTER,
                         "the integrity block has no signature, and a public key was given")
    if signature.get("algorithm") != ALGORITHM:
        return violation("SIGNATURE_MISMATCH", POINTER + "/algorithm",
                         f"the signature algorithm is {signature.get('algorithm')!r}, not {ALGORITHM!r}")
    expected = key_id(public)
    if signature.get("key_id") != expected:
        return violation("SIGNATURE_MISMATCH", POINTER + "/key_id",
                         f"the signature names key {signature.get('key_id')}, the public key is {expected}")
    try:
        public.verify(base64.b64decode(signature.get("signature", ""), validate=True),
                      str(block.get("digest", "")).encode("utf-8"))
    except (InvalidSignature, binascii.Error):
        return violation("SIGNATURE_MISMATCH", POINTER + "/signature",
                         "the signature does not verify against the digest and the public key")
    return None
