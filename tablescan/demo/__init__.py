"""The offline demo's own room (``tablescan demo``, ``make demo``): its pipeline and its
terminal view."""
