"""Helpers of the Pi-readiness tests: the virtual rig in this process, the hongsi command as a subprocess."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HONGSI = [sys.executable, "-m", "controller.cli"]
SPEED = 20.0


def have_model() -> bool:
    from vision.reader import MODEL_PATH

    return MODEL_PATH.exists()


def env(**extra: str) -> dict[str, str]:
    """The environment of a hongsi subprocess: this checkout, no config file, no voice unless asked."""
    out = dict(os.environ)
    out["PYTHONPATH"] = str(ROOT) + os.pathsep + out.get("PYTHONPATH", "")
    out.pop("HONGSI_CONFIG", None)
    out.setdefault("HONGSI_VOICE", "false")
    out["GPIOZERO_PIN_FACTORY"] = "mock"
    out["COLUMNS"] = "200"
    out.update(extra)
    return out
