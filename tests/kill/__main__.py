"""`python -m tests.kill`: see driver.py."""

import sys

from .driver import main

sys.exit(main())
