"""Opaque cursors (operations.md section 4.5): positions in a History or a
Search, bound to one tenant and one request, and positions in the change
order of a tenant, bound to the tenant. Each carries a MAC under the store's
secret, so that a cursor of another tenant, another request or another store,
and one a caller made up, is rejected before anything is read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import struct

from memorywire.service.errors import error

__all__ = ["decode_page", "decode_position", "encode_page", "encode_position"]

_MAC = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(secret: bytes, tenant: str, label: bytes, payload: bytes) -> bytes:
    msg = tenant.encode("utf-8") + b"\x00" + label + b"\x00" + payload
    return hmac.new(secret, msg, hashlib.sha256).digest()[:_MAC]


def _invalid(pointer: str) -> Exception:
    return error("INVALID_CURSOR", "the cursor was not issued for this tenant and request", pointer)


def encode_position(secret: bytes, tenant: str, position: int) -> str:
    """The Watch cursor of a change."""
    payload = struct.pack(">Q", position)
    return "w1." + _b64(payload + _mac(secret, tenant, b"watch", payload))


def decode_position(secret: bytes, tenant: str, cursor: str, pointer: str = "/cursor") -> int:
    """The position a Watch cursor names; INVALID_CURSOR unless the store
    issued it for the tenant."""
    if not cursor.startswith("w1."):
        raise _invalid(pointer)
    try:
        raw = _unb64(cursor[3:])
    except (binascii.Error, ValueError):
        raise _invalid(pointer) from None
    if len(raw) != 8 + _MAC:
        raise _invalid(pointer)
    payload, mac = raw[:8], raw[8:]
    if not hmac.compare_digest(mac, _mac(secret, tenant, b"watch", payload)):
        raise _invalid(pointer)
    return int(struct.unpack(">Q", payload)[0])


def encode_page(secret: bytes, tenant: str, request_digest: bytes, score: float, sequence: int) -> str:
    """The cursor of a page of a History or Search: the (score, sequence) of
    the last result of the previous page, bound to the request."""
    payload = struct.pack(">dQ", score, sequence)
    return "c1." + _b64(payload + _mac(secret, tenant, b"page" + request_digest, payload))


def decode_page(secret: bytes, tenant: str, request_digest: bytes, cursor: str) -> tuple[float, int]:
    if not cursor.startswith("c1."):
        raise _invalid("/cursor")
    try:
        raw = _unb64(cursor[3:])
    except (binascii.Error, ValueError):
        raise _invalid("/cursor") from None
    if len(raw) != 16 + _MAC:
        raise _invalid("/cursor")
    payload, mac = raw[:16], raw[16:]
    if not hmac.compare_digest(mac, _mac(secret, tenant, b"page" + request_digest, payload)):
        raise _invalid("/cursor")
    score, seq = struct.unpack(">dQ", payload)
    return float(score), int(seq)
