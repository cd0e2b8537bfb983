"""The context of one call of an operation, shared by the modules that
perform operations (operations, search, watch).

A leaf: it imports no other module of the service, so that those modules
may all take a :class:`Call` without importing one another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Call"]


@dataclass
class Call:
    """One call of an operation: the caller's tenant (None for
    GetCapabilities) and a test of whether the caller still waits for it."""

    tenant: str | None
    is_active: Callable[[], bool] = lambda: True
