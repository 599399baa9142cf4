"""E-stops at every moment of a card's cycle: the operator presses stop, clears and resumes, and the deal
still ends with every hand as the rig really dealt it (never a card counted twice, never voided).

The real dealer drives the virtual rig (the firmware behind a pty, the MJPEG camera, the ONNX reader,
SQLite). A watcher thread presses the software e-stop (what POST /api/estop does) a set time of sim
clock after the start of one card's eject; one deal takes several presses, each at a later card and a
later point of the ~600 ms cycle (pick, the beam, the chute, the turn, the next read).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from controller.deal.operators import AutoOperator
from firmware_bridge.sim import VirtualRig
from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.model import Board

SPEED = 20
CYCLE_MS = 640            # a bit over one card's cycle at speed 1 (sim ms)
PRESSES = 8               # e-stops per deal, at cards 4, 9, 14, ...


def _run(b: Board, ms: float) -> None:
    b.clock.advance(ms)
    b.advance(b.clock.now_ms())


def _bridge(b: Board, a_pin: int, b_pin: int, a: int, bb: int) -> None:
    """Set a DRV8833 half's inputs one after the other, as the firmware's Motor does (A first)."""
    b.pwm(a_pin, 20000, a)
    b.pwm(b_pin, 20000, bb)


def test_an_estop_with_the_card_in_the_beam_leaves_it_there_and_a_real_reverse_pulls_it_back():
    """The firmware's e-stop turns both rollers off: the braked pick roller (both inputs high) goes to
    coast (both low) through a moment of reverse. That moment moves nothing: the card stays in the beam
    (it did not leave, and it was not pulled back either). A reverse held for the firmware's REVERSE_MS
    does pull it back behind the gate."""
    b = Board(ManualClock(), seed=3)
    P, cards = b.P, len(b.hopper)
    b.write(P.PIN_NSLEEP, 1)
    _bridge(b, P.PIN_TAKE_A, P.PIN_TAKE_B, 50000, 0)         # take-away forward, then pick forward
    _bridge(b, P.PIN_EJECT_A, P.PIN_EJECT_B, 50000, 0)
    _run(b, 60)
    _bridge(b, P.PIN_EJECT_A, P.PIN_EJECT_B, 65535, 65535)   # the nip has it: the pick roller brakes
    _run(b, 60)
    assert b.card_in_beam and b.fed
    _bridge(b, P.PIN_EJECT_A, P.PIN_EJECT_B, 0, 0)           # the e-stop: all off
    _bridge(b, P.PIN_TAKE_A, P.PIN_TAKE_B, 0, 0)
    _run(b, 500)
    assert b.card_in_beam and b.fed and len(b.hopper) == cards and b.scene_at(b.clock.now_ms())[2] == cards
    _bridge(b, P.PIN_TAKE_A, P.PIN_TAKE_B, 0, 50000)         # a real reverse: REVERSE_MS, then off
    _bridge(b, P.PIN_EJECT_A, P.PIN_EJECT_B, 0, 50000)
    _run(b, 120)
    _bridge(b, P.PIN_EJECT_A, P.PIN_EJECT_B, 0, 0)
    _bridge(b, P.PIN_TAKE_A, P.PIN_TAKE_B, 0, 0)
    assert not b.card_in_beam and not b.fed and len(b.hopper) == cards and not b.places


@pytest.fixture(scope="module")
def reader():
    from vision.reader import CardReader

    return CardReader(threads=1)


class Presser:
    """Presses the dealer's e-stop ``offsets[k]`` sim ms after the eject of card ``cards[k]`` starts
    (``from_beam``: after that card's leading edge reaches the counting beam)."""

    def __init__(self, vr: VirtualRig, dealer: Any, cards: list[int], offsets: list[float], from_beam: bool):
        self.vr, self.dealer, self.plan = vr, dealer, list(zip(cards, offsets, strict=True))
        self.from_beam = from_beam
        self.pressed: list[tuple[int, float]] = []   # (card, sim ms after its eject began)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        board, clock = self.vr.board, self.vr.board.clock
        for card, offset in self.plan:
            t0 = None
            while not self.stop.is_set():
                with board.lock:
                    ejects, now, in_beam = board.ejects, clock.now_ms(), board.card_in_beam
                if t0 is None and ejects >= card and (in_beam or not self.from_beam):
                    t0 = now
                if t0 is not None and now - t0 >= offset:
                    self.dealer.estop()
                    self.pressed.append((card, now - t0))
                    break
                time.sleep(0.0005)


class PullsBack(AutoOperator):
    """At an e-stop, the person makes the table safe by pulling the card stopped in the beam back into
    the hopper by hand, then waits a moment before resuming: the beam saw a card go by (backwards)."""

    def __init__(self, vr: VirtualRig):
        super().__init__()
        self.vr, self.pulled = vr, 0

    def attend(self, problem: dict[str, Any]) -> str:
        board = self.vr.board
        if problem["reason"] == "estop":
            with board.lock:
                if board.card_in_beam:
                    board.clear_path()
                    self.pulled += 1
            time.sleep(0.1)     # the firmware's loop sees the beam clear before anyone presses clear
        return super().attend(problem)


def _deal_with_estops(tmp_path, reader, seed: int, offsets: list[float], speed: float = SPEED,
                      operator: Any = None, every: int = 5, from_beam: bool = False) -> tuple[Any, dict, list, list]:
    from controller.camera import open_camera
    from controller.config import load_config
    from controller.deal import Dealer
    from controller.journal import Journal
    from firmware_bridge import Rig

    vr = VirtualRig(seed=seed, speed=speed)
    ends = vr.start()
    cfg = load_config(None, env={"HONGSI_SHUFFLE_PASSES": "1", "HONGSI_VOICE": "false"})
    rig = Rig(ends["serial"], angles=cfg.servo_angles, bottom_angle=cfg.bottom_angle)
    camera = open_camera(ends["camera"])
    journal = Journal(tmp_path / f"journal{seed}.db", durable=False)
    presser = None
    try:
        rig.connect()
        operator = operator(vr) if operator else AutoOperator(delay=0.05)
        dealer = Dealer(rig, camera, reader, journal, config=cfg, operator=operator)
        presser = Presser(vr, dealer, [4 + every * k for k in range(len(offsets))], offsets,
                          from_beam)
        presser.thread.start()
        try:
            result = dealer.run("hongsi", first_seat=0, fair=False)
        finally:
            presser.stop.set()
            presser.thread.join(5)
            dealer.close()
        rows = [(r.kind, r.data) for r in journal.rows(result.round)]
        return result, vr.truth(), rows, presser.pressed
    finally:
        camera.close()
        rig.close()
        journal.close()
        vr.stop()


def _story(rows: list[tuple[str, dict]]) -> str:
    """The journal rows around each fault, for the failure message."""
    keep = {"fault", "pause", "resync", "card_read", "eject_intent", "eject_done", "mcu_baseline", "decoded"}
    lines = [f"{k} {({n: v for n, v in d.items() if n != 'probs'})}" for k, d in rows if k in keep]
    return "\n".join(lines)[-8000:]


@pytest.mark.slow
@pytest.mark.parametrize("seed,phase", [(5, 0.0), (6, 0.33), (7, 0.67)])
def test_estop_at_any_moment_of_a_card_then_resume_deals_the_truth(tmp_path, reader, seed, phase):
    offsets = [CYCLE_MS * ((phase + k / PRESSES) % 1.0) for k in range(PRESSES)]
    result, truth, rows, pressed = _deal_with_estops(tmp_path, reader, seed, offsets)
    kinds = [k for k, _ in rows]
    assert len(pressed) == PRESSES and kinds.count("pause") >= PRESSES, (pressed, kinds.count("pause"))
    assert result.status == "done", f"{result.message}\npressed {pressed}\n{_story(rows)}"
    assert [sorted(h) for h in result.record["hands"]] == [sorted(h) for h in truth["hands"]], pressed
    assert sorted(result.record["bottom"]) == sorted(truth["bottom"]) and not truth.get("stray")


@pytest.mark.slow
def test_a_card_pulled_back_by_hand_at_an_estop_is_dealt_once(tmp_path, reader):
    """The beam cannot tell a card pulled back from one that went on: the firmware counts it as gone.
    The window still shows it, and the deck has no other copy: the dealer believes the window, and
    deals the card once."""
    made: list[PullsBack] = []

    def person(vr: VirtualRig) -> PullsBack:
        made.append(PullsBack(vr))
        return made[-1]

    # pressed 35 ms after the card reaches the beam, the stop lands (the link's delay) with the card in it
    # for longer than an EMI glitch: the beam's pulse, once it clears, is a card's
    result, truth, rows, pressed = _deal_with_estops(tmp_path, reader, 8, [35.0] * 5, speed=5,
                                                     operator=person, every=7, from_beam=True)
    assert made[0].pulled >= 1, pressed      # at least one press caught a card in the beam
    assert any(k == "resync" and d["by"].startswith("sight: the counter") for k, d in rows), _story(rows)
    assert result.status == "done", f"{result.message}\npressed {pressed}\n{_story(rows)}"
    assert [sorted(h) for h in result.record["hands"]] == [sorted(h) for h in truth["hands"]], pressed
