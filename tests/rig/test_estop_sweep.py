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
    """Presses the dealer's e-stop ``offsets[k]`` sim ms after the eject of card ``cards[k]`` starts."""

    def __init__(self, vr: VirtualRig, dealer: Any, cards: list[int], offsets: list[float]):
        self.vr, self.dealer, self.plan = vr, dealer, list(zip(cards, offsets, strict=True))
        self.pressed: list[tuple[int, float]] = []   # (card, sim ms after its eject began)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        board, clock = self.vr.board, self.vr.board.clock
        for card, offset in self.plan:
            t0 = None
            while not self.stop.is_set():
                with board.lock:
                    ejects, now = board.ejects, clock.now_ms()
                if t0 is None and ejects >= card:
                    t0 = now
                if t0 is not None and now - t0 >= offset:
                    self.dealer.estop()
                    self.pressed.append((card, now - t0))
                    break
                time.sleep(0.0005)


def _deal_with_estops(tmp_path, reader, seed: int, offsets: list[float]) -> tuple[Any, dict, list, list]:
    from controller.camera import open_camera
    from controller.config import load_config
    from controller.deal import AutoOperator, Dealer
    from controller.journal import Journal
    from firmware_bridge import Rig

    vr = VirtualRig(seed=seed, speed=SPEED)
    ends = vr.start()
    cfg = load_config(None, env={"HONGSI_SHUFFLE_PASSES": "1", "HONGSI_VOICE": "false"})
    rig = Rig(ends["serial"], angles=cfg.servo_angles, bottom_angle=cfg.bottom_angle)
    camera = open_camera(ends["camera"])
    journal = Journal(tmp_path / f"journal{seed}.db", durable=False)
    presser = None
    try:
        rig.connect()
        dealer = Dealer(rig, camera, reader, journal, config=cfg, operator=AutoOperator(delay=0.05))
        presser = Presser(vr, dealer, [4 + 5 * k for k in range(len(offsets))], offsets)
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
