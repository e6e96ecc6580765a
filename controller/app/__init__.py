"""The program: the loop that owns the state, the runner that owns its heartbeat, start-up, the config assembled from
every plug-in's sections and the ``buzzer`` subcommands (the journal and scripted sessions: :mod:`controller.sessions`).
docs/architecture.md."""
