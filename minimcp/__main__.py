"""``python -m minimcp``: the course's one command line (see :mod:`minimcp.cli`)."""

import sys

from minimcp.cli import main

if __name__ == "__main__":
    sys.exit(main())
