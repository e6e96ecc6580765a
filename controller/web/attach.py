"""The web pages in ``buzzer run``: start the server, feed it view models, say where it is.

:func:`attach` starts a :class:`~controller.web.process.WebProcess` (the pages' own process) for a loop (when
``[web] enabled``), sets :attr:`Loop.publish <controller.app.loop.Loop.publish>` to a
:class:`Publisher` and prints the pages' addresses and the host link's QR code in
the terminal.  The host's ``new_token`` key makes a new token; a new game does too.  The token
is kept next to the journal (:mod:`controller.web.host_token`): a resumed game keeps its link.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller import games
from controller.screens import viewmodel
from controller.screens.common import key_label
from controller.games import engine
from controller.core.errors import GameError
from controller.core.part import Part
from controller.core.events import NS_PER_S, Host, Press, Release
from controller.i18n import t
from controller.inputs.keys import ON_THE_PAGE, program_action
from controller.web import host_token, qr, team_tokens
from controller.web.process import WebProcess
from controller.web import net
from controller.web.net import WebError, lan_address

if TYPE_CHECKING:   # the pages' server: aiohttp, in the web process only
    from controller.web.server import WebServer

log = logging.getLogger(__name__)

LINK_ON_SCREEN_NS = 60 * NS_PER_S
"""How long the host_link key keeps the host link on the projector."""


class Publisher:
    """Builds the view model after a step of the loop and hands it to the server (loop thread).

    It builds one when the game, the notice, the flash, the help or the rename dialogue
    changed, and at most every ``interval_s`` otherwise (a running countdown); never while
    a deadline (the arbiter's decision) is near.  A new ``seq`` only when something changed.
    An error here is logged once and never stops the game."""

    def __init__(self, loop: Any, server: WebProcess | WebServer, interval_s: float = 0.1):
        self.loop = loop
        self.server = server
        self.interval_s = interval_s
        self.seq = 0
        self.latest: dict | None = None
        self._key: tuple | None = None
        self._at = 0.0
        self._body: tuple | None = None
        self._failed = False

    def links(self) -> dict:
        return self.server_links(self.server)

    @staticmethod
    def server_links(server: WebProcess | WebServer) -> dict:
        base = base_url(server)
        return {"audience": base + "/", "overlay": base + "/overlay", "host": f"{base}/host#token={server.token}"}

    def __call__(self, force: bool = False) -> None:
        loop = self.loop
        try:
            if getattr(self.server, "backlog", False):
                self.server.pump()   # the web process's pipe was full: the newest snapshot now
            wall = time.monotonic()
            # the state itself, not its id(): a new state may take a freed one's id
            key = (loop.state, loop.notice, repr(loop.flash), loop.help, repr(loop.rename), self.server.token)
            if (not force and self._key is not None and key[0] is self._key[0] and key[1:] == self._key[1:]
                    and wall - self._at < self.interval_s):
                return
            if not force and loop.deadline_near():
                return  # the decision first; the snapshot right after it
            self._key, self._at = key, wall
            # the host part carries the host page's address without the token: the host page
            # knows its own token, and a view model may reach a log or a test's output
            links = self.links()
            links["host"] = links["host"].split("#", 1)[0]
            vm = viewmodel.from_loop(loop, 0, links=links, keys=loop.key_map())   # a programme's follow its round
            store = getattr(getattr(loop, "pack_media", None), "store", None)
            if store is not None:   # the package the pages' pictures, videos and pages come from
                vm["media_file"] = str(store.archive.path) if store.archive is not None else ""
            body = (vm["title"], vm["audience"], vm["host"])
            if body == self._body:
                return
            self._body = body
            self.seq += 1
            vm["seq"] = self.seq
            self.latest = vm
            self.server.publish(vm)
        except Exception:
            if not self._failed:
                log.exception("web: the view model failed; the pages stop updating")
            self._failed = True


def base_url(server: WebProcess | WebServer) -> str:
    host = server.bind
    if host in ("0.0.0.0", "::", ""):
        host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{server.port}"


def make_check(loop: Any):
    """Whether the game takes a host action from the web now (the reader thread of the web
    process's actions; :class:`~controller.web.server.WebServer`'s thread): the action is one
    of the game's (or the program's mute), and the game's step does not fail on its
    parameters (a :class:`GameError`, e.g. an unknown team or a nominal of 0: the request
    gets a 422 with that reason).  A refusal of the game's rules (no answer to judge) is fine:
    the loop tells the host."""

    # the host's actions accepted here and not yet applied by the loop (the page's «Вопрос» then
    # «Верно» at once): the next one is checked on the state after them, not on the loop's
    # state from before (which would refuse «Верно» with no question asked)
    ahead: dict[str, Any] = {"state": None, "until": 0}

    def state_now():
        applied = getattr(loop, "keys_applied", None)
        if ahead["state"] is not None and applied is not None and applied < ahead["until"]:
            return ahead["state"]
        ahead["state"] = None
        return loop.state

    def check(action: str, params: dict) -> str | None:
        problem, after = judge(action, params, state_now())
        if problem is None and hasattr(loop, "keys_enqueued"):
            # this key is enqueued next: while the loop has not applied it, the next is judged after it
            ahead["state"], ahead["until"] = after, loop.keys_enqueued + 1
        return problem

    def judge(action: str, params: dict, state: Any) -> tuple[str | None, Any]:
        now_actions = set(engine.actions_now(state))
        allowed = now_actions | set(ON_THE_PAGE) | {"pause"}
        if action not in allowed:
            return f"{action}: not an action of this game now", state
        # this game's declaration of it (controller/games/actions.py): the fields it takes; a
        # form's required ones, without which the loop would open a keyboard dialogue (rename,
        # a line-up's digits) the page cannot type in
        declared = games.of_state(state).declared(state).get(action) or program_action(action)
        taken = {p.name for p in declared.params} if declared is not None else set()
        unknown = sorted(set(params) - taken)
        if unknown:
            takes = ", ".join(f'"{p.name}"' for p in declared.params) if declared is not None else "nothing"
            return f"{action}: this game takes no \"{unknown[0]}\" (it takes {takes})", state
        missing = [p.name for p in (declared.params if declared is not None else ())
                   if p.form and p.required and p.name not in params]
        if missing:
            return f"{action}: needs " + ", ".join(f'"{m}"' for m in missing), state
        if action in now_actions:
            try:
                state = engine.step(state, Host(action, loop.clock.now(), dict(params)))[0]
            except GameError as exc:
                return f"{action}: {exc}", state
            except Exception:
                return f"{action}: the game cannot take these parameters", state
        return None, state

    return check


class PhoneBridge:
    """The game's side of the phones (docs/inputs.md «Phones»): each team's token (kept next to
    the journal, :mod:`controller.web.team_tokens`), and what the web process tells of the
    phones -- a press (to the loop's one sink, with its uncertainty), the races' wait
    (:attr:`Loop.phone_wait_ns <controller.app.loop.Loop.phone_wait_ns>`), a renewed link.
    Called on the web process's reader thread."""

    def __init__(self, loop: Any, buttons: list[str]):
        self.loop = loop
        self.dir = link_dir(loop)
        self.tokens = team_tokens.for_game(self.dir, buttons)
        loop.set_phone_buttons(self.tokens)   # these teams may press with a phone alone

    def init(self, server: WebProcess) -> dict:
        """What the web process needs of the phones (its init message; a pipe, never argv)."""
        return {"settings": self.loop.cfg["phones"], "tokens": dict(self.tokens), "base": base_url(server),
                # the teams that press with a phone (phone = true): the others have a wired button
                "phone_teams": [t["button"] for t in self.loop.cfg["teams"]
                                if t.get("phone") and t["button"] in self.tokens],
                # how a tie is broken, for the phones to word it as the projector does
                "tie_rule": self.loop.cfg["arbiter"]["tie_rule"]}

    def message(self, msg: dict) -> None:
        kind = msg.get("t")
        try:
            if kind == "press":
                button, at, unc = msg["button"], int(msg["at"]), int(msg["unc"])
                if button in self.tokens:
                    at = self.loop.clock.from_monotonic_ns(at)
                    self.loop.enqueue(Press(button, at, 0, unc=max(0, unc)))
                    # a screen's button is never held down: the press is a tap (a button the game
                    # saw held when it armed the buttons would be «stuck»)
                    self.loop.enqueue(Release(button, at, 0))
                    if msg.get("flags"):
                        log.info("web: a phone press of %s was bounded (%s)", button,
                                 ", ".join(str(f)[:20] for f in msg["flags"][:4]))
            elif kind == "wait":
                self.loop.set_phone_wait(int(msg["ns"]))
            elif kind == "joined":
                self.loop.set_phones_joined(b for b in msg["buttons"] if b in self.tokens)
            elif kind == "team_token":
                if msg["button"] in self.tokens and isinstance(msg["token"], str):
                    self.tokens[msg["button"]] = msg["token"]
                    self.save()
        except (KeyError, TypeError, ValueError):
            log.warning("web: a phone message from the pages' process that is not one")

    def save(self) -> None:
        """The tokens for the current journal's game (a new game keeps the teams' links)."""
        if self.dir is not None:
            team_tokens.save(self.dir, self.tokens)


def attach(loop: Any, out=sys.stdout) -> WebProcess | None:
    """Start the web pages of ``loop``'s game (``[web] enabled``); None when disabled or the
    server cannot start (one line in the terminal and on the host's screen says why)."""
    cfg = loop.cfg
    settings = cfg["web"]
    if not settings["enabled"]:
        return None
    lang = cfg["language"]
    keep = _token_keeper(loop)
    # the pages in a process of their own: no viewer can take the game loop's GIL (docs/web.md)
    buttons = loop.game.script_buttons(cfg)
    phones = (PhoneBridge(loop, [t["button"] for t in cfg["teams"] if t["button"] in buttons])
              if cfg["phones"]["enabled"] and buttons else None)
    server = WebProcess(settings, lang, loop.enqueue, check=make_check(loop), page_labels=viewmodel.page_labels(lang),
                        token=keep.token() if keep else None, phones=phones)
    try:
        server.start()
    except WebError as exc:
        line = t("web_unavailable", lang, problem=str(exc))
        print(line, file=out, flush=True)
        # printed just above; on the status line for as long as any notice (docs/screen.md)
        loop.say_text(line, "web_unavailable", echo=False)
        return None
    publisher = Publisher(loop, server, interval_s=settings["update_ms"] / 1000)

    def printed() -> Any:
        """Where a line for the host goes now: the front end's scroll-back (the terminal's
        status block would wipe a line printed under it), else ``out``."""
        return loop.scrollback if getattr(loop, "scrollback", None) is not None else out

    def rotate(quiet: bool = False) -> None:
        server.rotate_token()
        if keep:
            keep.save(server.token)
        publisher(force=True)
        if not quiet:
            loop.say("web_token_new")
        say_host_link(publisher.links()["host"], lang, printed(), link_dir(loop))

    def show_link() -> None:
        """The host_link key: the host link and its QR code on the projector for a minute,
        or hidden again; printed in the terminal too."""
        if loop.shown_link() is not None:
            loop.show_link(None)
        else:
            url = publisher.links()["host"]
            keys = loop.cfg["keys"]
            said = lambda action: " / ".join(key_label(n, lang) for n in keys.get(action) or ()) or "—"  # noqa: E731
            text = t("web_link_on_screen", lang, key=said("host_link"), new=said("new_token"))
            shown = {"url": url, "qr": qr.matrix(url), "text": text, "until": loop.clock.now() + LINK_ON_SCREEN_NS}
            if local_only(server):   # a phone cannot open 127.0.0.1: the projector says so too
                shown["warning"] = t("web_local_only_screen", lang)
            loop.show_link(shown)
            print_links(server, publisher.links(), lang, printed(), link_dir(loop))
        loop.changed()

    def rotate_and_hide(quiet: bool = False) -> None:
        loop.show_link(None)   # a new key: the link on the screen is the old one
        rotate(quiet)

    loop.add_part(WebPart(server, publisher, {"new_token": rotate_and_hide, "host_link": show_link}, phones))
    if server.port != settings["port"]:
        line = t("web_port_moved", lang, port=settings["port"], used=server.port)
        print(line, file=out, flush=True)
        # printed just above; on the status line for as long as any notice (docs/screen.md)
        loop.say_text(line, "web_port_moved", echo=False)
    print_links(server, publisher.links(), lang, out, link_dir(loop))
    publisher(force=True)
    return server


class WebPart(Part):
    """The web pages as a part of the loop: the loop's publisher of snapshots (the
    :class:`Publisher` builds one only when something changed), their keys (``new_token``,
    ``host_link``), a new key when a new game starts (the teams' phones keep their links), and
    the pages' process stopped with the program."""

    def __init__(self, server, publisher: Publisher, keys: dict, phones: "PhoneBridge | None"):
        self.server = server
        self.publisher = publisher
        self.keys = keys
        self.phones = phones

    def start(self, loop: Any) -> None:
        loop.publish_with(self.publisher)   # after every heartbeat (it builds one only when needed)

    def actions(self) -> dict:
        return dict(self.keys)

    def new_game(self) -> None:
        self.keys["new_token"](quiet=True)
        if self.phones is not None:
            self.phones.save()   # the teams' phones keep their links into the next game

    def stop(self) -> None:
        self.server.stop()


class _TokenKeeper:
    """Where the loop's game keeps its host token: its journal directory."""

    def __init__(self, journal_dir: str):
        self.dir = journal_dir

    def token(self) -> str:
        return host_token.for_game(self.dir)

    def save(self, token: str) -> None:
        host_token.save(self.dir, token)


def _token_keeper(loop: Any) -> _TokenKeeper | None:
    """A keeper for a loop that journals its game (``buzzer run``); None otherwise (a test's
    loop without a journal: a token for this process only)."""
    path = getattr(getattr(loop, "journal", None), "path", None)
    if path is None:
        return None
    return _TokenKeeper(str(Path(path).parent))   # where this game's journal really is


LINK_FILE = "host-link"
"""The file in the journal directory that holds the host link when the terminal is no
terminal (a log, journald under the shipped systemd unit): mode 0600, the owner's alone."""


def link_dir(loop: Any) -> str | None:
    """Where ``loop``'s game keeps its host link file: its journal directory (None without one)."""
    keep = _token_keeper(loop)
    return keep.dir if keep else None


def local_only(server: Any) -> bool:
    """The pages listen on this computer only (the default bind): no phone can open them."""
    return net.local_only(server.bind)


def interactive(out) -> bool:
    """Whether ``out`` is a terminal someone reads now (not a pipe, a file or journald)."""
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def write_link_file(directory: str, url: str) -> Path | None:
    """The host link in ``directory``/host-link (mode 0600, written whole or not at all);
    None when it cannot be written (logged)."""
    p = Path(directory) / LINK_FILE
    try:
        host_token.write_private(p, (url + "\n").encode("utf-8"))
        return p
    except OSError as exc:
        log.warning("web: cannot write the host link to %s: %s", p, exc.strerror)
        return None


def say_host_link(url: str, lang: str, out=sys.stdout, directory: str | None = None) -> None:
    """The host link for the host: in full on an interactive terminal only.
    Anywhere else (a log, journald) the token would stay in a file others may read, so the
    link goes to ``directory``/host-link (0600) and the line says where (docs/web.md)."""
    if interactive(out):
        print(t("web_host_link", lang, url=url), file=out, flush=True)
        return
    written = write_link_file(directory, url) if directory else None
    if written is not None:
        print(t("web_host_link_file", lang, path=shown(written)), file=out, flush=True)
    else:
        print(t("web_host_link_withheld", lang), file=out, flush=True)


def shown(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def print_links(server: WebProcess | WebServer, links: dict, lang: str, out=sys.stdout,
                directory: str | None = None) -> None:
    """The pages' addresses, the host link and its QR code, in the terminal (the host link and
    its QR code only on an interactive one: :func:`say_host_link`)."""
    print(t("web_pages", lang, audience=links["audience"], overlay=links["overlay"]), file=out)
    say_host_link(links["host"], lang, out, directory)
    if local_only(server):
        print(t("web_local_only", lang), file=out, flush=True)
    if interactive(out):
        try:
            print(qr.half_blocks(qr.matrix(links["host"])), file=out, flush=True)
        except ValueError:
            pass
