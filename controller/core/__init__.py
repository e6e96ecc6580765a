"""The engine's vocabulary, pure (no I/O, threads or clock): events and effects, the arbiter,
countdowns, the typed screen model, the config schema's types and the config's functions for
the layers below the program (:mod:`.configs`), errors, the plug-in registry (:mod:`.plugins`)
and a phone's clock sync.  docs/architecture.md."""
