"""The operator panel on the Pi's GPIO (gpiozero): seat LEDs, a deal button, an e-stop button, a buzzer.

Small devices in gpiozero's style; every one takes ``pin_factory`` (default: gpiozero's, e.g. lgpio on
a Pi; ``MockFactory(pin_class=MockPWMPin)`` in tests). Pins (BCM) as in ``hardware/wiring.md``.

>>> from gpiozero import Device
>>> from gpiozero.pins.mock import MockFactory, MockPWMPin
>>> Device.pin_factory = MockFactory(pin_class=MockPWMPin)
>>> lights = SeatLights()
>>> lights.light(2); lights.value
(0, 0, 1, 0)
>>> lights.close()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gpiozero import Button, LEDBoard, TonalBuzzer
from gpiozero.tones import Tone

# off the pins the voice needs: I2S (BCM 18 clock, 19 frame, 20 in, 21 out: the MAX98357A amplifier),
# I2C (2, 3) and the UART (14, 15)
I2S_PINS = (18, 19, 20, 21)
SEAT_LED_PINS = (5, 6, 13, 26)
DEAL_BUTTON_PIN = 16
ESTOP_PIN = 17
BOUNCE_S = 0.03  # the deal button's debounce; the e-stop is not debounced: its first edge stops
BUZZER_PIN = 12  # hardware PWM0


class SeatLights:
    """One LED per seat, lit to show who leads (or where the turntable points).

    >>> lights.light(0)          # doctest: +SKIP
    >>> lights.blink(3)          # doctest: +SKIP
    >>> lights.off()             # doctest: +SKIP
    """

    def __init__(self, pins: Sequence[int] = SEAT_LED_PINS, *, pin_factory: Any = None):
        self.leds = LEDBoard(*pins, pin_factory=pin_factory)
        self.seat: int | None = None

    def light(self, seat: int | None) -> None:
        """Light the seat's LED alone (``None``: all off)."""
        if seat is not None and not 0 <= seat < len(self.leds):
            raise ValueError(f"seat {seat}: 0..{len(self.leds) - 1}")
        self.seat = seat
        self.leds.value = tuple(1 if i == seat else 0 for i in range(len(self.leds)))

    show = light

    def blink(self, seat: int, on_time: float = 0.3, off_time: float = 0.3, n: int | None = None) -> None:
        """Blink the seat's LED (the first player is being announced)."""
        self.light(None)
        self.seat = seat
        self.leds[seat].blink(on_time=on_time, off_time=off_time, n=n)

    def follow(self, event: Any) -> None:
        """A ``Dealer``/``Rig`` event callback: light the seat a card goes to."""
        seat = event.get("seat") if isinstance(event, dict) else getattr(event, "seat", None)
        if isinstance(seat, int):
            self.light(seat)

    def off(self) -> None:
        self.light(None)

    @property
    def value(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.leds.value)

    def close(self) -> None:
        self.leds.close()


class DealButton:
    """The big deal button: ``when_pressed`` starts a deal; holding it ``hold_time`` s calls
    ``when_held`` (e.g. void the hand).

    >>> button = DealButton(when_pressed=lambda: print("deal!"))      # doctest: +SKIP
    """

    def __init__(self, pin: int = DEAL_BUTTON_PIN, *, when_pressed: Callable[[], None] | None = None,
                 when_held: Callable[[], None] | None = None, hold_time: float = 2.0,
                 pin_factory: Any = None):
        # a worn switch chatters for a few ms: one press, one deal
        self.button = Button(pin, pull_up=True, bounce_time=BOUNCE_S, hold_time=hold_time,
                             pin_factory=pin_factory)
        self.when_pressed = when_pressed
        self.when_held = when_held
        self.button.when_pressed = lambda: self.when_pressed and self.when_pressed()
        self.button.when_held = lambda: self.when_held and self.when_held()

    @property
    def is_pressed(self) -> bool:
        return self.button.is_pressed

    def close(self) -> None:
        self.button.close()


class EStop:
    """The panel's e-stop: a normally-closed switch to GND, so a pressed button and a cut wire both read
    as "stop". Pressing it calls every callback (e.g. ``rig.estop``); ``when_released`` on release.

    >>> stop = EStop(on_stop=[rig.estop, dealer.estop])              # doctest: +SKIP
    """

    def __init__(self, pin: int = ESTOP_PIN, *, on_stop: Sequence[Callable[[], Any]] = (),
                 when_released: Callable[[], None] | None = None, pin_factory: Any = None):
        # NC to GND with an external 10k pull-up: closed (not pressed) reads low; pressed or cut reads high.
        self.button = Button(pin, pull_up=None, active_state=True, bounce_time=None, pin_factory=pin_factory)
        self.callbacks = list(on_stop)
        self.when_released = when_released
        self.errors: list[BaseException] = []
        self.button.when_pressed = self._fire
        self.button.when_released = lambda: self.when_released and self.when_released()

    def add(self, callback: Callable[[], Any]) -> None:
        self.callbacks.append(callback)

    def _fire(self) -> None:
        for cb in self.callbacks:
            try:
                cb()
            except Exception as exc:  # noqa: BLE001 - one failing stop must not prevent the others
                self.errors.append(exc)

    @property
    def is_active(self) -> bool:
        return self.button.is_pressed

    def close(self) -> None:
        self.button.close()


class Buzzer:
    """A piezo on a PWM pin: short beeps for the operator, an alarm for faults.

    >>> Buzzer().beep()                                               # doctest: +SKIP
    """

    def __init__(self, pin: int = BUZZER_PIN, *, pin_factory: Any = None):
        self.buzzer = TonalBuzzer(pin, pin_factory=pin_factory)

    def tone(self, note: str | float = "A5") -> None:
        self.buzzer.play(Tone(note) if isinstance(note, str) else Tone(frequency=note))

    def silence(self) -> None:
        self.buzzer.stop()

    def beep(self, times: int = 1, length: float = 0.08, note: str = "A5") -> None:
        import time

        for i in range(times):
            self.tone(note)
            time.sleep(length)
            self.silence()
            if i + 1 < times:
                time.sleep(length)

    @property
    def playing(self) -> bool:
        return self.buzzer.is_active

    def close(self) -> None:
        self.buzzer.close()


class Panel:
    """The whole panel: ``Panel(rig=rig, on_deal=start_deal)`` wires the e-stop to ``rig.estop``."""

    def __init__(self, rig: Any = None, on_deal: Callable[[], None] | None = None, *, pin_factory: Any = None):
        self.lights = SeatLights(pin_factory=pin_factory)
        self.deal = DealButton(when_pressed=on_deal, pin_factory=pin_factory)
        self.estop = EStop(on_stop=[rig.estop] if rig is not None else [], pin_factory=pin_factory)
        self.buzzer = Buzzer(pin_factory=pin_factory)

    def close(self) -> None:
        for part in (self.lights, self.deal, self.estop, self.buzzer):
            part.close()
