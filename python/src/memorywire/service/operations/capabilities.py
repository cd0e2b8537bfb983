"""GetCapabilities (operations.md section 18)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import memorywire
import memorywire.protobuf
from memorywire._version import SPECVERSION
from memorywire.service.context import Call
from memorywire.service.operations.common import (
    FEATURES,
    IMPLEMENTATION,
    OPERATIONS,
    SIGNED_EXPORTS,
    Base,
    response_type,
)


class Capabilities(Base):
    """The operation of this chapter; the registry names its handler, ``get_capabilities``."""

    def get_capabilities(self, call: Call, req: Mapping[str, Any]) -> bytes:
        lim = self.limits
        return self.encode(response_type("GetCapabilities"), self.envelope(
            req, implementation=IMPLEMENTATION, implementation_version=memorywire.__version__,
            specversions=[SPECVERSION], operations=list(OPERATIONS),
            features=[*FEATURES, *((SIGNED_EXPORTS,) if self.signer is not None else ())],
            limits={"max_document_bytes": lim.max_document_bytes, "max_depth": lim.max_depth,
                    "max_batch_records": lim.max_batch_records,
                    "max_string_bytes": lim.max_string_bytes, "max_items": lim.max_items,
                    "max_dimensions": lim.max_dimensions}))

