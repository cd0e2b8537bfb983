"""The compiled part of memorywire: memorywire._speedups, the scans and counts
of the typed fast path (memorywire._fast) and the canonical Protobuf writer
(memorywire._encode). It is optional: where it cannot be built (no C
compiler), the package installs without it and every document takes the
walkers' path, and upb writes Protobuf. Everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("memorywire._speedups", ["src/memorywire/_speedups.c"], optional=True)])
