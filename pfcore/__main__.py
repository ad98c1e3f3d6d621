"""Entry point for `python -m pfcore`."""
import sys

from pfcore.cli import main

sys.exit(main())
