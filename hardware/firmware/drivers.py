# One small driver per part of the rig. MicroPython only (machine, time).
import time

import machine
from machine import PWM, Pin

import config


class Servo:
    """The turntable servo: 50 Hz PWM. The MG996R turns 180° over 500-2500 us; a 1.5:1 gear takes the
    turntable through SERVO_RANGE_DEG (270°). Angles here are the turntable's."""

    def __init__(self, pin):
        self.pwm = PWM(Pin(pin))
        self.pwm.freq(50)
        self.pwm.duty_u16(0)
        self.angle = None

    def move(self, deg):
        servo_deg = deg / config.SERVO_GEAR  # 0..180 at the servo's own shaft
        us = config.SERVO_MIN_US + (config.SERVO_MAX_US - config.SERVO_MIN_US) * servo_deg / 180.0
        self.pwm.duty_u16(int(us * 65535 // 20000))
        self.angle = deg

    def travel_ms(self, deg):
        if self.angle is None:
            return int(config.SERVO_RANGE_DEG * 1000 / config.SERVO_DEG_PER_S) + config.SERVO_SETTLE_MS
        return int(abs(deg - self.angle) * 1000 / config.SERVO_DEG_PER_S) + config.SERVO_SETTLE_MS

    def off(self):
        self.pwm.duty_u16(0)
        self.angle = None


class Motor:
    """A feed motor on a DRV8833 half: A forward, B reverse, both high brake (slow decay), both low coast."""

    def __init__(self, pin_a, pin_b):
        self.a = PWM(Pin(pin_a))
        self.b = PWM(Pin(pin_b))
        self.a.freq(20000)
        self.b.freq(20000)
        self.running = 0
        self.off()

    def forward(self):
        self.b.duty_u16(0)
        self.a.duty_u16(config.EJECT_DUTY)
        self.running = 1

    def reverse(self):
        self.a.duty_u16(0)
        self.b.duty_u16(config.EJECT_DUTY)
        self.running = -1

    def brake(self):
        # both inputs high shorts the winding: the rollers stop within a millimetre instead of coasting
        self.a.duty_u16(65535)
        self.b.duty_u16(65535)
        self.running = 0

    def off(self):
        self.a.duty_u16(0)
        self.b.duty_u16(0)
        self.running = 0


class ExitSensor:
    """The counting beam after the take-away rollers. A hard interrupt (no soft-IRQ latency) stamps each
    edge in microseconds. A flicker shorter than BOUNCE_US (edge bounce, IR leaking through a card) is
    merged into the pulse around it; a pulse shorter than ``glitch_us`` (half the shortest card: EMI) is
    not a card. Judged only once the beam has stayed clear BOUNCE_US, so a flicker near the leading edge
    cannot cut a card's pulse short. A finished pulse is kept until the loop takes it: a glitch that
    comes before the loop's next pass must not overwrite a card (it did, and the card was lost)."""

    def __init__(self, pin):
        self.pin = Pin(pin, Pin.IN, Pin.PULL_UP)
        self.blocked_at = None
        self.cleared_at = None
        self.done = None  # (blocked, cleared) of a finished card's pulse the loop has not taken yet
        self.fell_at = None  # the last edge into "blocked", any (a glitch's too)
        self.glitches = 0
        self.glitch_us = config.GLITCH_US  # half the shortest card; calibration moves it
        self.pin.irq(handler=self._edge, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)

    def _edge(self, pin):
        t = time.ticks_us()
        c = self.cleared_at
        if pin.value() == 0:
            self.fell_at = t
            if c is not None and time.ticks_diff(t, c) < config.BOUNCE_US:
                self.cleared_at = None  # the beam flickered inside one card: the same pulse goes on
            elif self.blocked_at is None or c is not None:
                if c is not None:
                    self._finish()  # the pulse before this one is over: keep it for the loop
                self.blocked_at = t
                self.cleared_at = None
        elif self.blocked_at is not None and c is None:
            self.cleared_at = t

    def _finish(self):
        b, c = self.blocked_at, self.cleared_at
        self.blocked_at = None
        self.cleared_at = None
        if time.ticks_diff(c, b) < self.glitch_us:
            self.glitches += 1  # too short for a card: a glitch
        elif self.done is None:
            self.done = (b, c)

    def blocked(self):
        return self.pin.value() == 0

    def held(self):
        """A card lies in the beam: blocked, and not since an edge of under BOUNCE_US ago. An EMI glitch
        (0.2 ms) read at the instant of an eject refused it as a stuck card, about once in 10,000 ejects on
        the model. (The loop must not sleep to look again: the edge's stamp tells.)"""
        fell = self.fell_at
        return self.blocked() and (fell is None or time.ticks_diff(time.ticks_us(), fell) >= config.BOUNCE_US)

    def arm(self):
        state = machine.disable_irq()
        self.blocked_at = None
        self.cleared_at = None
        self.done = None
        machine.enable_irq(state)

    def pulse_us(self):
        """The last card's pulse, once the beam has stayed clear BOUNCE_US after it (else None)."""
        state = machine.disable_irq()
        c = self.cleared_at
        if self.done is None and c is not None and time.ticks_diff(time.ticks_us(), c) >= config.BOUNCE_US:
            self._finish()
        d = self.done
        machine.enable_irq(state)
        return None if d is None else time.ticks_diff(d[1], d[0])

    def pulse_start(self):
        """When the pulse :meth:`pulse_us` gives began (ticks_us)."""
        return self.done[0] if self.done is not None else self.blocked_at


class Input:
    """A digital input with its active level."""

    def __init__(self, pin, active, pull=None):
        self.pin = Pin(pin, Pin.IN, pull) if pull is not None else Pin(pin, Pin.IN)
        self.active_level = active

    def active(self):
        return self.pin.value() == self.active_level


class Relay:
    def __init__(self, pin):
        self.pin = Pin(pin, Pin.OUT, value=0)

    def on(self):
        self.pin.value(1)

    def off(self):
        self.pin.value(0)

    def is_on(self):
        return self.pin.value() == 1
