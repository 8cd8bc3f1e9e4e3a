"""Thin adapters around the outside world: pins, screen, sound, log, systemd. Each has a fake."""
