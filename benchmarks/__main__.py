"""`python -m benchmarks`: run the benchmarks (benchmarks/run.py)."""

import sys

from .run import main

sys.exit(main())
