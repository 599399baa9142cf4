"""Simulated time. The whole virtual world — firmware ticks, mechanics, sensor pulses — runs on one clock.

:class:`SimClock` runs ``speed`` times faster than the wall clock; :class:`ManualClock` moves only when a
test calls :meth:`ManualClock.advance`, so safety timings can be checked exactly.

A :class:`SimClock` with ``max_step_ms`` is driven by the MCU thread (:meth:`SimClock.tick` once a pass
of its loop): each pass moves the world on by the wall time since the last pass times ``speed``, but by
no more than ``max_step_ms``. A loaded machine that starves the MCU thread then freezes the world instead
of letting the mechanics run on unwatched, so timings measured in sim time do not depend on the load.

>>> c = ManualClock(); c.advance(250); c.now_ms()
250.0
"""

from __future__ import annotations

import bisect
import time
from collections import deque

_MONO = time.monotonic() - time.perf_counter()  # perf_counter -> time.monotonic (both CLOCK_MONOTONIC here)


class SimClock:
    def __init__(self, speed: float = 1.0, max_step_ms: float | None = None):
        if speed <= 0:
            raise ValueError(f"speed {speed}: must be > 0")
        if max_step_ms is not None and max_step_ms <= 0:
            raise ValueError(f"max_step_ms {max_step_ms}: must be > 0")
        self.speed = float(speed)
        self.max_step_ms = max_step_ms
        self._t0 = time.perf_counter()
        self._wall = self._t0
        self._t = 0.0  # sim ms, when ticked
        self._pinned: float | None = None
        # (sim ms, perf_counter) at each move of a ticked clock: when did the world reach a given sim time
        self._ticks: deque[tuple[float, float]] = deque([(0.0, self._t0)], maxlen=4096)

    def now_ms(self) -> float:
        if self._pinned is not None:
            return self._pinned
        if self.max_step_ms is not None:
            return self._t
        return (time.perf_counter() - self._t0) * 1000.0 * self.speed

    def tick(self) -> None:
        """One pass of the MCU loop: a ticked clock moves on (at most ``max_step_ms``); others ignore it."""
        if self.max_step_ms is None:
            return
        wall = time.perf_counter()
        self._t += min((wall - self._wall) * 1000.0 * self.speed, self.max_step_ms)
        self._wall = wall
        self._ticks.append((self._t, wall))

    def pin(self, t_ms: float | None) -> None:
        """Hold the clock at ``t_ms`` (an interrupt at an exact instant); ``None`` releases it."""
        self._pinned = t_ms

    def sleep_ms(self, ms: float) -> None:
        time.sleep(max(0.0, ms) / 1000.0 / self.speed)
        if self.max_step_ms is not None:  # the firmware's own sleep: time passes for it whatever the load
            self._t += max(0.0, ms)
            self._wall = time.perf_counter()
            self._ticks.append((self._t, self._wall))

    def wall_s(self, sim_ms: float) -> float:
        return sim_ms / 1000.0 / self.speed

    def monotonic_at(self, sim_ms: float) -> float:
        """The ``time.monotonic()`` instant at which the world reached ``sim_ms`` (a past sim time). A
        ticked clock stands still while its thread is starved, so sim time maps to wall time through its
        ticks, not through a fixed rate: a camera stamping a frame's exposure must use this mapping, or a
        frame exposed before a change can carry a stamp after it."""
        if self.max_step_ms is None:
            return _MONO + self._t0 + sim_ms / 1000.0 / self.speed
        ticks = self._ticks
        i = bisect.bisect_left(ticks, sim_ms, key=lambda tw: tw[0])
        if i >= len(ticks):  # at or after the last tick: the world has stood at _t since then
            t, w = ticks[-1]
            return _MONO + w + max(0.0, sim_ms - t) / 1000.0 / self.speed
        t1, w1 = ticks[i]
        if i == 0 or t1 == sim_ms:
            return _MONO + w1 - max(0.0, t1 - sim_ms) / 1000.0 / self.speed
        t0, w0 = ticks[i - 1]
        return _MONO + w0 + (w1 - w0) * (sim_ms - t0) / (t1 - t0)


class ManualClock(SimClock):
    def __init__(self) -> None:
        super().__init__(1.0)
        self.t = 0.0

    def tick(self) -> None:
        pass

    def now_ms(self) -> float:
        return self._pinned if self._pinned is not None else self.t

    def advance(self, ms: float) -> None:
        self.t += ms

    def sleep_ms(self, ms: float) -> None:
        self.t += max(0.0, ms)
