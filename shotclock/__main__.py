"""``python -m shotclock`` is the ``shotclock`` command."""
import sys

from shotclock.shell.cli import main

sys.exit(main())
