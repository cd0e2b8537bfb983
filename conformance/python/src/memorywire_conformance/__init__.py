"""memorywire-conformance: the conformance runner of memorywire.

It runs an implementation of memorywire (the testee, any language) as a
subprocess speaking the testee protocol (conformance/protocol/v1), feeds it
the test vectors (conformance/vectors/v1) and judges its answers byte for
byte. It depends on no implementation of memorywire.
"""

from importlib import metadata

# The release of the specification this runner checks (VERSION at the root of
# the repository), as installed.
__version__ = metadata.version("memorywire-conformance")
