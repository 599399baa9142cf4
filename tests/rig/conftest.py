"""Fixtures for the rig tests: a virtual rig behind a real pty and a connected host Rig."""

from __future__ import annotations

import pytest

from firmware_bridge import Rig
from firmware_bridge.sim import VirtualRig


@pytest.fixture
def make_rig():
    """make_rig(**VirtualRig options) -> (VirtualRig, connected Rig); everything is stopped afterwards."""
    made: list[tuple[VirtualRig, Rig]] = []

    def make(connect: bool = True, **kw):
        kw.setdefault("seed", 7)
        kw.setdefault("speed", 20)
        kw.setdefault("camera", False)
        vr = VirtualRig(**kw)
        ends = vr.start()
        rig = Rig(ends["serial"], timeout=3.0)
        made.append((vr, rig))
        if connect:
            rig.connect()
        return vr, rig

    yield make
    for vr, rig in made:
        rig.close()
        vr.stop()
