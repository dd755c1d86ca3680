"""Observations × the game's read checks → match record events (one stage of the flow).

``plays.Fusion`` checks each read against what the cards allow (copies per deck, the seat
whose turn it is where the game has a fixed turn, the lead's count) and writes the play, or
the play and a ``needs_referee`` at once; ``answers`` adds the check of a game whose sets are
answered by one of the same count (``engine.games.Game.answers_sets``: Gouji). Imports engine
and vision only; the table node (``tablescan.node``) drives it frame by frame."""
