"""Workers' services: judge configurations and judge runs."""
