"""The pure core: timestamped events in, outputs and the next wake-up time out.

Nothing in this package may import time, threading, gpiozero, pygame or sqlite3;
``tests/test_core_purity.py`` enforces it.
"""
