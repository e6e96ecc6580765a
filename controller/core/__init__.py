"""The engine's vocabulary, pure (no I/O, threads or clock): events and effects, the arbiter,
countdowns, the engine over any game, the typed screen model, the config schema's types,
errors, the plug-in registry (:mod:`.plugins`) and a phone's clock sync.  docs/architecture.md."""
