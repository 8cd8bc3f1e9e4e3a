"""The imperative shell: the main loop, the device's wiring and the shell's commands (core and adapters wired together)."""
