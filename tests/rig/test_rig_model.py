"""The physical model: card conservation under any sequence of motions, and one pass = one riffle."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.model import Board, riffle


def rising_sequences(perm: list[int]) -> int:
    """Bayer–Diaconis: the number of maximal runs of consecutive values in order."""
    pos = {v: i for i, v in enumerate(perm)}
    return 1 + sum(1 for v in range(1, len(perm)) if pos[v] < pos[v - 1])


@given(st.integers(0, 2**32), st.integers(2, 108))
def test_one_pass_is_one_riffle(seed, n):
    out = riffle(list(range(n)), random.Random(seed))
    assert sorted(out) == list(range(n))
    assert rising_sequences(out) <= 2  # an interleaving of two packets, nothing more


def test_seven_passes_mix_the_deck():
    rng = random.Random(1)
    deck = list(range(52))
    for _ in range(7):
        deck = riffle(deck, rng)
    assert rising_sequences(deck) > 2 and deck != list(range(52))


def _duty(angle: float) -> int:
    return int((500 + 2000 * angle / 270) / 20000 * 65535)


actions = st.lists(st.one_of(
    st.tuples(st.just("eject"), st.integers(0, 1)),
    st.tuples(st.just("rotate"), st.sampled_from([0.0, 45.0, 90.0, 180.0, 270.0, 130.0])),
    st.tuples(st.just("shuffle"), st.integers(0, 1)),
    st.tuples(st.just("stop_early"), st.integers(0, 1)),
), max_size=40)


@settings(max_examples=60, deadline=None)
@given(actions, st.integers(0, 1000), st.floats(0, 0.5), st.floats(0, 0.5))
def test_cards_are_conserved_whatever_the_rig_does(plan, seed, jam, double):
    clock = ManualClock()
    b = Board(clock, seed=seed, jam_rate=jam, double_feed_rate=double, extra=["H4"], missing=["S2"])
    deck = Counter(b.hopper)
    P = b.P
    b.pwm(P.PIN_SERVO, 50, _duty(0.0))
    for what, arg in plan:
        if what == "eject":
            b.pwm(P.PIN_EJECT_A, 20000, 50000)
            clock.advance(300)
            b.advance(clock.now_ms())
            b.pwm(P.PIN_EJECT_A, 20000, 0)
            if arg:
                b.pwm(P.PIN_EJECT_B, 20000, 50000)  # reverse frees a jam
                b.pwm(P.PIN_EJECT_B, 20000, 0)
        elif what == "rotate":
            b.pwm(P.PIN_SERVO, 50, _duty(arg))
            clock.advance(800)
        elif what == "shuffle":
            b.write(P.PIN_RELAY, 1)
            clock.advance(4000)
            b.advance(clock.now_ms())
            b.write(P.PIN_RELAY, 0)
        else:  # the wheel starts and stops before the card reaches the exit: nothing leaves
            before = len(b.hopper)
            b.pwm(P.PIN_EJECT_A, 20000, 50000)
            clock.advance(10)
            b.advance(clock.now_ms())
            b.pwm(P.PIN_EJECT_A, 20000, 0)
            clock.advance(300)
            b.advance(clock.now_ms())
            assert len(b.hopper) == before
        t = b.truth()
        out = Counter(c for h in t["hands"] for c in h) + Counter(t["bottom"]) + Counter(t.get("stray", []))
        assert out + Counter(b.hopper) == deck
        assert sum(out.values()) == len(b.places)


def test_a_ticked_clock_freezes_while_the_mcu_thread_is_starved():
    """SimClock(max_step_ms): one pass of the MCU loop moves the world on by at most max_step_ms, however
    long the thread was off the CPU; the firmware's own sleeps still pass in full."""
    import time

    from firmware_bridge.sim.clock import SimClock
    free, ticked = SimClock(10), SimClock(10, max_step_ms=5)
    time.sleep(0.05)                       # 500 ms of sim time at 10x
    ticked.tick()
    assert free.now_ms() >= 500 and ticked.now_ms() == 5
    t = ticked.now_ms()
    assert ticked.now_ms() == t            # between passes the world stands still
    ticked.sleep_ms(30)
    assert ticked.now_ms() == t + 30


def test_beam_glitches_come_and_go_without_a_card():
    from firmware_bridge.sim.model import Mechanics

    clock = ManualClock()
    b = Board(clock, seed=4, mechanics=Mechanics(beam_glitch_per_s=50.0))
    blocked = 0
    for _ in range(2000):                  # 2 s in 1 ms steps
        clock.advance(1)
        b.advance(clock.now_ms())
        blocked += b.beam_blocked
    assert 50 <= b.glitches <= 160 and blocked < b.glitches and len(b.hopper) == 52


def test_a_soft_irq_runs_late_and_reads_the_pin_as_it_is_then():
    """A soft (scheduled) pin IRQ runs ``soft_irq_us`` after its edge: a level back before then is read
    back; a hard one runs at the edge."""
    from firmware_bridge.sim.model import Mechanics

    clock = ManualClock()
    b = Board(clock, seed=1, mechanics=Mechanics(soft_irq_us=3000.0, beam_glitch_per_s=0.0))
    pin = b.P.PIN_ESTOP
    seen: list[tuple[str, float, int]] = []
    b.set_irq(pin, lambda: seen.append(("soft", clock.now_ms(), b.read(pin))), trigger=8)
    b.press_estop(True)                    # a rising edge at t=0
    clock.advance(1)
    b.advance(clock.now_ms())
    assert seen == []                      # still waiting to run
    b.press_estop(False)                   # the contact bounced back before the handler ran
    for _ in range(4):
        clock.advance(1)
        b.advance(clock.now_ms())
    assert seen == [("soft", 3.0, 0)]      # late, and it reads the level of then
    b.set_irq(pin, lambda: seen.append(("hard", clock.now_ms(), b.read(pin))), trigger=8, hard=True)
    b.press_estop(True)
    b.advance(clock.now_ms())              # the edge reaches the MCU's pin at once
    assert seen[-1] == ("hard", 5.0, 1)


def test_a_ticked_clock_maps_sim_time_to_the_wall_through_its_ticks():
    from firmware_bridge.sim.clock import SimClock
    """A starved MCU thread freezes the world: the sim instant before the freeze maps to a wall instant
    before it, never to "now minus the sim difference" (which would stamp an old camera frame as new)."""
    import time as _t

    c = SimClock(1.0, max_step_ms=5)
    c.tick()
    before = c.now_ms()
    mark = _t.monotonic()
    _t.sleep(0.05)                       # the thread is starved: the world stands still
    c.tick()                             # and moves on by at most 5 ms
    assert c.now_ms() - before <= 5.0
    assert c.monotonic_at(before) <= mark
    assert c.monotonic_at(c.now_ms()) > mark
    free = SimClock(10)
    assert abs(free.monotonic_at(free.now_ms()) - _t.monotonic()) < 0.01
