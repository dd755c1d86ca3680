"""Speed goals as scripts that print figures, and the helpers they share with the tests."""
