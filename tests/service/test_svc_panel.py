"""The operator panel wired to the service, on gpiozero's MockFactory (MockPWMPin for the buzzer): the
e-stop button pauses the round, the deal button deals, the seat LEDs follow the first player and the turn."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from svc_helpers import wait_for

from controller.service.panel import PanelLink
from firmware_bridge.panel import DEAL_BUTTON_PIN, ESTOP_PIN, Panel


@pytest.fixture
def wired(service):
    factory = MockFactory(pin_class=MockPWMPin)
    link = PanelLink(service, Panel(pin_factory=factory))
    yield service, link, factory
    link.close()


def test_deal_button_deals_and_the_lights_follow_the_hand(wired):
    svc, link, factory = wired
    button = factory.pin(DEAL_BUTTON_PIN)
    button.drive_low()  # pressed (pull-up)
    button.drive_high()
    wait_for(lambda: svc.current is not None and svc.current.phase == "finished", timeout=30)
    rnd = svc.current
    assert rnd.bots == {0, 1, 2, 3}  # nobody holds a seat token: bots everywhere
    wait_for(lambda: link.panel.lights.value == (0, 0, 0, 0))  # all off once the hand is over
    # the next deal starts at the seat the rules say (the first player out of the last hand)
    svc.tokens.new_seat_token(0)
    button.drive_low()
    button.drive_high()
    wait_for(lambda: svc.current is not rnd and svc.current.phase == "playing")
    assert svc.current.first_seat == rnd.result()["next_first_seat"]
    # the bots play up to seat 0 (a person): its LED is the one lit, as the seat to act
    wait_for(lambda: svc.current.turn() == 0 and link.panel.lights.seat == 0)
    assert link.panel.lights.value in ((1, 0, 0, 0), (0, 0, 0, 0))  # lit (or blinking, if it leads)


def test_estop_button_pauses_the_round(wired):
    svc, link, factory = wired
    rnd = svc.start_round(bots=[])
    wait_for(lambda: rnd.phase == "playing")
    stop = factory.pin(ESTOP_PIN)
    stop.drive_high()  # pressed (normally closed to ground): stop
    wait_for(lambda: svc.estopped)
    assert rnd.paused
    factory.pin(DEAL_BUTTON_PIN).drive_low()  # a deal is refused while the e-stop is on
    factory.pin(DEAL_BUTTON_PIN).drive_high()
    wait_for(lambda: link.refusals)
    assert svc.current is rnd and "emergency stop" in link.refusals[0]
