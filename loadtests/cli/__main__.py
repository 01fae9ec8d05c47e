"""`python -m loadtests.cli`: the keybench command."""

import sys

from loadtests.cli import main

sys.exit(main())
