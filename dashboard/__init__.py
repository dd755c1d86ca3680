"""Flask dashboard for referees, hall view and broadcast overlay (``create_app``)."""
