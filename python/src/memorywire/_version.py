"""The version of the package and the specification version it implements.

The package is versioned apart from the specification (spec/v1/versioning.md,
section 5); pyproject.toml reads ``__version__`` from here, and a test checks
``SPECVERSION`` against the release in the repository's VERSION file.
"""

__version__ = "0.1.0.dev0"
SPECVERSION = "1.0"
