"""Every test: the table's empty seats play the greedy bot (25 ms if a test picks the search bot), as
before the search bot: its play is tested in tests/engine and measured in benchmarks/bots.py; the service
tests are about the table, and a search bot's 200 ms a move would make their hands take minutes."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _quick_bots():
    from controller.service import bots

    before = bots.SETTINGS.bot, bots.SETTINGS.budget_ms
    bots.configure(bot="greedy", budget_ms=25.0)
    yield
    bots.configure(*before)


@pytest.fixture(scope="session")
def card_art():
    """``card_art("paris", ...)``: those real designs are in the card-art cache the renderer reads
    (``vision.card_art.CACHE``), rasterised now if a clean clone has none (seconds a design); skipped
    where Debian's SVG decks or librsvg are not installed (scripts/install-system.sh)."""
    import shutil

    from vision.card_art import ART_DESIGNS, CACHE, build_cache, cached_designs

    def need(*designs: str) -> None:
        missing = [d for d in designs if d not in cached_designs()]
        if not missing:
            return
        if shutil.which("rsvg-convert") is None or not all(ART_DESIGNS[d][0].exists() for d in missing):
            pytest.skip("gnome-cards-data / kdegames-card-data-kf5 / librsvg2-bin not installed (scripts/install-system.sh)")
        build_cache(CACHE, missing, progress=False)

    return need
