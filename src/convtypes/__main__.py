"""``python -m convtypes``: the same command as ``convtypes``."""

import sys

from ._cli import main

sys.exit(main())
