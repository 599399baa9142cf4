# A minimal `machine` for the MicroPython unix port: pins are levels in a dict, interrupts are handlers
# the test script calls. Runs under real MicroPython (tests/rig/test_firmware_micropython.py).
LEVELS = {}
IRQS = {}
DUTY = {}
FEEDS = [0]
PWRON_RESET = 1
WDT_RESET = 3
SOFT_RESET = 5


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        if value is not None:
            LEVELS[id] = value

    def value(self, v=None):
        if v is None:
            return LEVELS.get(self.id, 1)
        LEVELS[self.id] = 1 if v else 0

    def irq(self, handler=None, trigger=12, hard=False):
        IRQS[self.id] = handler


class PWM:
    def __init__(self, pin):
        self.pin = pin
        self.f = 0

    def freq(self, f=None):
        if f is None:
            return self.f
        self.f = f

    def duty_u16(self, d=None):
        if d is None:
            return DUTY.get(self.pin.id, 0)
        DUTY[self.pin.id] = d


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout

    def feed(self):
        FEEDS[0] += 1


def reset_cause():
    return PWRON_RESET


RESETS = [0]


def reset():  # the real one never returns; the firmware's loop must not care
    RESETS[0] += 1


def disable_irq():
    return 0


def enable_irq(state=0):
    pass
