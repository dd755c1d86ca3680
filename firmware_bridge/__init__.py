"""Serial protocol, host link, virtual seat controller and firmware source."""
