"""The table's share of the fair deal: the next deal's seed, committed before any seat adds to it.

The service draws the rig's seed for the next fair deal in advance and publishes only its commitment
(``GET /api/deal/next``). Until the operator starts that deal (``POST /api/rounds``), each seat may add
one random contribution (``POST /api/seats/{seat}/contribution``, 16 to 64 bytes as hex, naming the
commitment it saw). The deal's seats follow from the rig's seed and every contribution
(``fair_deal.shared_assignment``); the journal keeps each contribution, the revealed proof names them,
and ``hongsi verify-deal`` checks them. A seat cannot aim (it never saw the rig's seed); the rig cannot
pick its seed afterwards (it committed first). A restart of the service draws a new seed and drops the
contributions still waiting (they were for a deal that never started).
"""

from __future__ import annotations

import threading
from typing import Any

from controller import fair_deal


class ContributionRefused(ValueError):
    """A contribution the table cannot take: ``status`` 409 (not now) or 422 (bad input)."""

    def __init__(self, status: int, message: str, message_zh: str):
        super().__init__(message)
        self.status, self.message, self.message_zh = status, message, message_zh


class NextDeal:
    """The rig's seed of the next fair deal, and the seats' contributions to it so far."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._draw()

    def _draw(self) -> None:
        self._seed = fair_deal.new_seed()
        self._shares: dict[int, str] = {}

    @property
    def commitment(self) -> str:
        return fair_deal.commitment(self._seed)

    def public(self) -> dict[str, Any]:
        with self._lock:
            return {"commitment": self.commitment, "contributed": sorted(self._shares)}

    def contribute(self, seat: int, value: Any, commitment: Any) -> dict[str, Any]:
        """Take ``seat``'s contribution to the deal committed as ``commitment``: once a seat, and only
        against the commitment the seat saw (else it would not know what it added to)."""
        try:
            value = fair_deal.check_contribution(value)
        except ValueError as exc:
            raise ContributionRefused(422, f"value: {exc}", "随机数须为 16 到 64 字节的十六进制") from None
        with self._lock:
            if commitment != self.commitment:
                raise ContributionRefused(409, "that deal has started: fetch GET /api/deal/next and contribute "
                                          "to the next one", "该局已开始发牌：请对下一局重新提交")
            if seat in self._shares:
                raise ContributionRefused(409, f"seat {seat} has already contributed to this deal",
                                          "本座位已为这一局提交过随机数")
            self._shares[seat] = value
            return {"seat": seat, "commitment": self.commitment, "contributed": sorted(self._shares)}

    def take(self) -> tuple[bytes, dict[int, str]]:
        """The seed and contributions for the deal starting now; a fresh seed for the one after."""
        with self._lock:
            seed, shares = self._seed, dict(self._shares)
            self._draw()
            return seed, shares
