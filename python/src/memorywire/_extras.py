"""What the optional extras of the package bring, and the message that names
the extra to install when a module of one is missing.

A plain install brings the codec and the command line; the extras bring the
rest (pyproject.toml, [project.optional-dependencies]). A test checks that
these module names are exactly what the modules of each extra import.
"""

from __future__ import annotations

#: The top-level modules each extra provides, by extra.
MODULES = {
    "service": frozenset({"grpc", "grpc_health", "grpc_reflection", "numpy"}),
    # The PostgreSQL driver and its pool, and the modules of the service extra.
    "postgresql": frozenset({"psycopg", "psycopg_binary", "psycopg_pool", "grpc", "grpc_health",
                             "grpc_reflection", "numpy"}),
    "oracle": frozenset({"jsonschema", "referencing"}),
    "langchain": frozenset({"langchain_core"}),
    "langgraph": frozenset({"langgraph", "langchain_core"}),
    "agentscope": frozenset({"agentscope"}),
    "openai-agents": frozenset({"agents"}),
    "agency-swarm": frozenset({"agency_swarm", "agents"}),
    # The MCP SDK, and the modules of the service extra: the client or the service behind the tools.
    "mcp": frozenset({"mcp", "grpc", "grpc_health", "grpc_reflection", "numpy"}),
}


def missing(error: ImportError, extra: str) -> bool:
    """Whether ``error`` is the absence of a module that ``extra`` provides."""
    name = error.name or ""
    return name.split(".")[0] in MODULES[extra]


def install_hint(what: str, extra: str) -> str:
    return f"{what} needs the {extra!r} extra: pip install 'memorywire[{extra}]'"
