"""Live web pages inside ``buzzer run``: the server (:mod:`.server`), its wiring into the
loop (:mod:`.attach`) and a small QR encoder for the host link (:mod:`.qr`).  docs/web.md."""
