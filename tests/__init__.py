"""The test suite is a package, so tests/dashboard never shadows the dashboard package."""
