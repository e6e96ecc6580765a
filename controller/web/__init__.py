"""Live web pages inside ``buzzer run``, in a process of their own (:mod:`.process`,
:mod:`.child`): the server (:mod:`.server`), its wiring into the loop (:mod:`.attach`), phones
as buttons (:mod:`.phones`), the host's and the teams' tokens (:mod:`.host_token`,
:mod:`.team_tokens`), the socket and LAN address (:mod:`.net`) and a small QR encoder for the
host link (:mod:`.qr`).  docs/web.md."""
