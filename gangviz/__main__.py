"""``python -m gangviz``: the same command line as the ``gangviz`` script."""

import sys

from gangviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
