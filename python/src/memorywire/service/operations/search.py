"""Search (operations.md section 9): the checks of the request; the search
itself is :mod:`memorywire.service.search`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.service import search
from memorywire.service.context import Call
from memorywire.service.errors import error
from memorywire.service.operations.common import Base


class Search(Base):
    """The operation of this chapter; the registry names its handler, ``search``."""

    def search(self, call: Call, req: Mapping[str, Any]) -> bytes:
        assert call.tenant is not None
        pred = self.compile_filter(req)
        vector = req.get("vector")
        if vector is not None and not any(vector["values"]):
            raise error("INVALID_VECTOR", "the query vector has zero norm", "/vector/values")
        self.check_tenant(call.tenant, req)
        return search.run(self, call, req, pred)

