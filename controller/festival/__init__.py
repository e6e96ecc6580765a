"""The festival: halls publish their games over MQTT, a board aggregates them (docs/festival.md).

* :mod:`controller.festival.link` -- broker URLs, topics, the message formats and their checks;
* :mod:`controller.festival.publisher` -- a hall's publisher (the journal is its outbox);
* :mod:`controller.festival.results` -- what a board knows: every hall's games, de-duplicated;
* :mod:`controller.festival.board` -- ``buzzer festival``: the organisers' pygame screen;
* :mod:`controller.festival.export` -- final tables as CSV / JSON;
* :mod:`controller.festival.command` -- the ``buzzer festival`` subcommands and ``simulate --festival``.
"""
