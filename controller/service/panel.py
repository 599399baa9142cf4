"""The operator panel (``firmware_bridge.panel``) wired to the table service.

- the e-stop button stops the rig and pauses the round, exactly like the operator page's button;
- the deal button starts the next deal (the game of the configuration; the previous hand's first player
  out receives first); holding it voids the hand in progress;
- the seat LEDs blink at the first player, then follow the seat to act; all off when the hand is over;
- the buzzer beeps when a deal is done, and sounds an alarm at an e-stop or a refused action.

>>> link = PanelLink(service, Panel(pin_factory=MockFactory(pin_class=MockPWMPin)))   # doctest: +SKIP
>>> link.close()                                                                       # doctest: +SKIP
"""

from __future__ import annotations

import logging
from typing import Any

from controller.service.table import ServiceError, TableService
from engine.registry import DEFAULT_GAME

log = logging.getLogger("hongsi.service")


class PanelLink:
    """Connects a ``firmware_bridge.panel.Panel`` (lights, deal button, e-stop, buzzer) to ``service``."""

    def __init__(self, service: TableService, panel: Any, *, game: str = DEFAULT_GAME, fair_deal: bool = True):
        self.service, self.panel = service, panel
        self.game, self.fair_deal = game, fair_deal
        self.refusals: list[str] = []
        panel.estop.add(lambda: service.estop("panel button"))
        panel.deal.when_pressed = self.deal
        panel.deal.when_held = self.void
        service.hub.add_listener(self.on_event)

    def deal(self) -> None:
        """The deal button: start the next deal; a refusal (e.g. the e-stop is on) beeps twice."""
        try:
            self.service.start_round(game=self.game, first_seat=self.service.next_first_seat() or 0,
                                     fair_deal=self.fair_deal)
        except ServiceError as exc:
            self.refusals.append(exc.message)
            self._beep(2)

    def void(self) -> None:
        cur = self.service.current
        if cur is not None and cur.phase not in ("finished", "void"):
            try:
                self.service.void(cur.id)
            except ServiceError as exc:
                self.refusals.append(exc.message)

    def on_event(self, event: dict[str, Any]) -> None:
        """A public event of the service (called in the publisher's thread)."""
        kind = event.get("type")
        try:
            if kind == "dealt" and isinstance(event.get("first_player"), int):
                self.panel.lights.blink(event["first_player"], n=5)
                self._beep(1)
            elif kind == "action" and isinstance(event.get("turn"), int):
                self.panel.lights.light(event["turn"])
            elif kind in ("finished", "void"):
                self.panel.lights.off()
            elif kind == "estop":
                self._beep(3)
            elif kind == "refused":
                self._beep(1)
        except Exception:  # the LEDs and the buzzer are a courtesy: never let them stop the table
            log.exception("panel")

    def _beep(self, times: int) -> None:
        try:
            self.panel.buzzer.beep(times)
        except Exception:
            log.exception("buzzer")

    def close(self) -> None:
        self.panel.close()


def open_panel(service: TableService, cfg: Any) -> PanelLink | None:
    """The panel on a Raspberry Pi's GPIO; ``None`` elsewhere (no GPIO: the pages do everything)."""
    from pathlib import Path

    if not Path("/proc/device-tree/model").exists():
        return None
    try:
        from controller.pins import setup_pin_factory
        from firmware_bridge.panel import Panel

        log.info("%s", setup_pin_factory().line())  # lgpio on a Pi 5; fails clearly without python3-lgpio
        return PanelLink(service, Panel(), game=cfg.game, fair_deal=cfg.fair_deal)
    except Exception:  # no GPIO access (not in the gpio group, pins busy): run without the panel
        log.exception("no operator panel")
        return None
