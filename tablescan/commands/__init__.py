"""Sub-commands of the ``tablescan`` CLI, one module each (see ``tablescan.cli``)."""
