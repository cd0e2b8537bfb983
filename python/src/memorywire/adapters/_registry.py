"""The adapter modules, and the forms they define: the one list of forms."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType

from memorywire.adapters._kit import Form

#: Every adapter module of memorywire.adapters, each with a ``FORMS`` tuple.
MODULES: tuple[str, ...] = ("agency_swarm", "agentscope", "aimem", "autogen", "langchain", "langgraph", "letta",
                           "letta_agent_file", "mem0", "metagpt", "mif", "omi", "openai", "openai_agents", "pam")


def forms() -> Mapping[str, Form]:
    found: dict[str, Form] = {}
    for name in MODULES:
        module = importlib.import_module(f"memorywire.adapters.{name}")
        for form in module.FORMS:
            if form.name in found:
                raise RuntimeError(f"two adapter forms are named {form.name!r}")
            found[form.name] = form
    return MappingProxyType(dict(sorted(found.items())))
