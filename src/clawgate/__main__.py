import sys

from clawgate.cli import main

sys.exit(main())
