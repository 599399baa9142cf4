# MicroPython's `machine` whose pins are the host model's: reads come from this step's levels, every
# write, PWM change, IRQ and watchdog call goes back to the host in order (mirroring sim/fakes.py).
from simstate import IRQS, LEVELS, OUT

PWRON_RESET, HARD_RESET, WDT_RESET, DEEPSLEEP_RESET, SOFT_RESET = 1, 2, 3, 4, 5
CAUSE = [PWRON_RESET]


class Pin:
    IN, OUT, OPEN_DRAIN, ALT = 0, 1, 2, 3
    PULL_UP, PULL_DOWN = 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return LEVELS.get(self.id, 0)
        v = 1 if v else 0
        LEVELS[self.id] = v
        OUT.append(["w", self.id, v])

    def irq(self, handler=None, trigger=12, hard=False):
        IRQS[self.id] = None if handler is None else (lambda: handler(self))
        OUT.append(["i", self.id, None if handler is None else trigger, 1 if hard else 0])


class PWM:
    def __init__(self, dest, freq=None, duty_u16=None):
        self.pin = dest.id
        self._freq = freq or 1000
        self._duty = 0
        OUT.append(["p", self.pin, self._freq, 0])
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = int(f)
        OUT.append(["p", self.pin, self._freq, self._duty])

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        if not 0 <= d <= 65535:
            raise ValueError("duty_u16 must be 0..65535")
        self._duty = int(d)
        OUT.append(["p", self.pin, self._freq, self._duty])

    def deinit(self):
        self.duty_u16(0)


class WDT:
    def __init__(self, id=0, timeout=5000):
        OUT.append(["wdt", timeout])

    def feed(self):
        OUT.append(["f"])


def reset_cause():
    return CAUSE[0]


def reset():
    OUT.append(["reset"])


def disable_irq():
    return 0


def enable_irq(state=0):
    pass


def unique_id():
    return b"\xe6\x61\x38\x52\x83\x4b\x2a\x2f"
