"""Registers the subcommands that come with the device, screen and log layers."""

REGISTER: list = []
