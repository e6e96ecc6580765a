"""A game's record and its replay, below the program that plays it: the journal (:mod:`.journal`:
every event on disk before it takes effect, recovery) and scripted sessions (:mod:`.script`:
a game as a JSON-lines file on a virtual clock, ``buzzer simulate``).  The loop, the festival,
the web tokens and the screenshots read them; docs/architecture.md."""
