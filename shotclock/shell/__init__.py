"""The imperative shell: the main loop and the command line that wire the core to the adapters."""
