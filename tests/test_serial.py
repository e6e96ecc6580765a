"""SerialBackend / serial-sim: box inputs become Press/Release of button ids
on the engine clock, ordered by box time; lamps and status reach the user."""

import json
import queue
import time

import pytest

from controller.inputs import create_backend
from controller.inputs.serial import input_map
from controller.inputs.clock import EngineClock
from controller.core.errors import ConfigError
from controller.core.events import InputStatus, Press, Release
from firmware_bridge.virtual_box import VirtualBox


def until(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def drain(q, n, timeout=30.0):
    out = []
    deadline = time.monotonic() + timeout
    while len(out) < n and time.monotonic() < deadline:
        try:
            out.append(q.get(timeout=0.05))
        except queue.Empty:
            pass
    return out


def test_default_and_configured_input_maps():
    assert input_map(["A", "B", "C"], []) == {0: "A", 1: "B", 2: "C"}
    assert input_map(["A", "B"], [3, 5]) == {3: "A", 5: "B"}
    assert input_map(["A", "B"], {"A": 7, "B": 0}) == {7: "A", 0: "B"}
    with pytest.raises(ConfigError, match="serial.inputs.B"):
        input_map(["A", "B"], [1, 1])
    with pytest.raises(ConfigError, match="serial.inputs"):
        input_map(["A", "B", "C"], [0, 1])


@pytest.fixture
def real_backend():
    """`serial` backend on a virtual box's stable path (as a by-id path)."""
    with VirtualBox() as box:
        q = queue.Queue()
        clock = EngineClock()
        backend = create_backend("serial", ["A", "B", "C"], clock, q.put,
                                 {"port": box.path, "inputs": [2, 0, 1], "reconnect_min_s": 0.01})
        backend.start()
        try:
            assert until(lambda: backend.status().connected)
            yield box, backend, q, clock
        finally:
            backend.close()


def test_presses_map_to_buttons_with_box_time_gaps(real_backend):
    box, backend, q, clock = real_backend
    t = box.now_ticks() + 500
    box.press(0, t + 30)            # button B, 30 us later, reported first
    box.press(2, t)                 # button A
    box.release(2, t + 10_000)     # (past the debounce; a box never stamps beyond its clock)
    events = drain(q, 3)
    assert [type(e) for e in events] == [Press, Press, Release]
    b, a, a_up = events
    assert (a.button, b.button, a_up.button) == ("A", "B", "A")
    assert b.at - a.at == 30_000    # the box's gap, exactly, on the engine clock
    assert min([a, b], key=lambda e: e.at).button == "A"
    assert abs(a.delivered - clock.now()) < 1e9
    assert backend.edges_seen() == {"A": 2, "B": 1}


def test_unmapped_input_is_refused_and_the_host_told(real_backend):
    box, backend, q, _ = real_backend
    box.press(6)
    assert until(lambda: backend.status().extra["refused"] == 1)
    (status,) = drain(q, 1)
    assert isinstance(status, InputStatus) and status.source == "serial"
    assert json.loads(status.detail) == {"kind": "input", "input": 6, "seq": 0, "button": "#6"}
    assert q.empty()                # no press


def test_lamps_follow_set_lamp(real_backend):
    box, backend, _, _ = real_backend
    backend.set_lamp("A", "on")       # input 2
    backend.set_lamp("C", "blink")    # input 1
    assert until(lambda: (box.lamp_on, box.lamp_blink) == (0b100, 0b010))
    backend.set_lamp("A", "off")
    assert until(lambda: (box.lamp_on, box.lamp_blink) == (0, 0b010))


def test_status_shows_disconnection_and_reset(real_backend):
    box, backend, _, _ = real_backend
    st = backend.status()
    assert st.connected and st.name == "serial" and st.extra["lost_events"] == 0
    box.unplug()
    assert until(lambda: not backend.status().connected)
    assert "not connected" in backend.status().detail and backend.status().missing == ("A", "B", "C")
    box.reset()
    box.replug()
    assert until(lambda: backend.status().connected and backend.status().extra["resets"] == 1)
    assert "resets 1" in backend.status().detail


def test_missing_box_is_not_connected(tmp_path):
    backend = create_backend("serial", ["A"], EngineClock(), lambda e: None,
                             {"port": str(tmp_path / "usb-none"), "reconnect_min_s": 0.01})
    backend.start()
    try:
        time.sleep(0.1)
        st = backend.status()
        assert not st.connected and "usb-none" in st.detail
    finally:
        backend.close()


@pytest.mark.parametrize("lang, line", [
    (None, "кнопочный блок {port} ([serial] port) недоступен: нет такого устройства"),
    ("en", "button box {port} not available ([serial] port): no such device"),
])
def test_a_missing_box_is_one_line_to_the_host_in_their_language(tmp_path, caplog, lang, line):
    """Not pyserial's «could not open port …: [Errno 2] … [Errno 2] …»: the port, the key to
    fix and the reason in a few words, once."""
    port = str(tmp_path / "usb-none")
    options = {"port": port, "reconnect_min_s": 0.01, **({"lang": lang} if lang else {})}
    backend = create_backend("serial", ["A"], EngineClock(), lambda e: None, options)
    with caplog.at_level("WARNING"):
        backend.start()
        try:
            assert until(lambda: backend.link.status().last_error and caplog.records)
            assert until(lambda: "Errno" in backend.link.status().last_error)
        finally:
            backend.close()
    assert [r.getMessage() for r in caplog.records] == [line.format(port=port)]


def test_serial_sim_presses_from_keys():
    q = queue.Queue()
    backend = create_backend("serial-sim", ["A", "B"], EngineClock(), q.put,
                             {"keys": {"A": "1", "B": "2"}})
    backend.start()
    try:
        assert until(lambda: backend.status().connected)
        assert backend.key_down("2", 0) and backend.key_down("2", 0)   # auto-repeat: one press
        assert not backend.key_down("x", 0)
        time.sleep(0.01)
        backend.key_down("1", 0)
        events = drain(q, 2)
        assert [(type(e), e.button) for e in events] == [(Press, "B"), (Press, "A")]
        assert events[0].at < events[1].at
        time.sleep(0.006)
        assert backend.key_up("2", 0)
        assert [(type(e), e.button) for e in drain(q, 1)] == [(Release, "B")]
    finally:
        backend.close()
    assert backend.box is None


def test_a_refused_box_frame_is_said_to_the_host_in_words():
    """Issue 24 item 6: what the link refuses reaches the host's notice, naming the button."""
    import io

    from controller.app import config
    from controller.app.loop import Loop
    from controller.games import engine
    from firmware_bridge import codec

    cfg = config.load()
    with VirtualBox() as box:
        clock = EngineClock()
        loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
        backend = create_backend("serial", ["A", "B", "C", "D"], clock, loop.enqueue,
                                 {"port": box.path, "reconnect_min_s": 0.01})
        loop.backend = backend
        backend.start()
        try:
            assert until(lambda: backend.status().connected)
            box.inject(codec.Event(box.next_seq, 2, True, box.now_ticks() + 3600 * box.tick_hz).encode())
            assert until(lambda: (loop.drain(), loop.notice)[1] != "" and "Пульт" in loop.notice, 5)
            assert loop.notice.startswith("Пульт: событие кнопки C отклонено — его время не сходится "
                                          "с часами пульта ("), loop.notice
            assert "refused 1" in backend.status().detail
        finally:
            backend.close()


def test_a_forged_hello_is_said_to_the_host_in_words_and_the_press_counts():
    """Issue 24: a HELLO claiming a new boot from a box that is talking is refused; the host
    reads why, and the press made at the same time reaches the game."""
    import io

    from controller.app import config
    from controller.app.loop import Loop
    from controller.games import engine
    from firmware_bridge import codec

    cfg = config.load()
    with VirtualBox() as box:
        clock = EngineClock()
        loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
        seen = []
        backend = create_backend("serial", ["A", "B", "C", "D"], clock, lambda e: (seen.append(e), loop.enqueue(e)),
                                 {"port": box.path, "reconnect_min_s": 0.01})
        loop.backend = backend
        backend.start()
        try:
            assert until(lambda: backend.status().connected)
            box.inject(codec.Hello(0, box.boot_id ^ 1, box.n_inputs, box.tick_hz, box.debounce_us, 5).encode())
            box.press(1)
            assert until(lambda: (loop.drain(), loop.notice)[1] != "" and "Пульт" in loop.notice, 5)
            assert loop.notice.startswith("Пульт: сообщение о перезапуске пульта отклонено — пульт отвечает "
                                          "как прежде"), loop.notice
            assert until(lambda: any(isinstance(e, Press) and e.button == "B" for e in seen), 5)
            assert "refused 1" in backend.status().detail and "resets" not in backend.status().detail
        finally:
            backend.close()


def test_buzzer_run_gives_the_box_the_configs_language(tmp_path, caplog):
    """make_backend (buzzer run) passes the config's language: an English host reads English."""
    from controller.app import config, startup
    port = tmp_path / "usb-none"
    path = tmp_path / "en.toml"
    path.write_text(f'buttons = "serial"\nlanguage = "en"\n[serial]\nport = "{port}"\n', encoding="utf-8")
    backend = startup.make_backend(config.load(path), EngineClock(), lambda e: None)
    with caplog.at_level("WARNING"):
        backend.start()
        try:
            assert until(lambda: caplog.records)
        finally:
            backend.close()
    assert caplog.records[0].getMessage() == f"button box {port} not available ([serial] port): no such device"
