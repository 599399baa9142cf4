"""Simulated time. The whole virtual world — firmware ticks, mechanics, sensor pulses — runs on one clock.

:class:`SimClock` runs ``speed`` times faster than the wall clock; :class:`ManualClock` moves only when a
test calls :meth:`ManualClock.advance`, so safety timings can be checked exactly.

>>> c = ManualClock(); c.advance(250); c.now_ms()
250.0
"""

from __future__ import annotations

import time


class SimClock:
    def __init__(self, speed: float = 1.0):
        if speed <= 0:
            raise ValueError(f"speed {speed}: must be > 0")
        self.speed = float(speed)
        self._t0 = time.perf_counter()
        self._pinned: float | None = None

    def now_ms(self) -> float:
        if self._pinned is not None:
            return self._pinned
        return (time.perf_counter() - self._t0) * 1000.0 * self.speed

    def pin(self, t_ms: float | None) -> None:
        """Hold the clock at ``t_ms`` (an interrupt at an exact instant); ``None`` releases it."""
        self._pinned = t_ms

    def sleep_ms(self, ms: float) -> None:
        time.sleep(max(0.0, ms) / 1000.0 / self.speed)

    def wall_s(self, sim_ms: float) -> float:
        return sim_ms / 1000.0 / self.speed


class ManualClock(SimClock):
    def __init__(self) -> None:
        super().__init__(1.0)
        self.t = 0.0

    def now_ms(self) -> float:
        return self._pinned if self._pinned is not None else self.t

    def advance(self, ms: float) -> None:
        self.t += ms

    def sleep_ms(self, ms: float) -> None:
        self.t += max(0.0, ms)
