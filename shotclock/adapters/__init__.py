"""Thin adapters around the outside world: pins, screen, sound, the decision log and the floor's archive, MQTT, systemd."""
