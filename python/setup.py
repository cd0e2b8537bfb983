"""The compiled part of memorywire: memorywire._speedups, the typed fast path
(memorywire._fast) in C, the canonical pass of the writers and the canonical
Protobuf writer (memorywire._encode), and the reading of float32 vectors and
the sums of their squares (memorywire._compiled, and the service's records and
vectors). It is optional: where it cannot be built (no C compiler), the package
installs without it, every document takes the walkers' path to be read and the
generated Python functions and upb to be written, struct packs the values and
numpy adds the squares. Everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("memorywire._speedups", ["src/memorywire/_speedups.c"], optional=True)])
