"""``python -m shotclock`` is the ``shotclock`` command."""
import sys

from shotclock.cli import main

sys.exit(main())
