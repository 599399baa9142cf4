"""Every timing constant comes from the parts table (hardware/parts.py), in one place shared by the
firmware's config, the simulator and the docs; the derived figures hold together."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.sim.fakes import FIRMWARE_DIR, load_config
from firmware_bridge.sim.model import Mechanics

PARTS_PY = Path(FIRMWARE_DIR).parent / "parts.py"


def _parts():
    spec = importlib.util.spec_from_file_location("hongsi_parts", PARTS_PY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_config_and_docs_are_generated_from_the_parts_table():
    parts = _parts()
    text = (Path(FIRMWARE_DIR) / "config.py").read_text()
    assert parts.config_block() in text, "run: python hardware/parts.py"
    assert (Path(FIRMWARE_DIR).parent / "timing.md").read_text() == parts.doc(), "run: python hardware/parts.py"
    assert load_config().PARTS_HASH == parts.parts_hash()


def test_the_simulator_takes_its_defaults_from_the_same_figures():
    cfg, m = load_config(), Mechanics()
    assert m.takeaway_mm_ms * 1000 == cfg.TAKEAWAY_MM_S and m.turntable_deg_per_s == cfg.TABLE_DEG_PER_S
    assert abs(m.pulse_ms() * 1000 - cfg.SINGLE_PULSE_US) < 2
    assert abs(m.travel_ms() - cfg.TRAVEL_MS) < 1
    assert m.boot_ms == cfg.BOOT_MS and m.servo_settle_ms == cfg.SERVO_SETTLE_MS


def test_the_thresholds_separate_what_the_parts_can_do():
    c = load_config()
    assert c.GLITCH_US < c.SINGLE_PULSE_US * (1 - c.SPEED_TOL) / (1 + c.SPEED_TOL)  # no real card is a glitch
    assert c.SINGLE_MAX_US < c.DOUBLE_PULSE_US  # the slowest single card is not a double
    assert c.TRAVEL_MS < c.JAM_MS and c.DOUBLE_PULSE_US / 1000 * 1.5 < c.STUCK_MS  # a double is not stuck
    assert c.HANDOFF_MS * c.PICK_MM_S * (1 - c.SPEED_TOL) / 1000 >= c.EDGE_TO_NIP_MM  # the nip has the card


@given(st.floats(0.9, 1.1), st.floats(0.0, 0.03))
def test_a_stacked_double_looks_like_one_card(speed, share):
    """What a pulse cannot tell: two cards stacked flush (the camera and the deck decoding must)."""
    c = load_config()
    pulse_us = c.CARD_MM * (1 + share) / (c.TAKEAWAY_MM_S * speed) * 1e6
    assert pulse_us < c.DOUBLE_PULSE_US


def test_the_mechanical_bound_and_commercial_dealers():
    parts = _parts()
    ms = parts.mechanical_card_ms()
    assert abs(ms - Mechanics().mechanical_card_ms()) < 0.1 * ms
    assert 1.5 < 1000 / ms < 4.0  # cards per second: in the range of commercial dealers (2-4 cards/s)


def test_the_shipped_config_holds_the_parts_figures_and_one_pass():
    """/etc/hongsi/config.toml as installed: the pulses the parts give (not the old N20 wheel's 73 ms),
    and one shuffler pass (no stack-return mechanism: a second pass would run with empty bins)."""
    import tomllib

    shipped = tomllib.loads((Path(FIRMWARE_DIR).parents[1] / "deploy" / "config.toml").read_text())
    c = load_config()
    assert shipped["exit_pulse_ms"] == round(c.SINGLE_PULSE_US / 1000, 1)
    assert shipped["double_pulse_ms"] == round(c.DOUBLE_PULSE_US / 1000, 1)
    assert shipped["shuffle_passes"] == 1


def test_the_config_defaults_are_the_parts_pulses_and_one_pass():
    """A rig run with no config file uses the firmware's pulses from the parts, and one shuffler pass."""
    from controller.config import load_config
    from firmware_bridge.sim.fakes import load_config as firmware_config

    cfg, fw = load_config(path=None, env={}), firmware_config()
    assert cfg.exit_pulse_ms == round(fw.SINGLE_PULSE_US / 1000, 1)
    assert cfg.double_pulse_ms == round(fw.DOUBLE_PULSE_US / 1000, 1)
    assert cfg.exit_pulse_ms * 1.05 < cfg.double_pulse_ms
    assert cfg.shuffle_passes == 1
