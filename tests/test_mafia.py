"""The «Мафия» table engine, driven only through events, as a judge would."""

import json

import pytest
from harness import Played
from hypothesis import given, settings, strategies as st

from controller.core.effects import Flash, Log, Notice
from controller.core.errors import ConfigError, GameError
from controller.core.events import NS_PER_S, Host
from controller.games.mafia import game as mafia
from controller.screens.common import flash_dict, flash_words

S = NS_PER_S
NAMES = [f"Игрок {i}" for i in range(1, 11)]


class Table(Played):
    """A judge at the table: times in engine ns; ``settings`` is the [mafia] section,
    ``names`` the players in seat order."""

    unit = 1

    def __init__(self, settings=None, names=NAMES):
        super().__init__({"mode": "mafia", "mafia": {**(settings or {}), "players": list(names)}})

    def seat(self, n):
        return self.view()["seats"][n - 1]


# ---------------------------------------------------------------- set-up

def test_ten_seats_by_default_with_names_and_clean_records():
    v = Table().view()
    assert [s["seat"] for s in v["seats"]] == list(range(1, 11))
    assert v["seats"][2]["name"] == "Игрок 3"
    assert all(s["fouls"] == 0 and s["status"] == "in_game" and not s["speaking"] for s in v["seats"])
    assert v["timer"]["state"] == "idle"
    json.dumps(v)  # the view is plain JSON


def test_seat_count_is_configurable_and_names_can_be_set_later():
    t = Table({"seats": 8}, names=["Аня"])
    assert len(t.view()["seats"]) == 8
    t.host("name", seat=5, name="  Борис ")
    assert t.seat(5)["name"] == "Борис"


def test_more_names_than_seats_is_a_config_error():
    with pytest.raises(ConfigError, match="mafia.seats"):
        mafia.initial({"seats": 2}, ["a", "b", "c"])


@pytest.mark.parametrize("key,value", [("minute_s", 0), ("seats", "ten"), ("remove_fouls", 3),
                                       ("warn_s", -1), ("silence_kinds", ["song"]), ("nope", 1),
                                       ("extra_allowed", [1, -0.5])])
def test_bad_settings_name_the_key(key, value):
    with pytest.raises(ConfigError) as err:
        mafia.initial({key: value})
    assert f"mafia.{key}" in str(err.value)
    assert "\n" not in str(err.value)


# ---------------------------------------------------------------- the countdown

def test_minute_warns_at_10_s_left_and_ends_at_60_s():
    t = Table()
    t.host("speech", at=5 * S, seat=3, kind="minute")
    assert t.seat(3)["speaking"]
    assert mafia.wakeup(t.state) == 55 * S
    assert t.sounds(t.run_to(54 * S)) == []
    assert t.sounds(t.run_to(55 * S)) == ["warning"]
    assert t.view()["timer"]["warning"]
    assert mafia.wakeup(t.state) == 65 * S
    assert t.sounds(t.run_to(70 * S)) == ["time_up"]
    v = t.view()
    assert v["timer"]["state"] == "done" and v["timer"]["remaining_ms"] == 0
    assert not v["seats"][2]["speaking"]
    assert mafia.wakeup(t.state) is None


@pytest.mark.parametrize("kind,total", [("minute", 60), ("defence", 30), ("last_word", 60)])
def test_speech_lengths(kind, total):
    t = Table()
    t.host("speech", at=0, seat=1, kind=kind)
    assert t.view()["timer"]["total_ms"] == total * 1000
    assert t.sounds(t.run_to(total * S - 1)) == ["warning"]
    assert t.sounds(t.run_to(total * S)) == ["time_up"]


def test_speech_lengths_and_warning_are_configurable():
    t = Table({"defence_s": 45, "warn_s": 5})
    t.host("speech", at=0, seat=1, kind="defence")
    assert mafia.wakeup(t.state) == 40 * S


def test_countdown_is_a_deadline_not_a_tick_count():
    """Late, irregular ticks never stretch the minute."""
    t = Table()
    t.host("speech", at=0, seat=1)
    for at in (1, 7, 7, 13, 29, 41, 49):  # irregular, no tick at 50 s
        assert t.sounds(t.tick(at * S + 123)) == []
    assert t.view(now=49 * S)["timer"]["remaining_ms"] == 11_000
    assert t.sounds(t.tick(52 * S)) == ["warning"]  # late tick: warning at once
    assert t.sounds(t.tick(60 * S)) == ["time_up"]  # on time


def test_a_tick_that_jumps_past_both_only_sounds_the_end():
    t = Table()
    t.host("speech", at=0, seat=1)
    assert t.sounds(t.tick(90 * S)) == ["time_up"]
    end = t.entries("mafia.speech_end")
    assert end[0].at == 60 * S  # logged at the deadline, not the late tick


def test_view_counts_down_between_events():
    t = Table()
    t.host("speech", at=10 * S, seat=1)
    assert t.view(now=10 * S)["timer"]["remaining_ms"] == 60_000
    assert t.view(now=40 * S + 1)["timer"]["remaining_ms"] == 30_000  # rounded up
    assert t.view()["timer"]["ends_at_ns"] == 70 * S


def test_pause_and_resume_keep_the_remaining_time():
    t = Table()
    t.host("speech", at=0, seat=2)
    t.host("pause", at=20 * S)
    assert t.view(now=500 * S)["timer"]["remaining_ms"] == 40_000
    assert mafia.wakeup(t.state) is None
    assert t.sounds(t.tick(500 * S)) == []
    t.host("resume", at=600 * S)
    assert mafia.wakeup(t.state) == 630 * S
    assert t.sounds(t.run_to(640 * S)) == ["warning", "time_up"]


def test_stop_ends_the_speech_early():
    t = Table()
    t.host("speech", at=0, seat=2)
    t.host("stop", at=12 * S)
    assert t.view()["timer"]["state"] == "stopped"
    assert not t.seat(2)["speaking"]
    assert t.sounds(t.run_to(100 * S)) == []
    end = t.entries("mafia.speech_end")[-1]
    assert end.data["used_ms"] == 12_000 and end.data["reason"] == "stopped"


def test_stop_or_pause_with_no_speech_is_refused():
    t = Table()
    assert t.notices(t.host("stop")) == ["mafia.no_speech"]
    assert t.notices(t.host("pause")) == ["mafia.no_speech"]
    assert t.notices(t.host("resume")) == ["mafia.not_paused"]


def test_button_presses_do_not_touch_the_table():
    t = Table()
    t.host("speech", at=0, seat=1)
    before = t.view(now=5 * S)
    effects = t.press("3", 5 * S)
    assert effects == [] and t.view() == before


# ---------------------------------------------------------------- speaking order

def test_next_speaker_goes_round_the_table_and_skips_removed_and_out():
    t = Table()
    t.host("disqualify", seat=2)
    t.host("out", seat=3, reason="killed")
    t.host("next_speaker", at=0)
    assert t.view()["timer"]["seat"] == 1
    t.host("next_speaker", at=30 * S)  # stops seat 1 early and moves on
    assert t.view()["timer"]["seat"] == 4
    assert [e["reason"] for e in t.logs("mafia.speech_end")] == ["replaced"]


def test_everyone_spoke_then_a_new_day_opens_one_seat_further():
    t = Table({"seats": 3}, names=["a", "b", "c"])
    for i in range(3):
        t.host("next_speaker", at=i * 100 * S)
    assert t.notices(t.host("next_speaker", at=400 * S)) == ["mafia.everyone_spoke"]
    t.host("day", at=500 * S)
    t.host("next_speaker", at=500 * S)
    assert t.view()["day"] == 2 and t.view()["timer"]["seat"] == 2


def test_new_day_opener_skips_a_seat_that_left():
    t = Table({"seats": 4}, names=list("abcd"))
    t.host("out", seat=2, reason="voted")
    t.host("day")
    t.host("next_speaker")
    assert t.view()["timer"]["seat"] == 3


# ---------------------------------------------------------------- fouls

def test_three_fouls_silence_the_next_minute_and_the_timer_refuses_it():
    t = Table()
    for _ in range(2):
        t.host("foul", seat=4)
    assert t.seat(4) | {} == {**t.seat(4), "fouls": 2, "status": "in_game"}
    effects = t.host("foul", seat=4)
    assert "mafia.silenced" in t.notices(effects)
    assert t.seat(4)["status"] == "silenced" and t.seat(4)["fouls"] == 3
    assert {"key": "mafia.silenced", "params": {"seat": 4}} in t.view()["notices"]
    refused = t.host("speech", seat=4, kind="minute")
    assert [e for e in refused if isinstance(e, Notice)] == [Notice("mafia.silenced", {"seat": 4, "kind": "minute"})]
    assert t.view()["timer"]["state"] == "idle"


def test_silenced_player_may_still_give_a_defence_speech_by_default():
    t = Table()
    for _ in range(3):
        t.host("foul", seat=4)
    t.host("speech", seat=4, kind="defence")
    assert t.view()["timer"]["kind"] == "defence" and t.seat(4)["speaking"]
    assert t.seat(4)["status"] == "silenced"  # the minute is still owed


def test_next_speaker_skips_a_silenced_minute_and_uses_the_silence_up():
    t = Table()
    for _ in range(3):
        t.host("foul", seat=2)
    t.host("next_speaker", at=0)
    effects = t.host("next_speaker", at=60 * S)
    assert "mafia.silenced_skipped" in t.notices(effects)
    assert t.view()["timer"]["seat"] == 3
    assert t.seat(2)["status"] == "in_game" and t.seat(2)["fouls"] == 3
    # the next day seat 2 speaks again
    t.host("day", at=1000 * S)
    t.host("speech", at=1000 * S, seat=2)
    assert t.seat(2)["speaking"]


def test_skip_by_hand_uses_the_silence_up():
    t = Table()
    for _ in range(3):
        t.host("foul", seat=6)
    t.host("skip", seat=6)
    assert t.seat(6)["status"] == "in_game"
    assert t.notices(t.host("skip", seat=6)) == ["mafia.not_silenced"]


def test_fourth_foul_removes_the_player_with_no_last_word():
    t = Table()
    t.host("speech", at=0, seat=5)
    for _ in range(4):
        effects = t.host("foul", at=10 * S, seat=5)
    assert t.seat(5)["status"] == "removed" and t.seat(5)["reason"] == "fouls"
    flash = next(f for f in effects if isinstance(f, Flash))
    assert (flash.kind, flash.team) == ("mafia.removed", "5")
    # the table says its flash's words itself: the screens name no «Мафия» flash
    assert flash_words(flash_dict(flash.kind, flash.team, text=flash.text, line=flash.line), "ru") == \
        ("Удалён", "Игрок 5")
    assert t.view()["timer"]["state"] == "stopped" and not t.seat(5)["speaking"]
    assert t.notices(t.host("speech", seat=5, kind="last_word")) == ["mafia.no_last_word"]
    assert t.notices(t.host("foul", seat=5)) == ["mafia.not_in_game"]


def test_foul_limits_are_configurable():
    t = Table({"silence_fouls": 2, "remove_fouls": 3})
    t.host("foul", seat=1)
    t.host("foul", seat=1)
    assert t.seat(1)["status"] == "silenced"
    t.host("foul", seat=1)
    assert t.seat(1)["status"] == "removed"


def test_disqualifying_foul_removes_at_once_with_no_last_word():
    t = Table()
    t.host("disqualify", seat=7)
    assert t.seat(7)["status"] == "removed" and t.seat(7)["reason"] == "disqualified"
    assert t.notices(t.host("speech", seat=7, kind="last_word")) == ["mafia.no_last_word"]
    assert t.notices(t.host("speech", seat=7)) == ["mafia.removed"]


def test_voted_out_player_gets_a_last_word_but_no_minute():
    t = Table()
    t.host("out", seat=8, reason="voted")
    t.host("speech", seat=8, kind="last_word")
    assert t.view()["timer"]["kind"] == "last_word"
    t.host("stop")
    assert t.notices(t.host("speech", seat=8, kind="minute")) == ["mafia.not_in_game"]


def test_seat_out_of_range_is_refused_not_crashed():
    t = Table()
    assert t.notices(t.host("foul", seat=11)) == ["mafia.bad_seat"]
    assert t.notices(t.host("foul", seat="0")) == ["mafia.bad_seat"]


def test_seat_action_without_a_seat_asks_for_one():
    t = Table()
    assert t.notices(t.host("foul")) == ["mafia.enter_seat"]


@pytest.mark.parametrize("action,params", [("dance", {}), ("foul", {"seat": "x"}),
                                           ("speech", {"seat": 1, "kind": "song"}), ("end_game", {"winner": "draw"})])
def test_malformed_host_actions_raise_a_game_error(action, params):
    with pytest.raises(GameError):
        mafia.step(mafia.initial({}), Host(action, 0, params))


def test_seat_numbers_may_come_as_keypad_strings():
    t = Table()
    t.host("foul", seat="3")
    assert t.seat(3)["fouls"] == 1


# ---------------------------------------------------------------- the keypad

def keys(t, *actions, at=None):
    out = []
    for a in actions:
        out += t.host(a, at=at)
    return out


@pytest.mark.parametrize("digits,seat", [("3", 3), ("10", 10), ("0", 10), ("23", 3), ("11", 1), ("05", 5)])
def test_typed_seat_number_then_the_action_key(digits, seat):
    t = Table()
    keys(t, *[f"digit_{d}" for d in digits])
    assert t.view()["entry"] == str(seat)
    keys(t, "foul")
    assert t.seat(seat)["fouls"] == 1 and t.view()["entry"] == ""


def test_a_seat_given_wins_over_the_typed_one_which_stays_for_the_next_key():
    """The host's phone sends the seat it picked while the keypad may have a number typed."""
    t = Table()
    keys(t, "digit_4")
    t.host("foul", seat=3)
    assert [t.seat(n)["fouls"] for n in (3, 4)] == [1, 0] and t.view()["entry"] == "4"
    keys(t, "foul")
    assert [t.seat(n)["fouls"] for n in (3, 4)] == [1, 1]


def test_enter_starts_the_typed_seat_or_else_the_next_speaker():
    t = Table()
    keys(t, "digit_4", "start", at=0)
    assert t.view()["timer"]["seat"] == 4 and t.view()["timer"]["kind"] == "minute"
    keys(t, "start", at=30 * S)
    assert t.view()["timer"]["seat"] == 5


def test_kind_key_cycles_defence_and_last_word_for_the_next_start():
    t = Table()
    keys(t, "digit_7", "kind", "start", at=0)
    assert t.view()["timer"]["kind"] == "defence" and t.view()["pending_kind"] == "minute"
    keys(t, "digit_7", "kind", "kind", "start", at=5 * S)
    assert t.view()["timer"]["kind"] == "last_word" and t.view()["timer"]["total_ms"] == 60_000


def test_pause_key_toggles():
    t = Table()
    keys(t, "start", at=0)
    keys(t, "pause", at=10 * S)
    assert t.state.paused
    keys(t, "pause", at=20 * S)
    assert t.view()["timer"]["running"] and mafia.wakeup(t.state) == 60 * S


def test_a_whole_game_from_the_keypad():
    t = Table()
    now = 0
    for _ in range(10):  # day 1
        keys(t, "start", at=now)
        now += 61 * S
        t.run_to(now)
    keys(t, "digit_3", "foul", "digit_3", "foul", "digit_3", "foul", at=now)  # seat 3 silenced
    keys(t, "digit_5", "kind", "start", at=now)  # seat 5 defends
    keys(t, "stop", "digit_5", "out", "digit_5", "kind", "kind", "start", at=now + 30 * S)  # voted out, last word
    keys(t, "stop", "day", "digit_9", "killed", at=now + 60 * S)  # night: seat 9 killed
    spoken = []
    for _ in range(7):
        keys(t, "start", at=now + 100 * S)
        spoken.append(t.view()["timer"]["seat"])
    assert spoken == [2, 4, 6, 7, 8, 10, 1]  # day 2 opens at seat 2; 3's minute skipped, 5 and 9 gone
    assert "mafia.everyone_spoke" in t.notices(keys(t, "start", at=now + 150 * S))
    assert t.seat(3)["status"] == "in_game" and t.seat(5)["status"] == "out"
    keys(t, "digit_2", "disqualify", "mafia_wins", at=now + 200 * S)
    v = t.view()
    assert v["winner"] == "mafia" and v["seats"][1]["status"] == "removed"
    summary = mafia.summary(t.state)
    assert summary["seats"][1]["disqualified"] and summary["winner"] == "mafia"


# ---------------------------------------------------------------- undo

def test_undo_takes_back_the_last_foul_including_a_removal():
    t = Table()
    for _ in range(4):
        t.host("foul", seat=1)
    t.host("name", seat=1, name="Новое имя")  # a later rename survives the undo
    t.host("undo")
    assert t.seat(1) | {} == {**t.seat(1), "fouls": 3, "status": "silenced", "name": "Новое имя"}
    t.host("undo")
    assert t.seat(1)["fouls"] == 2 and t.seat(1)["status"] == "in_game"


def test_undo_takes_back_a_disqualification():
    t = Table()
    t.host("disqualify", seat=9)
    effects = t.host("undo")
    assert Notice("mafia.undone", {"undone": "disqualify", "seat": 9}) in effects
    assert t.seat(9)["status"] == "in_game"


def test_undo_cancels_a_wrongly_started_speech_and_the_order_goes_back():
    t = Table()
    for _ in range(3):
        t.host("foul", seat=1)
    t.host("next_speaker", at=0)  # skips silenced seat 1, starts seat 2
    t.host("undo", at=5 * S)
    v = t.view()
    assert v["timer"]["state"] == "idle" and mafia.wakeup(t.state) is None
    assert v["seats"][0]["status"] == "silenced"
    t.host("next_speaker", at=6 * S)
    assert t.view()["timer"]["seat"] == 2 and t.seat(1)["status"] == "in_game"
    assert t.sounds(t.run_to(200 * S)) == ["warning", "time_up"]


def test_undo_of_a_foul_does_not_disturb_the_running_speech():
    t = Table()
    t.host("speech", at=0, seat=3)
    t.host("foul", at=5 * S, seat=4)
    assert t.sounds(t.run_to(52 * S)) == ["warning"]
    t.host("undo", at=52 * S)
    assert t.view()["timer"]["running"]
    assert t.sounds(t.run_to(61 * S)) == ["time_up"]  # no second warning


def test_nothing_to_undo():
    t = Table()
    assert t.notices(t.host("undo")) == ["mafia.nothing_to_undo"]


# ---------------------------------------------------------------- end of game

def test_end_game_records_winner_and_refuses_play_after():
    t = Table()
    t.host("speech", at=0, seat=1)
    flash = next(f for f in t.host("end_game", at=30 * S, winner="mafia") if isinstance(f, Flash))
    v = t.view()
    assert v["phase"] == "ended" and v["winner"] == "mafia" and t.state.ended_at == 30 * S
    # the big words only: no line under them (the winner's side is not a team's name)
    assert flash_words(flash_dict(flash.kind, flash.team, text=flash.text, line=flash.line), "en") == \
        ("Mafia wins", None)
    assert not v["timer"]["running"]
    assert t.notices(t.host("next_speaker")) == ["mafia.game_over"]
    assert t.notices(t.host("foul", seat=2)) == ["mafia.game_over"]
    t.host("undo")  # a wrong winner key can be taken back
    assert t.view()["phase"] == "play"


def test_roles_are_kept_for_the_protocol_but_never_shown():
    t = Table()
    t.host("role", seat=1, role="sheriff")
    assert t.state.seat(1).role == "commissar"
    assert "commissar" not in json.dumps(t.view())


def test_every_action_is_logged():
    t = Table()
    for action, params in [("speech", {"seat": 1}), ("pause", {}), ("resume", {}), ("stop", {}),
                           ("foul", {"seat": 2}), ("disqualify", {"seat": 3}), ("undo", {}),
                           ("out", {"seat": 4}), ("day", {}), ("name", {"seat": 1, "name": "x"}),
                           ("role", {"seat": 1, "role": "don"}), ("skip", {"seat": 1}),
                           ("end_game", {"winner": "town"})]:
        effects = t.host(action, **params)
        assert any(isinstance(e, Log) for e in effects), action


# ---------------------------------------------------------------- a property

actions = st.one_of(
    st.tuples(st.just("foul"), st.integers(1, 10)),
    st.tuples(st.just("disqualify"), st.integers(1, 10)),
    st.tuples(st.just("next_speaker"), st.none()),
    st.tuples(st.just("undo"), st.none()),
    st.tuples(st.just("stop"), st.none()),
    st.tuples(st.just("tick"), st.none()),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(actions, st.integers(0, 40 * S)), max_size=40))
def test_foul_rules_hold_whatever_the_judge_does(script):
    t = Table()
    now = 0
    for (action, seat), gap in script:
        now += gap
        if action == "tick":
            t.tick(now)
        elif seat is None:
            t.host(action, at=now)
        else:
            t.host(action, at=now, seat=seat)
        v = t.view()
        for s in v["seats"]:
            assert s["fouls"] < 4 or s["status"] == "removed"
            assert s["status"] != "silenced" or s["fouls"] == 3
            assert not (s["speaking"] and s["status"] == "removed")
        assert sum(s["speaking"] for s in v["seats"]) <= 1
        due = mafia.wakeup(t.state)
        assert due is None or v["timer"]["running"]


# ---------------------------------------------------------------- config

def test_config_schema_defaults_are_the_engine_defaults():
    from controller.app import config

    table_keys = {k: v for k, v in config.defaults()["mafia"].items() if k not in mafia.SHELL_KEYS}
    assert table_keys == mafia.DEFAULTS


def test_config_refuses_cross_key_mistakes_naming_the_key():
    from controller.app import config

    with pytest.raises(ConfigError, match=r"^mafia.remove_fouls: must be greater than silence_fouls \(3\), got 3$"):
        config.load(overrides={"mafia.remove_fouls": 3})
    with pytest.raises(ConfigError, match=r"^mafia.players: 3 player names for 2 seats$"):
        config.load(overrides={"mafia": {"seats": 2, "players": ["a", "b", "c"]}})


def test_engine_interface_takes_a_whole_config_and_a_seed():
    from controller.app import config

    cfg = config.load(overrides={"mode": "mafia", "mafia": {"seats": 6, "players": ["Аня", "Борис"],
                                                              "minute_s": 45}})
    state = mafia.initial(cfg, 12345)
    v = mafia.view(state, None)
    assert len(v["seats"]) == 6 and v["seats"][1]["name"] == "Борис"
    state, _ = mafia.step(state, Host("next_speaker", 0, {}))
    assert mafia.wakeup(state) == 35 * S
    assert set(mafia.HOST_ACTIONS) >= {"speech", "stop", "pause", "resume", "foul", "disqualify", "undo",
                                       "name", "next_speaker", "end_game"}
    assert mafia.summary(state)["seats"][0]["name"] == "Аня"


@pytest.mark.parametrize("key,value", [("seats", 31), ("seats", 1), ("remove_fouls", 1), ("finalists", 0)])
def test_one_schema_limits_the_config_and_the_engine(key, value):
    """[mafia] has one set of limits: a config file and the engine's own settings refuse alike."""
    from controller.app import config

    with pytest.raises(ConfigError) as by_config:
        config.load(overrides={"mafia": {key: value}})
    with pytest.raises(ConfigError) as by_engine:
        mafia.initial({key: value})
    assert str(by_config.value) == str(by_engine.value)
    assert str(by_config.value).startswith(f"mafia.{key}: ") and "\n" not in str(by_config.value)
    assert mafia.SECTION in config.SCHEMA


def test_the_judges_keys_leave_the_programs_own_keys_alone(tmp_path):
    """H shows the key help and V mutes in «Мафия» too: the judge's default keys take none of the
    program's keys ([keys] help, mute, quit ...), and check-config refuses a map that does, in one
    line naming both actions."""
    import subprocess
    import sys
    from pathlib import Path

    from controller.app import config
    from controller.inputs.keys import HostKeys

    cfg = config.load("config/mafia.toml")
    actions = HostKeys.from_config(cfg).actions
    assert actions["h"] == "help" and actions["f1"] == "help" and actions["v"] == "mute"
    assert actions["escape"] == "quit" and actions["f2"] == "rename"
    for action in ("nominate", "candidate", "vote", "revote", "lift", "miss", "don_check", "sheriff_check",
                   "guess", "extra"):
        assert action in actions.values(), action
    with pytest.raises(ConfigError, match=r"^mafia.keys.vote: key 'v' is already the program's \"mute\" key"):
        config.load(overrides={"mode": "mafia", "mafia.keys": {**cfg["mafia"]["keys"], "vote": ["v"]}})
    bad = tmp_path / "bad.toml"
    bad.write_text('mode = "mafia"\n[keys]\nhelp = ["h", "f1"]\nmute = ["z"]\n', encoding="utf-8")
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "controller.cli", "check-config", str(bad)], capture_output=True,
                       text=True, cwd=root, timeout=60)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert "mafia.keys.don_check" in r.stderr and "\"mute\"" in r.stderr
