"""``python -m memorywire_conformance``."""

import sys

from memorywire_conformance.cli import main

sys.exit(main())
