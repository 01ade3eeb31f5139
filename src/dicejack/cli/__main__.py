"""`python -m dicejack.cli ...`: the `dicejack` command without its installed script."""

import sys

from dicejack.cli import main

sys.exit(main())
