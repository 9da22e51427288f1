"""`python -m tests.bench`: see run.py."""

import sys

from .run import main

sys.exit(main())
