# One small driver per part of the rig. MicroPython only (machine, time).
import time
from machine import PWM, Pin

import config


class Servo:
    """The turntable servo: 50 Hz PWM, pulse width linear in the angle."""

    def __init__(self, pin):
        self.pwm = PWM(Pin(pin))
        self.pwm.freq(50)
        self.pwm.duty_u16(0)
        self.angle = None

    def move(self, deg):
        us = config.SERVO_MIN_US + (config.SERVO_MAX_US - config.SERVO_MIN_US) * deg / config.SERVO_RANGE_DEG
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
    """The ejector's DC motor on a DRV8833 half: A forward, B reverse."""

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

    def off(self):
        self.a.duty_u16(0)
        self.b.duty_u16(0)
        self.running = 0


class ExitSensor:
    """IR break-beam at the exit throat. The interrupt times each pulse (beam blocked) in microseconds."""

    def __init__(self, pin):
        self.pin = Pin(pin, Pin.IN, Pin.PULL_UP)
        self.blocked_at = None
        self.cleared_at = None
        self.pin.irq(handler=self._edge, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING)

    def _edge(self, pin):
        t = time.ticks_us()
        if pin.value() == 0:
            self.blocked_at = t
            self.cleared_at = None
        elif self.blocked_at is not None:
            self.cleared_at = t

    def arm(self):
        self.blocked_at = None
        self.cleared_at = None

    def pulse_us(self):
        if self.blocked_at is None or self.cleared_at is None:
            return None
        return time.ticks_diff(self.cleared_at, self.blocked_at)


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
