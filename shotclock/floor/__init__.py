"""The floor side of the network: the broker's configuration, the collector, the fleet simulator, the demo, their commands."""
