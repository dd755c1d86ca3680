"""The spine: CLI, configuration and the wiring from camera to dashboard."""

__version__ = "0.1.0"
