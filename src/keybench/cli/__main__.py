"""`python -m keybench.cli`: the keybench command."""

import sys

from keybench.cli import main

sys.exit(main())
