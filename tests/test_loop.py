"""The loop: one owner of the state; effects reach lamps and speakers; host keys from any source."""

from controller.app import config
from controller.games import engine
from controller.inputs.keyboard import KeyboardBackend
from controller.inputs.clock import ManualClock
from controller.core.events import Host, HostKey
from controller.inputs.keys import terminal_key_names
from controller.app.loop import Loop

MS = 1_000_000


class Speaker:
    def __init__(self):
        self.played = []

    def play(self, name):
        self.played.append(name)


def make_loop():
    cfg = config.load()
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, audio=Speaker())
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue,
                                   {"keys": {t["button"]: t["key"] for t in cfg["teams"]}})
    return loop, clock


def test_a_key_press_lights_the_lamp_and_plays_the_press_sound_after_the_settle_window():
    loop, clock = make_loop()
    loop.key_down(["n"])
    loop.drain()
    clock.advance(500 * MS)
    loop.key_down(["z"])          # team Бета's key
    loop.drain()
    assert loop.backend.lamps["B"] == "off" and "press" not in loop.audio.played
    clock.advance(1 * MS)
    loop.tick_if_due()            # 1 ms after the edge: still inside the 2 ms settle window
    assert "press" not in loop.audio.played
    clock.advance(2 * MS)
    loop.tick_if_due()
    assert loop.backend.lamps["B"] == "on"
    assert loop.audio.played == ["press"]
    assert loop.timeout_s(1.0) == 1.0  # nothing pending: the loop may sleep


def test_wrong_then_right_from_the_keyboard_moves_the_scores():
    loop, clock = make_loop()
    for keys in (["n"], ["q"]):
        loop.key_down(keys)
        loop.key_up(keys)
        loop.drain()
        clock.advance(100 * MS)
        loop.tick_if_due()
    loop.key_down(["backspace"])
    loop.drain()
    clock.advance(100 * MS)
    loop.key_down(["m"])
    loop.drain()
    clock.advance(100 * MS)
    loop.tick_if_due()
    loop.key_down(["return"])
    loop.drain()
    scores = {t["name"]: t["score"] for t in engine.view(loop.state)["teams"]}
    assert scores == {"Альфа": -10, "Бета": 0, "Гамма": 0, "Дельта": 10}
    assert loop.audio.played == ["press", "wrong", "press", "right"]
    assert loop.current_flash() == {"kind": "right", "team": "Дельта"}


def test_keypad_pause_key_toggles_and_help_stays_out_of_the_engine():
    loop, clock = make_loop()
    loop.enqueue(HostKey("question"))
    loop.enqueue(HostKey("reading_done"))
    loop.drain()
    loop.drain()
    loop.enqueue(HostKey("pause"))
    loop.drain()
    loop.drain()
    assert loop.state.paused
    loop.enqueue(HostKey("pause"))
    loop.drain()
    loop.drain()
    assert not loop.state.paused
    loop.enqueue(HostKey("help"))
    loop.drain()
    assert loop.help is True


def test_an_action_of_another_mode_is_a_notice_not_a_crash():
    loop, clock = make_loop()
    loop.enqueue(HostKey("start_clock"))      # Брейн-ринг's «Время!» key in Эрудит-квартет
    loop.drain()
    assert loop.notice == "«Время!»: старт отсчёта — не в этой игре"   # the label, not the action's id


def test_terminal_characters_map_to_key_names():
    assert terminal_key_names(" ") == ["space"]
    assert terminal_key_names("\n") == ["return"]
    assert "[+]" in terminal_key_names("+")
    assert terminal_key_names("Q") == ["q"]


def test_a_mafia_game_ended_by_the_judge_saves_its_protocol(tmp_path):
    from controller.games.mafia import protocol as mafia_protocol
    from controller.core.events import Host

    names = ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"]
    roles = ["don", "mafia", "mafia", "commissar", "doctor"] + ["civilian"] * 5
    cfg = config.build({"mode": "mafia", "mafia": {"players": names, "tournament": "Кубок",
                                                   "protocol_dir": str(tmp_path), "game_number": 7}})
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock)
    for seat, role in enumerate(roles, start=1):
        loop.apply(Host("role", clock.now(), {"seat": seat, "role": role}))
    for key in (["4"], ["f"], ["4"], ["f"]):       # seat 4: two fouls from the keypad map
        loop.key_down(key)
        loop.drain()
    for _ in range(2):                              # town wins: the key asks first, the second press ends
        loop.key_down(["t"])
        loop.drain()
    saved = tmp_path / "game-007-table-1.json"
    assert loop.extras.protocol_path == saved and saved.exists()
    protocol = mafia_protocol.load(saved)
    assert protocol.winner == "town" and protocol.tournament == "Кубок"
    assert [p.fouls for p in protocol.players if p.seat == 4] == [2]
    assert "Кубок" in (tmp_path / "game-007-table-1.html").read_text(encoding="utf-8")


def test_chgk_host_types_team_numbers_and_imports_the_jury_csv(tmp_path):
    teams = [{"name": n} for n in ("Альфа", "Бета", "Гамма")]
    csv = tmp_path / "jury.csv"
    csv.write_text("team,question,result\nГамма,1,1\nАльфа,1,0\n", encoding="utf-8")
    cfg = config.build({"mode": "chgk", "teams": teams, "chgk": {"results_csv": str(csv)}})
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock)
    for key in (["n"], ["space"], ["2"], ["[+]"]):
        loop.key_down(key)
        loop.drain()
        loop.drain()
    assert "Бета" in loop.notice and "засчитан" in loop.notice   # the host sees what was entered
    loop.key_down(["i"])
    loop.drain()
    assert loop.notice == f"Ответы жюри загружены: 2 строки ({csv})"   # in words, the count agreeing
    loop.drain()
    rows = {r["team"]: r for r in engine.view(loop.state)["standings"]}
    assert rows["Бета"]["right"] == 1 and rows["Гамма"]["right"] == 1 and rows["Альфа"]["right"] == 0
    loop.key_down(["9"])
    loop.key_down(["[+]"])
    loop.drain()
    assert "9" in loop.notice  # no team 9: refused, told to the host


def test_mafia_roles_entered_after_the_game_complete_the_protocol(tmp_path):
    names = ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"]
    cfg = config.build({"mode": "mafia", "mafia": {"players": names, "protocol_dir": str(tmp_path)}})
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock)
    for _ in range(2):                              # the mafia wins (pressed twice); no roles entered yet
        loop.key_down(["m"])
        loop.drain()
    assert loop.extras.protocol_path == tmp_path / "game-001-table-1.table.json"
    assert not (tmp_path / "game-001-table-1.json").exists()
    # after the game the judge turns the cards: seat, then R until the role is right
    presses = {1: 3, 2: 2, 3: 2, 4: 4, 5: 5}      # don, mafia, mafia, commissar, doctor
    for seat in range(1, 11):
        for _ in range(presses.get(seat, 1)):     # one press: civilian
            loop.key_down([str(seat % 10)])
            loop.key_down(["r"])
            loop.drain()
    saved = tmp_path / "game-001-table-1.json"
    assert loop.extras.protocol_complete and saved.exists()
    from controller.games.mafia import protocol as mafia_protocol
    protocol = mafia_protocol.load(saved)
    assert [p.role for p in protocol.players] == ["don", "mafia", "mafia", "commissar", "doctor"] + ["civilian"] * 5
    assert protocol.winner == "mafia"


def test_keys_work_under_the_russian_layout():
    loop, clock = make_loop()
    loop.key_down(["т"])           # N under ЙЦУКЕН: announce the question
    loop.drain()
    clock.advance(100 * MS)
    loop.key_down(["я"])           # Z: team Бета's button
    loop.drain()
    clock.advance(10 * MS)
    loop.tick_if_due()
    assert engine.view(loop.state)["teams"][1]["holder"] is True


def test_a_host_notice_leaves_the_screen_after_a_while():
    loop, clock = make_loop()
    loop.key_down(["escape"])      # asks to press again
    assert loop.status()["notice"]
    clock.advance(7_000 * MS)
    assert loop.status()["notice"] == ""


def test_a_second_mafia_game_after_new_game_writes_its_own_protocol(tmp_path):
    from controller.games.mafia import protocol as mafia_protocol

    names = ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"]
    roles = ["don", "mafia", "mafia", "commissar", "doctor"] + ["civilian"] * 5
    cfg = config.build({"mode": "mafia", "mafia": {"players": names, "protocol_dir": str(tmp_path)}})
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock)
    written = []
    for winner_key in (["t"], ["m"]):               # the town wins the first game, the mafia the second
        for seat, role in enumerate(roles, start=1):
            loop.apply(Host("role", clock.now(), {"seat": seat, "role": role}))
        for _ in range(2):                          # the key ends the game on its second press
            loop.key_down(winner_key)
            loop.drain()
        assert loop.extras.protocol_complete
        written.append(loop.extras.protocol_path)
        loop.start_new_game()
    assert [p.name for p in written] == ["game-001-table-1.json", "game-002-table-1.json"]
    assert [(mafia_protocol.load(p).winner, mafia_protocol.load(p).game) for p in written] == [("town", 1), ("mafia", 2)]


def test_a_host_action_whose_parameters_the_game_refuses_is_told_in_the_catalogs_language_only(caplog):
    """A web action the check let through (the game moved on in between) that the engine then
    refuses: the host reads why in the UI's language; no English line lands in the terminal's
    status (the log at WARNING is printed there by ``buzzer run``)."""
    import io
    import logging

    from controller.i18n import action_label, t

    loop, clock = make_loop()
    loop.out = io.StringIO()
    with caplog.at_level(logging.WARNING):
        loop.enqueue(HostKey("rename", {"team": 9, "name": "X"}))
        loop.drain()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert "unknown team" not in loop.out.getvalue()
    label = action_label("rename", "ru")
    assert loop.notice == t("refused_params", "ru", action=label)
    assert loop.notice != t("refused", "ru", action=label)   # rename is available: its parameters were wrong


def test_while_phones_play_a_wired_press_waits_for_an_earlier_phone_press_on_its_way():
    from controller.core.events import Press
    loop, clock = make_loop()
    loop.phone_wait_ns = 80 * MS            # the joined phones' delay (controller/web/phones.py)
    loop.key_down(["n"])
    loop.drain()
    clock.advance(500 * MS)
    wired = clock.now()
    loop.key_down(["z"])                    # Бета's wired key
    loop.drain()
    clock.advance(50 * MS)
    loop.tick_if_due()                      # the settle window is long over: the phones are waited for
    assert loop.backend.lamps["B"] == "off"
    # Альфа's phone pressed 10 ms before Бета; its press came 60 ms later over the Wi-Fi
    loop.enqueue(Press("A", wired - 10 * MS, 0, unc=3 * MS))
    loop.drain()
    clock.advance(80 * MS)
    loop.tick_if_due()
    assert loop.backend.lamps == {"A": "on", "B": "off", "C": "off", "D": "off"}


def test_without_phones_a_wired_race_decides_after_the_settle_window_as_before():
    from controller.core.events import Press
    loop, clock = make_loop()
    loop.key_down(["n"])
    loop.drain()
    clock.advance(500 * MS)
    wired = clock.now()
    loop.key_down(["z"])
    loop.drain()
    clock.advance(3 * MS)
    loop.tick_if_due()
    assert loop.backend.lamps["B"] == "on"
    loop.enqueue(Press("A", wired - 10 * MS, 0, unc=3 * MS))   # too late: the race is decided
    loop.drain()
    assert loop.backend.lamps["A"] == "off"


def test_a_phone_team_is_no_phone_until_one_joins_and_a_wired_team_never_is():
    """The status the screens say it from (docs/phones.md): a team with phone = true (its pin not
    opened: not the backend's) or with no input of the backend at all, when its phone link
    presses for it, is «Нет телефона» while none is joined, never «Не отвечают»; a wired team
    whose button does not answer still is; a team with no link stays «Не отвечают»."""
    from controller.inputs.base import BackendStatus

    cfg = config.build({"buttons": "gpio", "gpio": {"pins": {"C": "GPIO22", "D": "GPIO23"}},
                        "teams": [{"name": "Альфа", "button": "A", "phone": True},
                                  {"name": "Бета", "button": "B", "phone": True},
                                  {"name": "Гамма", "button": "C"}, {"name": "Дельта", "button": "D"}]})
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock())

    class Chip:   # the wired teams' backend: Дельта's line does not answer
        def status(self):
            return BackendStatus("gpiod", True, missing=("D",))

        def button_keys(self):
            return {}

    loop.use(backend=Chip())
    loop.set_phone_buttons(["A", "B", "C", "D"])
    assert (loop.status()["missing"], loop.status()["no_phone"]) == (["D"], ["A", "B"])
    loop.set_phones_joined(["A", "C"])
    assert (loop.status()["missing"], loop.status()["no_phone"]) == (["D"], ["B"])
    loop.set_phone_buttons(["C", "D"])                 # no link for Альфа and Бета: nothing to say of phones
    assert loop.status()["no_phone"] == []


def test_f4_with_a_question_open_says_the_refusal_at_once_and_asks_twice_only_when_it_can_end():
    """F4 (end the game) asks for a second press only when the game would take it: with a question
    open the first press already says why not, instead of «Нажмите ещё раз» for nothing."""
    loop, clock = make_loop()

    def press(*keys):
        for k in keys:
            loop.key_down([k])
            loop.key_up([k])
            loop.drain()
            clock.advance(100 * MS)
            loop.tick_if_due()
    press("n")                                          # a question opens
    assert engine.view(loop.state)["question"] is not None
    press("f4")
    assert loop.notice == "Сначала завершите или снимите текущий вопрос"
    assert engine.view(loop.state)["stage"] != "finished"
    press("x")                                          # withdrawn: now the game can end
    press("f4")
    assert loop.notice == "Нажмите ещё раз: закончить игру и показать итоги"
    assert engine.view(loop.state)["stage"] != "finished"
    press("f4")
    assert engine.finished(loop.state)


def test_a_host_key_the_game_leaves_out_of_its_keys_says_it_does_nothing_here():
    """«Мафия»'s judge's table has no F4 (end the game in the other games): the host reads one line
    saying so instead of nothing; a key no key map names stays silent."""
    for lang, line in (("ru", "F4 — в этой игре эта клавиша ничего не делает"), ("en", "F4 does nothing in this game")):
        cfg = config.build({"mode": "mafia", "language": lang})
        clock = ManualClock(1_000 * MS)
        loop = Loop(cfg, engine.new_game(cfg, 1), clock)
        loop.key_down(["F4"])
        loop.drain()
        assert loop.notice == line
    loop = Loop(cfg, engine.new_game(cfg, 1), clock)
    loop.key_down(["f13"])                       # no map names it
    loop.drain()
    assert loop.notice == ""
    loop, clock = make_loop()                    # where F4 is a key of the game it asks as before
    loop.key_down(["f4"])
    loop.drain()
    assert loop.notice == "Нажмите ещё раз: закончить игру и показать итоги"
