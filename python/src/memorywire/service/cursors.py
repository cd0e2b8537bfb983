"""Opaque cursors (operations.md section 4.5): positions in a History or a
Search, bound to one tenant and one request, and positions in the change
order of a tenant, bound to the tenant. Each carries a MAC under the store's
secret, so that a cursor of another tenant, another request or another store,
and one a caller made up, is rejected before anything is read.

A paging cursor also carries the time it was issued, under the MAC: the
service stops accepting it ``Paging.ttl`` seconds later (CURSOR_EXPIRED).
A Watch cursor carries no time: it stays valid while the change it names is
kept (watch.py).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import math
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from memorywire.service.errors import error

__all__ = ["DEFAULT_PAGE_TTL", "Paging", "decode_page", "decode_position", "encode_page",
           "encode_position"]

#: How long a paging cursor stays valid by default, in seconds: a day.
DEFAULT_PAGE_TTL = 24 * 3600
#: How far ahead of the clock a paging cursor may be dated, in seconds.
CLOCK_SKEW = 300


@dataclass(frozen=True)
class Paging:
    """How long paging cursors stay valid, in seconds (None: for ever), and
    the clock that dates them (seconds since the epoch)."""

    ttl: float | None = DEFAULT_PAGE_TTL
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        if self.ttl is not None and not (self.ttl > 0 and math.isfinite(self.ttl)):
            raise ValueError(f"the life of a paging cursor is a positive number of seconds, not {self.ttl}")


_MAC = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    """The bytes of a cursor's text; ValueError unless the text is exactly
    what _b64 writes for them (the decoder alone would skip characters
    outside the alphabet and ignore the unused bits of the last one)."""
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(raw) != text:
        raise ValueError("not the text of these bytes")
    return raw


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


def encode_page(secret: bytes, tenant: str, request_digest: bytes, score: float, sequence: int,
                paging: Paging) -> str:
    """The cursor of a page of a History or Search: the (score, sequence) of
    the last result of the previous page and the time of issue (whole
    seconds, rounded up), bound to the request."""
    issued = min(max(math.ceil(paging.clock()), 0), 2**64 - 1)
    payload = struct.pack(">dQQ", score, sequence, issued)
    return "c1." + _b64(payload + _mac(secret, tenant, b"page" + request_digest, payload))


def decode_page(secret: bytes, tenant: str, request_digest: bytes, cursor: str,
                paging: Paging) -> tuple[float, int]:
    """The (score, sequence) a paging cursor names: INVALID_CURSOR unless the
    store issued it for the tenant and the request; then CURSOR_EXPIRED when
    it is older than ``paging.ttl``."""
    if not cursor.startswith("c1."):
        raise _invalid("/cursor")
    try:
        raw = _unb64(cursor[3:])
    except (binascii.Error, ValueError):
        raise _invalid("/cursor") from None
    if len(raw) != 24 + _MAC:
        raise _invalid("/cursor")
    payload, mac = raw[:24], raw[24:]
    if not hmac.compare_digest(mac, _mac(secret, tenant, b"page" + request_digest, payload)):
        raise _invalid("/cursor")
    score, seq, issued = struct.unpack(">dQQ", payload)
    # A cursor dated ahead of the clock was issued while the clock ran fast:
    # it expires too, or it would live until the clock caught up.
    now = paging.clock()
    if paging.ttl is not None and (now - issued > paging.ttl or issued - now > CLOCK_SKEW):
        raise error("CURSOR_EXPIRED", f"the cursor has expired: the paging cursors of this service "
                    f"are valid for {paging.ttl:g} seconds; start again without a cursor", "/cursor")
    return float(score), int(seq)
