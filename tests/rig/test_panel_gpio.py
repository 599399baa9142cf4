"""The operator panel on gpiozero's MockFactory with MockPWMPin."""

from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_bridge.panel import (
    BUZZER_PIN,
    DEAL_BUTTON_PIN,
    ESTOP_PIN,
    SEAT_LED_PINS,
    Buzzer,
    DealButton,
    EStop,
    Panel,
    SeatLights,
)


@pytest.fixture(autouse=True)
def mock_pins():
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    yield Device.pin_factory
    Device.pin_factory.reset()


def test_seat_leds_follow_the_seat(mock_pins):
    lights = SeatLights()
    for seat in range(4):
        lights.light(seat)
        assert [mock_pins.pin(p).state for p in SEAT_LED_PINS] == [i == seat for i in range(4)]
    lights.follow({"type": "card_dealt", "seat": 1})
    assert lights.value == (0, 1, 0, 0)
    lights.off()
    assert not any(mock_pins.pin(p).state for p in SEAT_LED_PINS)
    with pytest.raises(ValueError):
        lights.light(4)
    lights.close()


def test_deal_button_fires_its_callbacks(mock_pins):
    pressed, held = [], []
    button = DealButton(when_pressed=lambda: pressed.append(1), when_held=lambda: held.append(1), hold_time=0.05)
    pin = mock_pins.pin(DEAL_BUTTON_PIN)
    pin.drive_low()
    assert button.is_pressed
    import time

    deadline = time.monotonic() + 10  # held past hold_time: its callback runs on gpiozero's thread
    while not held and time.monotonic() < deadline:
        time.sleep(0.01)
    pin.drive_high()
    assert pressed == [1] and held == [1]
    button.close()


def test_estop_fires_every_stop_even_if_one_fails(mock_pins):
    stops = []

    def broken():
        raise RuntimeError("link down")

    stop = EStop(on_stop=[broken, lambda: stops.append("rig")])
    pin = mock_pins.pin(ESTOP_PIN)
    assert not stop.is_active
    pin.drive_high()  # normally closed: pressing (or a cut wire) opens the circuit
    assert stop.is_active and stops == ["rig"] and len(stop.errors) == 1
    stop.close()


def test_buzzer_plays_on_a_pwm_pin(mock_pins):
    buzzer = Buzzer()
    pin = mock_pins.pin(BUZZER_PIN)
    buzzer.tone("A5")
    assert buzzer.playing and abs(pin.frequency - 880) < 1 and pin.state > 0
    buzzer.silence()
    assert not buzzer.playing
    buzzer.close()


def test_panel_wires_the_estop_to_the_rig(mock_pins):
    class FakeRig:  # a stand-in for the serial Rig: only the callback wiring is under test here
        stopped = 0

        def estop(self):
            self.stopped += 1

    rig = FakeRig()
    deals = []
    panel = Panel(rig=rig, on_deal=lambda: deals.append(1))
    mock_pins.pin(ESTOP_PIN).drive_high()
    mock_pins.pin(DEAL_BUTTON_PIN).drive_low()
    assert rig.stopped == 1 and deals == [1]
    panel.close()



def test_the_deal_button_is_debounced(mock_pins):
    """A worn switch chatters for a few ms: one press, one deal. On the Pi, lgpio's kernel debounce
    does the filtering (gpio_set_debounce_micros); MockPin stores the setting but does not filter."""
    from firmware_bridge.panel import BOUNCE_S

    button = DealButton()
    assert mock_pins.pin(DEAL_BUTTON_PIN).bounce == BOUNCE_S == 0.03
    button.close()


def test_the_panel_leaves_the_audio_i2s_pins_free(mock_pins):
    """The voice's I2S amplifier (MAX98357A) takes BCM 18-21: with those lines claimed first, the whole
    panel still opens (gpiozero refuses a pin in use), on pins of its own, none twice."""
    from gpiozero import DigitalOutputDevice

    from firmware_bridge.panel import I2S_PINS

    assert I2S_PINS == (18, 19, 20, 21)
    i2s = [DigitalOutputDevice(p) for p in I2S_PINS]
    panel = Panel(rig=None)
    try:
        used = {int(info.name[len("GPIO"):]) for info in mock_pins._reservations} - set(I2S_PINS)
    finally:
        panel.close()
        for dev in i2s:
            dev.close()
    panel_pins = [*SEAT_LED_PINS, DEAL_BUTTON_PIN, ESTOP_PIN, BUZZER_PIN]
    assert used == set(panel_pins) and len(panel_pins) == len(used)
    assert not used & {2, 3, 14, 15}   # I2C and the UART stay free too
