"""Which gpiozero pin factory drives the operator panel, checked at start.

On a Raspberry Pi 5 the GPIO lines sit behind the RP1 chip: only gpiozero's **lgpio** factory drives
them (Debian package ``python3-lgpio``; RPi.GPIO and the native factory do not work there). On a Pi 4
and older lgpio is preferred too. On a machine that is not a Pi (a laptop running the virtual rig, CI)
the panel runs on gpiozero's ``MockFactory`` with ``MockPWMPin`` — and says so.

No software PWM drives the servo: the turntable servo and the ejector motor are driven by the Pico's
hardware PWM (``hardware/firmware/``). The Pi's only PWM output is the panel's buzzer.

>>> check = check_pin_factory(model="Raspberry Pi 5 Model B Rev 1.0", factory_name="LGPIOFactory")
>>> check.ok, check.pi5
(True, True)
>>> check_pin_factory(model="Raspberry Pi 5 Model B Rev 1.0", factory_name="RPiGPIOFactory").ok
False
>>> check_pin_factory(model=None, factory_name="MockFactory").mock
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL_FILE = Path("/proc/device-tree/model")
SERVO_PWM_NOTE = "servo and ejector PWM: on the Pico (hardware PWM); none on the Pi"


PI_CHIP_LABELS = ("pinctrl-rp1", "pinctrl-bcm2712", "pinctrl-bcm2711", "pinctrl-bcm2835")


def gpiochip_labels(dev: Path = Path("/dev")) -> dict[int, str]:
    """{chip number: label} of this machine's gpiochips, as lgpio reads them ({} without lgpio)."""
    try:
        import lgpio
    except ImportError:
        return {}
    out: dict[int, str] = {}
    for node in sorted(dev.glob("gpiochip[0-9]*")):
        n = int(node.name[len("gpiochip"):])
        try:
            h = lgpio.gpiochip_open(n)
        except Exception:  # noqa: BLE001 - lgpio.error: a chip we may not open is not ours
            continue
        try:
            out[n] = lgpio.gpio_get_chip_info(h)[3]
        finally:
            lgpio.gpiochip_close(h)
    return out


def pi_gpiochip(labels: dict[int, str]) -> int | None:
    """The chip that drives the 40-pin header, found by its label, not its number: the Pi 5's RP1 was
    gpiochip4 on kernels before 6.6.45 and is gpiochip0 after; the header's chip is not always the first.
    None: no known label (then gpiozero's own guess stands)."""
    for label in PI_CHIP_LABELS:
        for n in sorted(labels):
            if labels[n] == label:
                return n
    return None


class PinFactoryError(RuntimeError):
    """The Pi's GPIO cannot be driven (e.g. a Pi 5 without python3-lgpio); the message names the fix."""


def board_model(path: Path = MODEL_FILE) -> str | None:
    """The board's model string (``Raspberry Pi 5 Model B Rev 1.0``), or None when not a Raspberry Pi."""
    try:
        text = path.read_bytes().decode("utf-8", "replace").strip("\x00\n ")
    except OSError:
        return None
    return text if "raspberry pi" in text.lower() else None


def is_pi5(model: str | None) -> bool:
    return model is not None and "raspberry pi 5" in model.lower()


@dataclass(frozen=True)
class PinFactoryCheck:
    """What drives the panel's pins, and whether that is right for this board."""

    board: str | None  # None: not a Raspberry Pi
    factory: str  # class name, e.g. "LGPIOFactory", "MockFactory"
    ok: bool
    mock: bool
    pi5: bool
    message: str

    def line(self) -> str:
        return f"{self.board or 'not a Raspberry Pi'}: {self.factory} — {self.message}"


def check_pin_factory(model: str | None = None, factory_name: str | None = None, *,
                      model_path: Path = MODEL_FILE) -> PinFactoryCheck:
    """Judge a pin factory (by class name) for a board (by model string; default: this machine's)."""
    if model is None and factory_name is None:
        model = board_model(model_path)
    if factory_name is None:
        factory_name = type(select_pin_factory(model)).__name__
    mock = factory_name.startswith("Mock")
    pi5 = is_pi5(model)
    if model is None:
        ok = mock
        msg = ("the panel's GPIO is simulated / 非树莓派：GPIO 为模拟"
               if mock else f"not a Raspberry Pi but {factory_name} is in use: set GPIOZERO_PIN_FACTORY=mock")
    elif mock:
        ok, msg = False, "a Raspberry Pi but the GPIO is simulated: unset GPIOZERO_PIN_FACTORY"
    elif pi5 and factory_name != "LGPIOFactory":
        ok, msg = False, (f"a Pi 5 needs gpiozero's lgpio factory, not {factory_name}: "
                          "sudo apt install python3-lgpio; GPIOZERO_PIN_FACTORY=lgpio")
    else:
        ok, msg = True, f"{factory_name} drives the panel; {SERVO_PWM_NOTE}"
    return PinFactoryCheck(model, factory_name, ok, mock, pi5, msg)


def select_pin_factory(model: str | None = None, *, env: dict[str, str] | None = None,
                       model_path: Path = MODEL_FILE, labels: dict[int, str] | None = None) -> Any:
    """The pin factory to use: ``$GPIOZERO_PIN_FACTORY`` if set (``mock`` included); on a Raspberry Pi
    gpiozero's lgpio factory (required on a Pi 5; raises :class:`PinFactoryError` naming the package);
    elsewhere ``MockFactory(pin_class=MockPWMPin)``."""
    env = os.environ if env is None else env
    if model is None:
        model = board_model(model_path)
    name = env.get("GPIOZERO_PIN_FACTORY", "").strip().lower()
    if name == "mock" or (not name and model is None):
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    if name and name != "lgpio":
        from gpiozero import Device

        return Device._default_pin_factory()  # gpiozero resolves the named factory itself
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory(chip=pi_gpiochip(gpiochip_labels() if labels is None else labels))
    except Exception as exc:  # noqa: BLE001 - ImportError, or lgpio cannot open the gpiochip
        fix = "sudo apt install python3-lgpio (and a venv made with --system-site-packages)"
        if is_pi5(model) or name == "lgpio":
            raise PinFactoryError(f"cannot use gpiozero's lgpio pin factory on {model}: {exc}; {fix}") from None
        from gpiozero import Device

        return Device._default_pin_factory()


def setup_pin_factory(*, env: dict[str, str] | None = None, model_path: Path = MODEL_FILE
                      ) -> PinFactoryCheck:
    """At start: choose the pin factory, make it gpiozero's default, and return the check (log its
    :meth:`PinFactoryCheck.line`). Raises :class:`PinFactoryError` when a Pi's GPIO cannot be driven."""
    from gpiozero import Device

    model = board_model(model_path)
    factory = select_pin_factory(model, env=env, model_path=model_path)
    Device.pin_factory = factory
    return check_pin_factory(model, type(factory).__name__)
