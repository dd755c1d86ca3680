"""pyserial URL handler module for ``virtualseat://`` (pyserial imports it by this name)."""

from firmware_bridge.virtual import VirtualSerial as Serial

__all__ = ["Serial"]
