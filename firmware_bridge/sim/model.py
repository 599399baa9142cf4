"""The physical model of the rig: the Pico's pins wired to a hopper, a shuffler, an ejector with its
exit sensor, a turntable servo, an end-stop and an e-stop — with realistic timings (at speed 1).

The pin map comes from the firmware's own ``config`` (one source). Everything here is in simulated
milliseconds; :meth:`Board.advance` fires due events in order, holding the clock at each event's instant
while its interrupt handler runs, so the firmware measures exact pulse lengths at any speed.

>>> from firmware_bridge.sim.clock import ManualClock
>>> b = Board(ManualClock(), seed=1)
>>> len(b.hopper), b.hopper[0]
(52, 'S2')
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import deck, parse_card


@dataclass
class Mechanics:
    """Timings and geometry of the rig at speed 1 (milliseconds, degrees)."""

    eject_travel_ms: float = 60.0  # motor start to the card's leading edge at the exit beam
    card_pulse_ms: float = 73.0  # one 88 mm card through the beam at 1.2 m/s
    double_overlap: tuple[float, float] = (0.25, 0.6)  # a second card trails by this share of a card
    turntable_deg_per_s: float = 400.0
    riffle_ms: float = 3000.0  # one pass of the two-bin shuffler
    boot_ms: float = 300.0  # MicroPython boot after a reset
    seat_tolerance_deg: float = 6.0
    endstop_deg: float = 1.0
    servo_min_us: float = 500.0
    servo_max_us: float = 2500.0
    servo_range_deg: float = 270.0

    def mechanical_eject_ms(self) -> float:
        """The least time one card can take to leave: travel plus its pulse."""
        return self.eject_travel_ms + self.card_pulse_ms


def make_deck(decks: int = 1, jokers: bool = False, missing: Sequence[str] = (),
              extra: Sequence[str] = ()) -> list[str]:
    """The cards in the hopper, new-deck order, less ``missing`` (one copy each) plus ``extra``."""
    cards = [str(c) for c in deck(jokers=jokers, decks=decks)]
    for m in missing:
        name = str(parse_card(m))
        if name not in cards:
            raise ValueError(f"--missing {m}: not in the deck")
        cards.remove(name)
    cards += [str(parse_card(e)) for e in extra]
    return cards


def riffle(cards: list[str], rng: random.Random) -> list[str]:
    """One pass of a cheap two-bin shuffler: a binomial cut, then the bins drop clumps of 1-3 cards,
    each side with a chance proportional to what it still holds (Gilbert–Shannon–Reeds with clumps)."""
    cut = sum(rng.random() < 0.5 for _ in cards)
    left, right = cards[:cut], cards[cut:]
    out: list[str] = []
    while left or right:
        side = left if rng.random() < len(left) / (len(left) + len(right)) else right
        clump = rng.choices((1, 2, 3), weights=(6, 3, 1))[0]
        out += side[:clump]
        del side[:clump]
    return out


class Board:
    """Pins, mechanics and the cards. Thread-safe: the MCU thread, the camera and the API share it."""

    def __init__(self, clock: Any, *, seed: int | None = None, decks: int = 1, jokers: bool = False,
                 missing: Sequence[str] = (), extra: Sequence[str] = (), jam_rate: float = 0.0,
                 double_feed_rate: float = 0.0, mcu_reset_at: int | None = None,
                 angles: Sequence[float] = (0.0, 90.0, 180.0, 270.0), bottom_angle: float = 45.0,
                 mechanics: Mechanics | None = None, truth_path: Path | None = None, pins: Any = None):
        self.clock = clock
        self.rng = random.Random(seed)
        self.mech = mechanics or Mechanics()
        self.jam_rate, self.double_feed_rate = jam_rate, double_feed_rate
        self.mcu_reset_at = mcu_reset_at
        self.angles, self.bottom_angle = [float(a) for a in angles], float(bottom_angle)
        self.truth_path = Path(truth_path) if truth_path else None
        if pins is None:
            from firmware_bridge.sim.fakes import load_config

            pins = load_config()
        self.P = pins
        self._timers: set[object] = set()
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.hopper: list[str] = make_deck(decks, jokers, missing, extra)
        self.places: list[tuple[str, int | str | None]] = []  # (card, seat / "bottom" / None) this deal
        self.deal_no = 1
        self.truth_written = False
        self.frame_seq = 0
        self.ejects = 0  # eject starts with a card in the hopper, this deal
        self.forced_jams = 0
        self.forced_doubles = 0
        self.endstop_connected = True
        self.estop_pressed = False
        self.out: dict[int, int] = {}
        self.pwms: dict[int, tuple[int, int]] = {}
        self.irqs: dict[int, tuple[Callable[[], None], int]] = {}
        self.events: list[tuple[float, int, Callable[[], None]]] = []
        self._n = itertools.count()
        self.beam_blocked = False
        self.motor = 0
        self.feed_token: object | None = None
        self.stalled = False
        start = self.rng.uniform(20.0, 250.0)  # where the turntable was left at power-off
        self.angle_from, self.angle_to, self.angle_t0 = start, start, 0.0
        self.servo_powered = False
        self.relay = False
        self.riffle_end: float | None = None
        self.wdt_timeout: float | None = None
        self.wdt_last = 0.0
        self.reset_request: int | None = None
        self.resets_done = 0
        self.flash: dict[str, str] = {}  # the Pico's own files besides the firmware (name -> text)
        self.log: list[tuple[float, str]] = []  # (ms, what) for tests and the benchmark

    # ------------------------------------------------------------------ pins (called by fake machine)
    def read(self, pin: int) -> int:
        P = self.P
        with self.lock:
            if pin == P.PIN_EXIT:
                return 0 if self.beam_blocked else 1
            if pin == P.PIN_HOPPER:
                return 0 if self.hopper else 1
            if pin == P.PIN_ENDSTOP:
                return 0 if self.endstop_connected and self.angle_now() <= self.mech.endstop_deg else 1
            if pin == P.PIN_ESTOP:
                return 1 if self.estop_pressed else 0
            if pin == P.PIN_CURRENT:
                return 1 if self.relay and self.riffle_end is not None else 0
            return self.out.get(pin, 0)

    def write(self, pin: int, v: int) -> None:
        with self.lock:
            self.out[pin] = v
            if pin == self.P.PIN_RELAY:
                self._relay(bool(v))

    def pwm(self, pin: int, freq: int, duty: int) -> None:
        with self.lock:
            self.pwms[pin] = (freq, duty)
            P = self.P
            if pin in (P.PIN_EJECT_A, P.PIN_EJECT_B):
                a = self.pwms.get(P.PIN_EJECT_A, (0, 0))[1]
                b = self.pwms.get(P.PIN_EJECT_B, (0, 0))[1]
                self._motor(1 if a and not b else -1 if b and not a else 0)
            elif pin == P.PIN_SERVO:
                self._servo(freq, duty)

    def set_irq(self, pin: int, handler: Callable[[], None] | None, trigger: int) -> None:
        with self.lock:
            if handler is None:
                self.irqs.pop(pin, None)
            else:
                self.irqs[pin] = (handler, trigger)

    def _edge(self, pin: int, rising: bool) -> None:
        h = self.irqs.get(pin)
        if h and h[1] & (8 if rising else 4):
            h[0]()

    def timer(self, ms: float, periodic: bool, callback: Callable[[], None]) -> object:
        token = object()

        def fire() -> None:
            if token in self._timers:
                callback()
                if periodic:
                    self.schedule(ms, fire)

        self._timers.add(token)
        self.schedule(ms, fire)
        return token

    def cancel_timer(self, token: object) -> None:
        self._timers.discard(token)

    def wdt_start(self, timeout: float) -> None:
        with self.lock:
            self.wdt_timeout, self.wdt_last = float(timeout), self.clock.now_ms()

    def wdt_feed(self) -> None:
        self.wdt_last = self.clock.now_ms()

    def request_reset(self, cause: int) -> None:
        with self.lock:
            self.reset_request = cause

    def power_cycle_outputs(self) -> None:
        """A reset: every output floats low, interrupts and the watchdog are gone."""
        with self.lock:
            for pin in list(self.pwms):
                self.pwm(pin, self.pwms[pin][0], 0)
            for pin in list(self.out):
                self.write(pin, 0)
            self.irqs.clear()
            self._timers = set()
            self.wdt_timeout = None
            self.reset_request = None

    def press_estop(self, pressed: bool = True) -> None:
        """The e-stop input wired to the Pico (normally closed: pressed = HIGH)."""
        with self.lock:
            if pressed != self.estop_pressed:
                self.estop_pressed = pressed
                self.schedule(0, lambda: self._edge(self.P.PIN_ESTOP, rising=pressed))  # in the MCU thread

    # ------------------------------------------------------------------ time
    def schedule(self, after_ms: float, fn: Callable[[], None]) -> None:
        with self.lock:
            heapq.heappush(self.events, (self.clock.now_ms() + after_ms, next(self._n), fn))

    def next_event_ms(self) -> float | None:
        with self.lock:
            return self.events[0][0] if self.events else None

    def advance(self, now: float) -> None:
        """Fire every event due by ``now``, each at its own instant; check the watchdog."""
        while True:
            with self.lock:
                if not self.events or self.events[0][0] > now:
                    break
                t, _, fn = heapq.heappop(self.events)
                self.clock.pin(t)
                try:
                    fn()
                finally:
                    self.clock.pin(None)
        with self.lock:
            if self.wdt_timeout is not None and now - self.wdt_last > self.wdt_timeout:
                self.log.append((now, "watchdog reset"))
                self.reset_request = 3

    # ------------------------------------------------------------------ the turntable
    def angle_now(self) -> float:
        t = self.clock.now_ms()
        span = self.angle_to - self.angle_from
        done = (t - self.angle_t0) * self.mech.turntable_deg_per_s / 1000.0
        if abs(span) <= done:
            return self.angle_to
        return self.angle_from + (done if span > 0 else -done)

    def _servo(self, freq: int, duty: int) -> None:
        now_angle = self.angle_now()
        if not duty or not freq:
            self.servo_powered = False
            self.angle_from = self.angle_to = now_angle  # a limp servo stays where it is
            return
        us = duty / 65535 * 1e6 / freq
        m = self.mech
        target = (us - m.servo_min_us) / (m.servo_max_us - m.servo_min_us) * m.servo_range_deg
        target = max(0.0, min(m.servo_range_deg, target))
        self.servo_powered = True
        self.angle_from, self.angle_to, self.angle_t0 = now_angle, target, self.clock.now_ms()

    def place_of(self, angle: float) -> int | str | None:
        tol = self.mech.seat_tolerance_deg
        for i, a in enumerate(self.angles):
            if abs(angle - a) <= tol:
                return i
        if abs(angle - self.bottom_angle) <= tol:
            return "bottom"
        return None

    # ------------------------------------------------------------------ the ejector
    def _motor(self, state: int) -> None:
        if state == self.motor:
            return
        self.motor = state
        if state == 1:
            self._start_feed()
        else:
            if state == -1:
                self.stalled = False  # reversing frees a jammed card
            if not self.beam_blocked:
                self.feed_token = None  # the card had not reached the exit: it stays

    def _start_feed(self) -> None:
        if not self.hopper:
            return
        self.ejects += 1
        if self.mcu_reset_at is not None and self.ejects == self.mcu_reset_at and not self.resets_done:
            self.resets_done += 1
            self.log.append((self.clock.now_ms(), f"mcu reset while dealing card {self.ejects}"))
            self.ejects -= 1  # the card did not go
            self.reset_request = 2
            return
        if self.forced_jams > 0 or self.stalled or self.rng.random() < self.jam_rate:
            self.forced_jams = max(0, self.forced_jams - 1)
            self.stalled = True
            self.ejects -= 1
            self.log.append((self.clock.now_ms(), "jam"))
            return
        n = 1
        if len(self.hopper) >= 2 and (self.forced_doubles > 0 or self.rng.random() < self.double_feed_rate):
            self.forced_doubles = max(0, self.forced_doubles - 1)
            n = 2
        m = self.mech
        pulse = m.card_pulse_ms * (1 + (self.rng.uniform(*m.double_overlap) if n == 2 else 0.0))
        pulse *= self.rng.uniform(0.98, 1.02)
        token = object()
        self.feed_token = token

        def lead() -> None:
            if self.feed_token is not token:
                return
            self.beam_blocked = True
            self._edge(self.P.PIN_EXIT, rising=False)
            self.schedule(pulse, trail)

        def trail() -> None:
            self.beam_blocked = False
            self.feed_token = None
            self._leave(n)
            self._edge(self.P.PIN_EXIT, rising=True)

        self.schedule(m.eject_travel_ms * self.rng.uniform(0.97, 1.05), lead)

    def _leave(self, n: int) -> None:
        place = self.place_of(self.angle_now())
        for _ in range(n):
            card = self.hopper.pop(0)
            self.places.append((card, place))
        self.log.append((self.clock.now_ms(), f"{n} card(s) to {place}"))
        self.frame_seq += 1
        self.changed.notify_all()
        if not self.hopper:
            self.write_truth()

    # ------------------------------------------------------------------ the shuffler
    def _relay(self, on: bool) -> None:
        if on == self.relay:
            return
        self.relay = on
        if not on:
            self.riffle_end = None  # stopped mid-pass: nothing reordered
            return
        if self.places:
            self.gather()
        if len(self.hopper) < 2:
            return
        end = self.clock.now_ms() + self.mech.riffle_ms * self.rng.uniform(0.95, 1.05)
        self.riffle_end = end

        def finish() -> None:
            if self.riffle_end == end and self.relay:
                self.hopper = riffle(self.hopper, self.rng)
                self.riffle_end = None
                self.frame_seq += 1
                self.changed.notify_all()

        self.schedule(end - self.clock.now_ms(), finish)

    def gather(self) -> None:
        """After a deal the cards are gathered (seat by seat, then the bottom cards) and put back on
        top of what is left in the hopper: a new deal begins."""
        with self.lock:
            if not self.truth_written:
                self.write_truth()
            order: list[int | str | None] = [*range(len(self.angles)), "bottom", None]
            gathered = [c for p in order for c, where in self.places if where == p]
            self.hopper = self.hopper + gathered
            self.places = []
            self.deal_no += 1
            self.ejects = 0
            self.truth_written = False
            self.frame_seq += 1
            self.changed.notify_all()

    def operator_reload(self) -> None:
        """A new deal without shuffling: if the hopper is empty, the dealt cards go back into it."""
        with self.lock:
            if not self.hopper and self.places:
                self.log.append((self.clock.now_ms(), "operator reloads the hopper"))
                self.gather()

    def load_deck(self, decks: int, jokers: bool) -> bool:
        """The operator makes sure the table has the game's deck (``decks`` decks, with or without
        jokers): if the cards at the table (in the hopper and dealt) are another deck, they are put away
        and a fresh deck of the right kind goes into the hopper. True if the deck was changed."""
        with self.lock:
            want = sorted(make_deck(decks, jokers))
            if sorted(self.hopper + [c for c, _ in self.places]) == want:
                return False
            self.log.append((self.clock.now_ms(), f"operator loads {decks} deck(s){' with jokers' if jokers else ''}"))
        self.load(make_deck(decks, jokers))
        return True

    def load(self, cards: Sequence[str] | None = None) -> None:
        """The operator loads the hopper: ``cards`` (bottom first), or gathers everything back."""
        with self.lock:
            if cards is None:
                self.gather()
            else:
                if not self.truth_written and self.places:
                    self.write_truth()
                self.hopper = [str(parse_card(c)) for c in cards]
                self.places, self.ejects, self.truth_written = [], 0, False
                self.deal_no += 1
                self.frame_seq += 1
                self.changed.notify_all()

    # ------------------------------------------------------------------ what really happened
    def truth(self) -> dict[str, Any]:
        with self.lock:
            hands: list[list[str]] = [[] for _ in self.angles]
            bottom: list[str] = []
            stray: list[str] = []
            for card, place in self.places:
                if place == "bottom":
                    bottom.append(card)
                elif place is None:
                    stray.append(card)
                else:
                    hands[int(place)].append(card)
            out: dict[str, Any] = {"hands": hands, "bottom": bottom}
            if stray:
                out["stray"] = stray
            return out

    def write_truth(self) -> None:
        self.truth_written = True
        if self.truth_path is not None:
            tmp = self.truth_path.with_suffix(self.truth_path.suffix + ".tmp")
            tmp.write_text(json.dumps(self.truth(), ensure_ascii=False) + "\n", encoding="utf-8")
            tmp.replace(self.truth_path)

    def bottom_card(self) -> tuple[int, str | None, int]:
        """(frame seq, the hopper's bottom card or None, cards left) — what the camera sees."""
        with self.lock:
            return self.frame_seq, (self.hopper[0] if self.hopper else None), len(self.hopper)
