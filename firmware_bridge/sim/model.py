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

import collections
import heapq
import itertools
import json
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cards import deck, parse_card


def _cfg(name: str) -> Any:
    """A figure from the firmware's config (its timing block is generated from hardware/parts.py)."""
    from firmware_bridge.sim.fakes import load_config

    return getattr(load_config(), name)


def _part(name: str) -> Any:
    return field(default_factory=lambda: float(_cfg(name)))


@dataclass
class Mechanics:
    """The rig's physics at speed 1 (mm, mm/ms, ms, degrees). Every default comes from the parts table
    (through the firmware's config); every effect is a knob."""

    card_mm: float = _part("CARD_MM")
    pick_mm_ms: float = field(default_factory=lambda: _cfg("PICK_MM_S") / 1000.0)
    takeaway_mm_ms: float = field(default_factory=lambda: _cfg("TAKEAWAY_MM_S") / 1000.0)
    gate_to_edge_mm: float = _part("GATE_TO_EDGE_MM")
    edge_to_nip_mm: float = _part("EDGE_TO_NIP_MM")
    nip_to_beam_mm: float = _part("NIP_TO_BEAM_MM")
    spin_up_ms: float = _part("SPIN_UP_MS")
    speed_tol: float = _part("SPEED_TOL")  # this build's motors run up to this much off nominal...
    speed_jitter: float = 0.02  # ...and each card slips a little differently
    brake_coast_mm: float = _part("COAST_MM")  # rollers braked (both bridge inputs high)
    free_coast_mm: float = 6.0  # rollers let go (both low): the card creeps on
    chute_mm: float = _part("CHUTE_MM")
    chute_speed_share: float = _part("CHUTE_SPEED_SHARE")
    double_overlap: tuple[float, float] = (0.25, 0.6)  # a dragged second card trails by this share of a card
    stacked_share: float = 0.0  # share of doubles stacked flush: their pulse is a single card's
    turntable_deg_per_s: float = _part("TABLE_DEG_PER_S")
    servo_settle_ms: float = _part("SERVO_SETTLE_MS")
    servo_overshoot_deg: float = _part("SERVO_OVERSHOOT_DEG")
    riffle_ms: float = 3000.0  # one pass of the two-bin shuffler
    usb_enum_ms: float = _part("USB_ENUM_MS")  # reset to the USB port back on the host (it vanishes)
    main_ms: float = _part("MAIN_MS")  # reset to main.py's first statement: a 0x03 before it stops in the REPL
    boot_ms: float = _part("BOOT_MS")  # reset to main.py's loop (MicroPython boot, .mpy imports)
    soft_irq_us: float = _part("SOFT_IRQ_US")  # a soft (scheduled) pin IRQ runs this late
    # the counting beam's receiver, as harsh as the part (hardware/parts.py "beam"):
    beam_glitch_per_s: float = _part("BEAM_GLITCH_PER_S")  # EMI: the beam reads blocked with no card...
    glitch_ms: float = 0.2  # ...this long
    edge_bounce_ms: float = _part("EDGE_BOUNCE_MS")  # a card's edge crossing the beam: the output chatters...
    bounce_flips: int = field(default_factory=lambda: int(_cfg("BOUNCE_FLIPS")))  # ...this many times
    leak_share: float = _part("LEAK_SHARE")  # share of cards that let IR through for a moment (thin stock)...
    leak_ms: float = _part("LEAK_MS")  # ...this long, anywhere along the card
    tick_start_ms: int = 0  # ticks at boot; near 2**30 to see ticks_us wrap (rp2: every 17.9 min)
    seat_tolerance_deg: float = 6.0
    endstop_deg: float = 1.0
    servo_min_us: float = _part("SERVO_MIN_US")
    servo_max_us: float = _part("SERVO_MAX_US")
    servo_range_deg: float = _part("SERVO_RANGE_DEG")  # at the turntable (180° servo, 1.5:1 gear)
    eject_travel_ms: float | None = None  # overrides: motor start to the beam, and the pulse
    card_pulse_ms: float | None = None

    def travel_ms(self) -> float:
        if self.eject_travel_ms is not None:
            return self.eject_travel_ms
        return (self.spin_up_ms + (self.gate_to_edge_mm + self.edge_to_nip_mm) / self.pick_mm_ms
                + self.nip_to_beam_mm / self.takeaway_mm_ms)

    def pulse_ms(self) -> float:
        return self.card_pulse_ms if self.card_pulse_ms is not None else self.card_mm / self.takeaway_mm_ms

    def chute_ms(self) -> float:
        return self.chute_mm / (self.takeaway_mm_ms * self.chute_speed_share)

    def mechanical_eject_ms(self) -> float:
        """The least time one card can take to leave: travel plus its pulse."""
        return self.travel_ms() + self.pulse_ms()

    def mechanical_card_ms(self, seat_step_deg: float = 90.0) -> float:
        """The least time per card in a round-robin deal: travel, pulse, the chute, the step to the next
        seat and the servo's settling."""
        return (self.mechanical_eject_ms() + self.chute_ms()
                + seat_step_deg * 1000.0 / self.turntable_deg_per_s + self.servo_settle_ms)


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
        self.phys = random.Random(None if seed is None else seed + 1_000_003)
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
        self.scenes: collections.deque[tuple[float, int, str | None, int]] = collections.deque(maxlen=64)
        self.scenes.append((float("-inf"), 0, self.hopper[0] if self.hopper else None, len(self.hopper)))
        self.ejects = 0  # eject starts with a card in the hopper, this deal
        self.forced_jams = 0
        self.forced_doubles = 0
        self.forced_stacked = 0  # the next doubles are stacked flush (a test's knob, like forced_doubles)
        self.stacked = 0  # stacked doubles thrown (they pass the beam as one card)
        self.endstop_connected = True
        self.servo_dead = False  # a servo that takes its signal and does not move (no power, stripped gears)
        self.estop_pressed = False
        self.out: dict[int, int] = {}
        self.pwms: dict[int, tuple[int, int]] = {}
        self.irqs: dict[int, tuple[Callable[[], None], int]] = {}
        self.events: list[tuple[float, int, Callable[[], None]]] = []
        self._n = itertools.count()
        self.beam_blocked = False  # what the beam's receiver reads (the pin)
        self.card_in_beam = False  # what is really there
        self.flick: object | None = None  # a flicker overriding the reading now (glitch, bounce, leak)
        self.flick_level = False
        self.edge_blocked = False
        self.motor = 0  # the pick roller: 1 forward, -1 reverse, 2 brake, 0 coast
        self.take = 0  # the take-away rollers, the same
        self.feed_token: object | None = None
        self.reverse_token: object | None = None  # the reverse under way (it pulls the card back once spun up)
        self.stalled = False
        self.fed = False  # the bottom card is on its way (pos > 0 or rolling)
        self.pos = 0.0
        self.feed_v, self.feed_t0 = 0.0, 0.0
        self.group, self.group_mm, self.card_f, self.spin_f = 1, self.mech.card_mm, 1.0, 1.0
        self.build_f = 1.0  # this build's motors against nominal (a knob: 1 ± speed_tol)
        self.in_flight = 0
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
        self.glitches = self.bounces = self.leaks = 0
        if self.mech.beam_glitch_per_s > 0:
            self.schedule(self._glitch_gap(), self._glitch)

    # ------------------------------------------------------------------ pins (called by fake machine)
    def read(self, pin: int) -> int:
        P = self.P
        with self.lock:
            if pin == P.PIN_EXIT:
                return 0 if self.beam_blocked else 1
            if pin == P.PIN_EDGE:
                return 0 if self.edge_blocked else 1
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
            elif pin == self.P.PIN_NSLEEP:
                P = self.P
                self._motor(self._bridge(P.PIN_EJECT_A, P.PIN_EJECT_B))
                self._take(self._bridge(P.PIN_TAKE_A, P.PIN_TAKE_B))

    def pwm(self, pin: int, freq: int, duty: int) -> None:
        with self.lock:
            self.pwms[pin] = (freq, duty)
            P = self.P
            if pin in (P.PIN_EJECT_A, P.PIN_EJECT_B):
                self._motor(self._bridge(P.PIN_EJECT_A, P.PIN_EJECT_B))
            elif pin in (P.PIN_TAKE_A, P.PIN_TAKE_B):
                self._take(self._bridge(P.PIN_TAKE_A, P.PIN_TAKE_B))
            elif pin == P.PIN_SERVO:
                self._servo(freq, duty)

    def _bridge(self, pin_a: int, pin_b: int) -> int:
        """A DRV8833 half: 1 forward, -1 reverse, 2 brake (both high), 0 coast (both low, or asleep)."""
        a = self.pwms.get(pin_a, (0, 0))[1]
        b = self.pwms.get(pin_b, (0, 0))[1]
        if not self.out.get(self.P.PIN_NSLEEP, 0):
            return 0
        return 2 if a and b else 1 if a else -1 if b else 0

    def set_irq(self, pin: int, handler: Callable[[], None] | None, trigger: int, hard: bool = False) -> None:
        with self.lock:
            if handler is None:
                self.irqs.pop(pin, None)
            else:
                self.irqs[pin] = (handler, trigger, hard)

    def _edge(self, pin: int, rising: bool) -> None:
        h = self.irqs.get(pin)
        if h and h[1] & (8 if rising else 4):
            if h[2]:
                h[0]()
            else:  # a soft IRQ is scheduled: it runs later and reads the pin as it is then
                self.schedule(self.mech.soft_irq_us / 1000.0, h[0])

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
            # past the target by the servo's overshoot, swinging back within its settling time
            late = (done - abs(span)) * 1000.0 / self.mech.turntable_deg_per_s
            settle = self.mech.servo_settle_ms
            if not self.servo_powered or late >= settle or abs(span) < 1.0:
                return self.angle_to
            return self.angle_to + (1 if span > 0 else -1) * self.mech.servo_overshoot_deg * (1 - late / settle)
        return self.angle_from + (done if span > 0 else -done)

    def _servo(self, freq: int, duty: int) -> None:
        now_angle = self.angle_now()
        if not duty or not freq:
            self.servo_powered = False
            self.angle_from = self.angle_to = now_angle  # a limp servo stays where it is
            return
        if self.servo_dead:
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
    # The bottom card's leading edge sits ``pos`` mm past the separator gate. The pick roller drives it up
    # to the take-away nip, the take-away rollers from there on (the pick's one-way clutch overruns). A
    # stopped motor lets the card coast (short when braked); every milestone is an event on the clock.
    def _feed_speed(self) -> float:
        m = self.mech
        if self.pos < m.gate_to_edge_mm + m.edge_to_nip_mm:
            return m.pick_mm_ms * self.card_f if self.motor == 1 and not self.stalled else 0.0
        return m.takeaway_mm_ms * self.card_f if self.take == 1 else 0.0

    def _settle_feed(self, coast: float = 0.0, at: float | None = None) -> None:
        """Bring ``pos`` up to now (plus the coast of a motor just stopped) and plan the next milestone."""
        now = self.clock.now_ms()
        moved = self.feed_v * (now - self.feed_t0) + (coast if self.feed_v else 0.0)
        self.feed_t0 = now
        pos = self.pos + moved
        self._advance_to(pos if at is None else max(pos, at), now)  # a milestone is reached exactly
        self.feed_v = self._feed_speed() if self.hopper and self.fed else 0.0
        self.feed_token = token = object()
        nxt = self._next_milestone()
        if self.feed_v > 0 and nxt is not None:
            self.schedule((nxt - self.pos) / self.feed_v, lambda: self._milestone(token, nxt))

    def _milestones(self) -> list[float]:
        m = self.mech
        edge, nip, beam = m.gate_to_edge_mm, m.gate_to_edge_mm + m.edge_to_nip_mm, \
            m.gate_to_edge_mm + m.edge_to_nip_mm + m.nip_to_beam_mm
        return [edge, nip, beam, edge + self.group_mm, beam + self.group_mm]

    def _next_milestone(self) -> float | None:
        ahead = [x for x in self._milestones() if x > self.pos + 1e-9]
        return min(ahead) if ahead else None

    def _milestone(self, token: object, at: float) -> None:
        if token is self.feed_token:
            self._settle_feed(at=at)

    def _advance_to(self, pos: float, now: float) -> None:
        edge, _nip, beam, edge_clear, beam_clear = self._milestones()
        self.pos = pos
        self._set_edge(edge <= pos < edge_clear)
        if beam <= pos < beam_clear and not self.card_in_beam:
            self._card_in_beam(True)
        if pos >= beam_clear:
            was = self.card_in_beam
            self.card_in_beam = False
            self._leave(self.group)
            if was:
                self._card_in_beam(False)
        del now

    # The beam's reading is what is there, unless a flicker overrides it for a moment; every change of
    # the reading is an edge on the pin.
    def _beam_changed(self) -> None:
        reading = self.flick_level if self.flick is not None else self.card_in_beam
        if reading != self.beam_blocked:
            self.beam_blocked = reading
            self._edge(self.P.PIN_EXIT, rising=not reading)

    def _flicker(self, level: bool, ms: float) -> None:
        token = object()
        self.flick, self.flick_level = token, level
        self._beam_changed()

        def end() -> None:
            if self.flick is token:
                self.flick = None
                self._beam_changed()

        self.schedule(ms, end)

    def _card_in_beam(self, there: bool) -> None:
        """A card's edge crosses the beam: the reading follows, chattering while the edge is in the beam;
        a card of thin stock may let the IR through for a moment on its way."""
        m = self.mech
        self.card_in_beam, self.flick = there, None
        self._beam_changed()
        for _ in range(m.bounce_flips if m.edge_bounce_ms > 0 else 0):
            at, ms = self.phys.uniform(0.0, m.edge_bounce_ms), self.phys.uniform(0.02, 0.15)
            self.schedule(at, lambda ms=ms: self._flicker(not there, ms) if self.card_in_beam == there else None)
            self.bounces += 1
        if there and m.leak_share and self.phys.random() < m.leak_share:
            self.leaks += 1
            at = self.phys.uniform(0.05, 0.95) * self.mech.pulse_ms() / self.card_f

            def leak() -> None:
                if self.card_in_beam:
                    self._flicker(False, m.leak_ms)

            self.schedule(at, leak)

    def _glitch_gap(self) -> float:
        return self.phys.expovariate(self.mech.beam_glitch_per_s / 1000.0)

    def _glitch(self) -> None:
        """EMI from the motors: the counting beam reads blocked for a moment with no card in it (Poisson)."""
        if not self.card_in_beam and self.flick is None:
            self.glitches += 1
            self._flicker(True, self.mech.glitch_ms)
        self.schedule(self._glitch_gap(), self._glitch)

    def _set_edge(self, blocked: bool) -> None:
        self.edge_blocked = blocked

    def _catch_up(self) -> None:
        """Fire the mechanics' events due by now before a motor changes: the firmware runs a little after
        the board last advanced, and the card must not cover that gap at the old speed."""
        if self.clock._pinned is None:
            self.advance(self.clock.now_ms())

    def _motor(self, state: int) -> None:
        if state == self.motor:
            return
        self._catch_up()
        stopping = self.motor == 1 and state != 1
        self.motor = state
        if state == 1:
            self._start_feed()
        elif state == -1:
            self._reverse_soon()
        elif stopping:
            driving = self.pos < self.mech.gate_to_edge_mm + self.mech.edge_to_nip_mm
            self._settle_feed(self._coast(state) if driving else 0.0)

    def _take(self, state: int) -> None:
        if state == self.take:
            return
        self._catch_up()
        stopping = self.take == 1 and state != 1
        self.take = state
        if state == -1:
            self._reverse_soon()
        elif stopping or state == 1:
            self._settle_feed(self._coast(state) if stopping else 0.0)

    def _coast(self, state: int) -> float:
        return self.mech.brake_coast_mm if state == 2 else self.mech.free_coast_mm

    def _reverse_soon(self) -> None:
        """A roller turned backwards moves the card once it has spun up, not at the instant its driver
        reads reverse: going from brake to coast, the firmware lowers one input then the other, and the
        microseconds of reverse between them move nothing (they pulled a card out of the beam at an
        e-stop, and the count said it had left)."""
        token = self.reverse_token = object()

        def pull() -> None:
            if self.reverse_token is token and -1 in (self.motor, self.take):
                self._reverse()

        self.schedule(self.mech.spin_up_ms * self.spin_f, pull)

    def _reverse(self) -> None:
        """Reversing pulls the card back behind the gate and frees a jammed one."""
        self.stalled = False
        if self.fed and self.pos > 0:
            self.feed_token = None
            self.feed_v = 0.0
            self.pos, self.fed = 0.0, False
            self._set_edge(False)
            if self.card_in_beam:
                self._card_in_beam(False)

    def _start_feed(self) -> None:
        if not self.hopper:
            return
        if not self.fed:  # a new card (not one resuming from where it stopped)
            self.ejects += 1
            if self.mcu_reset_at is not None and self.ejects == self.mcu_reset_at and not self.resets_done:
                self.resets_done += 1
                self.log.append((self.clock.now_ms(), f"mcu reset while dealing card {self.ejects}"))
                self.ejects -= 1  # the card did not go
                self.reset_request = 2
                return
            if self.forced_jams > 0 or self.stalled or self.rng.random() < self.jam_rate:
                self.forced_jams = max(0, self.forced_jams - 1)
                self.stalled = True  # the pick roller slips on the card until it is reversed
                self.ejects -= 1
                self.log.append((self.clock.now_ms(), "jam"))
                return
            m = self.mech
            n = 1
            stacked = len(self.hopper) >= 2 and self.forced_stacked > 0
            if stacked or len(self.hopper) >= 2 and (self.forced_doubles > 0
                                                     or self.rng.random() < self.double_feed_rate):
                self.forced_doubles = max(0, self.forced_doubles - (not stacked))
                n = 2
            # the fault draws come from ``rng`` in the order they always did (a seed deals the same faults);
            # new physics draws from ``phys``
            share = self.rng.uniform(*m.double_overlap) if n == 2 and not stacked else 0.0
            if stacked or n == 2 and m.stacked_share and self.phys.random() < m.stacked_share:
                self.forced_stacked = max(0, self.forced_stacked - 1)
                self.stacked += 1
                share = self.phys.uniform(0.0, 0.03)  # flush: the pulse of one card
                self.log.append((self.clock.now_ms(), "stacked double"))
            self.group, self.group_mm = n, m.card_mm * (1 + share)
            self.card_f = self.build_f / self.rng.uniform(1 - m.speed_jitter, 1 + m.speed_jitter)
            self.spin_f = self.rng.uniform(0.97, 1.05)
            if m.card_pulse_ms is not None:
                self.group_mm *= m.card_pulse_ms / (m.card_mm / m.takeaway_mm_ms)
            if m.eject_travel_ms is not None:  # an override: the whole path at take-away speed
                self.pos = m.gate_to_edge_mm + m.edge_to_nip_mm + m.nip_to_beam_mm \
                    - m.eject_travel_ms * m.takeaway_mm_ms
            self.fed = True
            self.feed_v, self.feed_t0 = 0.0, self.clock.now_ms()
        token = object()
        self.feed_token = token

        def rolling() -> None:  # the motors reach speed
            if self.feed_token is token:
                self._settle_feed()

        self.schedule(self.mech.spin_up_ms * self.spin_f if self.feed_v == 0 else 0.0, rolling)

    def _leave(self, n: int) -> None:
        """The group's tail clears the beam: the cards leave the hopper (and the camera window) and slide
        down the chute; where they land is decided when they land."""
        self.fed, self.pos, self.feed_v, self.feed_token = False, 0.0, 0.0, None
        cards = [self.hopper.pop(0) for _ in range(n)]
        self.in_flight += n
        self._new_scene()
        flight = self.mech.chute_ms() * self.phys.uniform(0.85, 1.0)

        def land() -> None:
            place = self.place_of(self.angle_now())
            for card in cards:
                self.places.append((card, place))
            self.in_flight -= n
            self.log.append((self.clock.now_ms(), f"{n} card(s) to {place}"))
            self.changed.notify_all()
            if not self.hopper and not self.in_flight:
                self.write_truth()

        self.schedule(flight, land)

    def clear_path(self) -> None:
        """The operator clears the card path: a jammed card is freed, a card stopped part-way (the motors
        stopped mid-card) goes back into the hopper."""
        with self.lock:
            self.stalled = False
            if self.fed and self.motor != 1 and self.take != 1:
                self.log.append((self.clock.now_ms(), "operator puts a stopped card back"))
                self._reverse()

    def find_unseen(self, find: dict[str, Any]) -> bool:
        """A person answers the dealer's ``find`` (cards that went by stacked, unseen): counts each place
        against ``want``; from each with a card too many takes out one of ``cards`` and gives it to the
        next seat of ``to``. False when no place has enough too many (the deck lacks them)."""
        def spot(where: Any) -> int | str:
            return where if where == "bottom" else int(where)

        with self.lock:
            held = collections.Counter(where for _, where in self.places)
            over = [w for w in held for _ in range(held[w] - find["want"].get(str(w), 0))]
            if len(over) < len(find["to"]):
                return False
            for w, to in zip(over, find["to"], strict=False):
                n = next(n for n, (c, at) in enumerate(self.places) if at == w and c in find["cards"])
                self.places[n] = (self.places[n][0], spot(to))
                self.log.append((self.clock.now_ms(), f"operator gives a card found at {w} to {to}"))
            return True

    def pull_card(self) -> None:
        """The operator pulls a card stuck in the path out by hand, forwards."""
        with self.lock:
            if self.fed:
                self._advance_to(self._milestones()[-1], self.clock.now_ms())

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
                self._new_scene()

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
            self._new_scene()

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
                self._new_scene()

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

    def _new_scene(self) -> None:
        """What the camera would see changed (a card left, a riffle, a reload): remembered with its sim
        time, so a camera exposing a frame at some instant shows the scene of that instant."""
        self.frame_seq += 1
        self.scenes.append((self.clock.now_ms(), self.frame_seq, self.hopper[0] if self.hopper else None,
                            len(self.hopper)))
        self.changed.notify_all()

    def scene_at(self, t_ms: float) -> tuple[int, str | None, int]:
        """(frame seq, bottom card or None, cards left) as they were at sim time ``t_ms`` (the last scene
        that began by then; the oldest one kept if earlier)."""
        with self.lock:
            for t, seq, label, left in reversed(self.scenes):
                if t <= t_ms:
                    return seq, label, left
            return self.scenes[0][1:]

    def bottom_card(self) -> tuple[int, str | None, int]:
        """(frame seq, the hopper's bottom card or None, cards left) — what the camera sees."""
        with self.lock:
            return self.frame_seq, (self.hopper[0] if self.hopper else None), len(self.hopper)
