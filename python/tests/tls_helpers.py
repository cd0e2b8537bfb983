"""Certificates for the TLS tests: the same generator as the conformance
runner's tests (conformance/python/tests/tls_support.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "conformance" / "python" / "tests" / "tls_support.py"
_spec = importlib.util.spec_from_file_location("tls_support", _SOURCE)
assert _spec is not None and _spec.loader is not None
_module = sys.modules.get("tls_support") or importlib.util.module_from_spec(_spec)
if "tls_support" not in sys.modules:
    sys.modules["tls_support"] = _module
    _spec.loader.exec_module(_module)

Pki = _module.Pki
make_pki = _module.make_pki

__all__ = ["Pki", "make_pki"]
