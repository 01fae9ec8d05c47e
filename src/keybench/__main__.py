"""`python -m keybench`: the keybench command."""

import sys

from keybench.cli import main

sys.exit(main())
