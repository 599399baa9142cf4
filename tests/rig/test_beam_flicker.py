"""The counting beam as harsh as its receiver: a card's edges chatter, thin stock lets IR through for a
moment, EMI gives false "blocked" readings — and the firmware's exit sensor (its own driver, on the
model's pin, hard interrupts) still measures one pulse per card, the card's length.

The model's board may fire many milliseconds of events between two passes of the firmware's loop (a
slow pass; the sim's step): a glitch after a card's tail must not overwrite the card's pulse before the
loop takes it — it did, the eject then timed out as a jam while the card had gone, and a deal lost it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.fakes import load_config, load_firmware
from firmware_bridge.sim.model import Board, Mechanics

CFG = load_config()
QUIET = dict(beam_glitch_per_s=0.0, edge_bounce_ms=0.0, leak_share=0.0)


def _sensor(**mech):
    clock = ManualClock()
    board = Board(clock, seed=1, mechanics=Mechanics(**{**QUIET, **mech}))
    ex = load_firmware(board)["drivers"].ExitSensor(board.P.PIN_EXIT)
    return clock, board, ex


def _run(clock, board, until_ms: float) -> None:
    clock.advance(until_ms - clock.now_ms())
    board.advance(clock.now_ms())  # all of it in one go: no pass of the loop in between


def test_a_glitch_after_the_tail_does_not_overwrite_the_cards_pulse():
    clock, board, ex = _sensor()
    board.schedule(10, lambda: board._card_in_beam(True))
    board.schedule(96, lambda: board._card_in_beam(False))
    board.schedule(101, lambda: board._flicker(True, 0.2))   # EMI 5 ms after the tail
    _run(clock, board, 130)
    assert ex.pulse_us() == 86_000 and ex.pulse_start() == 10_000
    assert ex.pulse_us() == 86_000   # kept until the loop arms the sensor
    ex.arm()
    _run(clock, board, 140)
    assert ex.pulse_us() is None  # the glitch is not a card either


def test_ir_leaking_through_the_first_half_of_a_card_does_not_shorten_its_pulse():
    clock, board, ex = _sensor()
    board.schedule(10, lambda: board._card_in_beam(True))
    board.schedule(30, lambda: board._flicker(False, 0.5))   # 20 ms into an 86 ms card
    board.schedule(96, lambda: board._card_in_beam(False))
    _run(clock, board, 110)
    assert ex.pulse_us() == 86_000 and ex.glitches == 0


@settings(max_examples=60, deadline=None)
@given(card_ms=st.floats(75.0, 220.0), leak=st.floats(0.02, 0.98),
       glitch_after=st.floats(CFG.BOUNCE_US / 1000 + 0.5, 40.0),
       glitch_before=st.floats(CFG.BOUNCE_US / 1000 + 0.5, 40.0), seed=st.integers(0, 2**16))
def test_one_pulse_per_card_whatever_the_beam_does(card_ms, leak, glitch_after, glitch_before, seed):
    """Edge bounce at both edges, a leak anywhere along the card, a glitch before it and one after it
    (further than the merge window: one closer is merged into the card, by design): one pulse, the
    card's length give or take the bounce."""
    clock = ManualClock()
    mech = Mechanics(beam_glitch_per_s=0.0, leak_share=0.0, bounce_flips=3)
    board = Board(clock, seed=seed, mechanics=mech)
    ex = load_firmware(board)["drivers"].ExitSensor(board.P.PIN_EXIT)
    t0 = 50.0
    board.schedule(t0 - glitch_before, lambda: board._flicker(True, 0.2))
    board.schedule(t0, lambda: board._card_in_beam(True))
    board.schedule(t0 + leak * card_ms, lambda: board._flicker(False, mech.leak_ms) if board.card_in_beam else None)
    board.schedule(t0 + card_ms, lambda: board._card_in_beam(False))
    board.schedule(t0 + card_ms + mech.edge_bounce_ms + glitch_after + 0.01, lambda: board._flicker(True, 0.2))
    _run(clock, board, t0 + card_ms + 50)
    pulse = ex.pulse_us()
    assert pulse is not None and board.bounces == 6
    assert -0.002 <= pulse / 1000 - card_ms <= mech.edge_bounce_ms + 0.15 + 0.002, (pulse, card_ms)


def test_the_beams_harshness_comes_from_the_parts():
    m = Mechanics()
    assert m.beam_glitch_per_s == CFG.BEAM_GLITCH_PER_S > 0 and m.leak_share == CFG.LEAK_SHARE > 0
    assert 0 < m.edge_bounce_ms == CFG.EDGE_BOUNCE_MS and m.bounce_flips == CFG.BOUNCE_FLIPS > 0
    # every flicker the model makes inside a card is shorter than the firmware's merge window
    assert max(m.edge_bounce_ms, m.leak_ms) * 1000 < CFG.BOUNCE_US


def test_a_deal_of_cards_through_the_harsh_beam_counts_each_once():
    """The model's own flickers (its defaults) on a whole deck fed through by hand, the loop taking
    pulses only every 20 ms: 52 pulses, no glitch taken for a card."""
    clock = ManualClock()
    board = Board(clock, seed=5, mechanics=Mechanics(beam_glitch_per_s=20.0, leak_share=0.5))
    ex = load_firmware(board)["drivers"].ExitSensor(board.P.PIN_EXIT)
    pulses = []
    t = 30.0
    for _ in range(52):
        board.schedule(t - clock.now_ms(), lambda: board._card_in_beam(True))
        board.schedule(t + 86 - clock.now_ms(), lambda: board._card_in_beam(False))
        t += 200
        while clock.now_ms() < t - 20:
            _run(clock, board, clock.now_ms() + 20)
            p = ex.pulse_us()
            if p is not None:
                pulses.append(p)
                ex.arm()
    # never cut short; longer only by a flicker merged at the tail (a glitch within the merge window)
    assert len(pulses) == 52 and all(86_000 <= p <= 86_000 + CFG.BOUNCE_US + 500 for p in pulses)
    assert board.glitches > 30 and board.leaks > 10 and board.bounces >= 52 * 2 * 2


def test_a_glitch_at_the_instant_of_an_eject_is_no_stuck_card():
    """The eject refuses a card already in the beam; an EMI glitch read at that instant is not one (it
    refused an eject as a jam about once in 10,000 at the model's glitch rate)."""
    clock, board, ex = _sensor()
    board.schedule(10, lambda: board._flicker(True, 0.2))
    _run(clock, board, 10.05)  # inside the glitch
    assert ex.blocked() and not ex.held()
    board.schedule(20, lambda: board._card_in_beam(True))
    _run(clock, board, 40)
    assert ex.held()  # a card lying in the beam still is


def test_ejects_through_a_storm_of_beam_glitches_are_never_refused_as_jams():
    """Glitches 8 % of the time (400 a second, the model's 0.5 times 800): without the edge's stamp about 4
    ejects in 52 were refused as a card stuck in the beam."""
    from firmware_bridge import DoubleFeed, Jam, Rig
    from firmware_bridge.sim import VirtualRig

    jams = 0
    with VirtualRig(seed=7, speed=40, camera=False, mechanics=Mechanics(beam_glitch_per_s=400.0)) as vr:  # 8 % of the time
        rig = Rig(vr.ends["serial"])
        rig.connect()
        try:
            rig.home()
            for i in range(52):
                rig.rotate_to(i % 4)
                try:
                    rig.eject()
                except Jam:
                    jams += 1
                    rig.clear_fault()
                except DoubleFeed:  # at 800 times the model's rate a glitch sometimes lengthens a card's pulse
                    rig.clear_fault()
        finally:
            rig.close()
        glitches = vr.board.glitches
    assert glitches > 1000 and jams == 0
