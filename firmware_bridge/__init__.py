"""Serial protocol, host link, virtual seat controller and firmware source.

Importing the package registers the ``virtualseat://`` URL scheme with pyserial, so
``serial.serial_for_url("virtualseat://t1")`` (and any ``--port`` option) reaches the virtual
seat controller in ``virtual.py``.
"""

import serial

if "firmware_bridge" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("firmware_bridge")
