"""Test suite (a package, so that tests/dashboard is never imported as the dashboard package)."""
