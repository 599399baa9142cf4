# MicroPython's `time` on the host model's clock (ticks wrap at 2**30, as on the rp2 port).
from simstate import START, T

_MASK = (1 << 30) - 1
_HALF = 1 << 29


def ticks_ms():
    return (T[0] + START[0]) & _MASK


def ticks_us():
    return (T[1] + START[0] * 1000) & _MASK


ticks_cpu = ticks_us


def ticks_diff(a, b):
    return ((a - b + _HALF) & _MASK) - _HALF


def ticks_add(a, b):
    return (a + b) & _MASK


def time():
    return T[0] // 1000


def sleep_ms(ms):
    raise RuntimeError("the firmware's step must not sleep (the co-simulation owns the clock)")


sleep_us = sleep_ms
sleep = sleep_ms


def advance_us(us):
    """Move the clock on (a script that owns it, not the co-simulation, whose host sets it)."""
    T[1] += us
    T[0] = T[1] // 1000
