"""The debounce rule: first edge keeps its time, bounce is counted, taps survive."""

from hypothesis import given, settings, strategies as st

from controller.inputs.debounce import Debouncer, Transition

MS = 1_000_000
WINDOW = 5 * MS


def feed(deb, edges):
    out = []
    for at, level in edges:
        out += deb.edge(at, level)
    return out


def test_press_keeps_first_edge_time_and_counts_bounce():
    deb = Debouncer(WINDOW)
    # contacts close at 1.000 ms, chatter for 2 ms, stay closed
    storm = [(1 * MS, True), (1 * MS + 300_000, False), (1 * MS + 700_000, True),
             (2 * MS, False), (3 * MS, True)]
    assert feed(deb, storm) == [Transition(True, 1 * MS, 0)]
    assert deb.bounces_of[True] == 4
    # release 100 ms later, with its own bounce
    out = feed(deb, [(101 * MS, False), (101 * MS + 200_000, True), (101 * MS + 400_000, False)])
    assert out == [Transition(False, 101 * MS, 4)]
    assert deb.bounces_of[False] == 2
    assert deb.edges == 8


def test_tap_shorter_than_window_is_released_by_settle():
    deb = Debouncer(WINDOW)
    assert feed(deb, [(10 * MS, True), (12 * MS, False)]) == [Transition(True, 10 * MS, 0)]
    assert deb.due() == 15 * MS
    assert deb.settle(14 * MS) == []
    # the release carries its own edge time, not the time settle ran
    assert deb.settle(15 * MS) == [Transition(False, 12 * MS, 0)]
    assert deb.settle(99 * MS) == []
    assert deb.due() is None


def test_pending_release_is_settled_before_the_next_press():
    deb = Debouncer(WINDOW)
    out = feed(deb, [(0, True), (1 * MS, False), (50 * MS, True)])
    assert out == [Transition(True, 0, 0), Transition(False, 1 * MS, 0), Transition(True, 50 * MS, 0)]


def test_starts_held():
    deb = Debouncer(WINDOW, pressed=True, at=0)
    # first edge of a button held at start is accepted (no window yet)
    assert feed(deb, [(1 * MS, False)]) == [Transition(False, 1 * MS, 0)]


def test_zero_window_reports_every_change():
    deb = Debouncer(0)
    edges = [(i * 1000, i % 2 == 0) for i in range(10)]
    assert [t.at for t in feed(deb, edges)] == [at for at, _ in edges]


@st.composite
def edge_trains(draw):
    gaps = draw(st.lists(st.integers(min_value=1, max_value=20 * MS), min_size=1, max_size=60))
    at, level, edges = 0, False, []
    for gap in gaps:
        at += gap
        level = not level
        edges.append((at, level))
    return edges


@settings(max_examples=300, deadline=None)
@given(edge_trains(), st.integers(min_value=0, max_value=10 * MS))
def test_rule_properties(edges, window):
    deb = Debouncer(window)
    out = feed(deb, edges)
    out += deb.settle(edges[-1][0] + window)
    input_times = {at for at, _ in edges}
    # reports alternate, start with a press, use real edge times in order
    assert [t.pressed for t in out] == [i % 2 == 0 for i in range(len(out))]
    assert all(t.at in input_times for t in out)
    assert [t.at for t in out] == sorted(t.at for t in out)
    # the very first edge is always reported with its own time
    assert out[0].at == edges[0][0]
    # after settling, the reported state is where the contact rests
    assert deb.stable == edges[-1][1]
    # every edge is either reported or counted as bounce
    assert deb.edges == len(edges) == deb.transitions + sum(t.bounces for t in out[1:]) + deb.bounces
    # an edge after a quiet gap of at least the window is a new press/release:
    # it is reported at once, with its own time
    reported = {(t.at, t.pressed) for t in out}
    for (prev_at, _), (at, level) in zip(edges, edges[1:]):
        if at - prev_at >= window:
            assert (at, level) in reported
