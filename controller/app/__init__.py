"""The program: the loop that owns the state, the runner that owns its heartbeat, start-up, the journal, the config assembled from
every plug-in's sections, scripted sessions and the ``buzzer`` subcommands.  docs/architecture.md."""
