"""The pin factory check at start: lgpio on a Pi 5, MockFactory off a Pi (and said so), a clear error naming
python3-lgpio when a Pi 5 cannot load it."""

from __future__ import annotations

import importlib.util

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.pins import (
    PinFactoryError,
    board_model,
    check_pin_factory,
    select_pin_factory,
    setup_pin_factory,
)

PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.5"


@pytest.fixture
def model_file(tmp_path):
    def write(text: str):
        path = tmp_path / "model"
        path.write_bytes(text.encode() + b"\x00")  # the device tree's string ends in NUL
        return path

    return write


def test_the_board_model_comes_from_the_device_tree(model_file, tmp_path):
    assert board_model(model_file(PI5)) == PI5
    assert board_model(model_file("Generic x86 PC")) is None
    assert board_model(tmp_path / "absent") is None


@pytest.mark.parametrize("model, factory, ok", [
    (PI5, "LGPIOFactory", True),
    (PI5, "RPiGPIOFactory", False),  # RPi.GPIO cannot reach the Pi 5's RP1 GPIO
    (PI5, "NativeFactory", False),
    (PI4, "LGPIOFactory", True),
    (PI4, "RPiGPIOFactory", True),
    (PI4, "MockFactory", False),  # a Pi with simulated pins would light nothing
    (None, "MockFactory", True),
    (None, "LGPIOFactory", False),
])
def test_the_check_judges_the_factory_for_the_board(model, factory, ok):
    check = check_pin_factory(model, factory)
    assert check.ok is ok, check.message
    if model == PI5 and not ok:
        assert "python3-lgpio" in check.message
    if ok and model is not None:
        assert "on the Pico" in check.message  # no software PWM for the servo on the Pi


def test_off_a_pi_the_panel_runs_on_mockfactory_with_pwm_pins(tmp_path):
    factory = select_pin_factory(None, env={}, model_path=tmp_path / "absent")
    assert isinstance(factory, MockFactory) and factory.pin_class is MockPWMPin
    forced = select_pin_factory(PI5, env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert isinstance(forced, MockFactory)


@pytest.mark.skipif(importlib.util.find_spec("lgpio") is not None, reason="lgpio is installed here")
def test_a_pi5_without_lgpio_is_a_clear_error(model_file):
    with pytest.raises(PinFactoryError, match="python3-lgpio"):
        select_pin_factory(None, env={}, model_path=model_file(PI5))


def test_setup_makes_it_gpiozeros_default_and_reports_it(tmp_path):
    old = Device.pin_factory
    try:
        check = setup_pin_factory(env={}, model_path=tmp_path / "absent")
        assert isinstance(Device.pin_factory, MockFactory)
        assert check.mock and check.ok and check.board is None and "MockFactory" in check.line()
    finally:
        if Device.pin_factory is not None and Device.pin_factory is not old:
            Device.pin_factory.close()
        Device.pin_factory = old


@pytest.mark.parametrize("module", ["controller.pins", "controller.firmware_tool", "controller.calibrate"])
def test_the_module_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("labels, chip", [
    ({0: "pinctrl-rp1", 10: "gpio-brcmvirt", 11: "raspberrypi-exp-gpio"}, 0),     # Pi 5, kernel >= 6.6.45
    ({0: "gpio-brcmstb@107d508500", 1: "gpio-brcmstb@107d517c00", 4: "pinctrl-rp1"}, 4),  # Pi 5, older kernels
    ({0: "pinctrl-bcm2711", 1: "raspberrypi-exp-gpio"}, 0),                       # Pi 4
    ({0: "raspberrypi-exp-gpio", 1: "pinctrl-bcm2835"}, 1),                       # the header's chip second
    ({0: "gpio-mockup-A"}, None),                                                  # not a Pi: gpiozero guesses
])
def test_the_headers_gpiochip_is_found_by_its_label_not_its_number(labels, chip):
    from controller.pins import pi_gpiochip

    assert pi_gpiochip(labels) == chip
