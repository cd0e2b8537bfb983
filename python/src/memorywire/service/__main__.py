"""``python -m memorywire.service``: the same as ``memorywire serve``."""

import sys

from memorywire.service.server import main

sys.exit(main(sys.argv[1:]))
