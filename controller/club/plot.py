"""Players' running totals as an SVG line plot, drawn on the server (no chart library in the page)."""

from __future__ import annotations

from html import escape
from typing import Any

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
W, H, PAD = 640, 300, 40


def running_totals(entries: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Each player's total after each of their hands (entries in time order)."""
    totals: dict[str, list[int]] = {}
    for e in entries:
        line = totals.setdefault(e["player"], [0])
        line.append(line[-1] + int(e["delta"]))
    return totals


def ledger_svg(entries: list[dict[str, Any]], title: str = "Ledger 账目") -> str:
    totals = running_totals(entries)
    longest = max((len(v) for v in totals.values()), default=1)
    values = [x for v in totals.values() for x in v] or [0]
    lo, hi = min(values + [0]), max(values + [0])
    span = (hi - lo) or 1

    def xy(i: int, v: int) -> str:
        x = PAD + (W - 2 * PAD) * i / max(longest - 1, 1)
        y = H - PAD - (H - 2 * PAD) * (v - lo) / span
        return f"{x:.1f},{y:.1f}"

    zero = H - PAD - (H - 2 * PAD) * (0 - lo) / span
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
             f'font-family="sans-serif" font-size="12" role="img" aria-label="{escape(title)}">',
             f'<text x="{PAD}" y="20" font-size="14">{escape(title)}</text>',
             f'<line x1="{PAD}" y1="{zero:.1f}" x2="{W - PAD}" y2="{zero:.1f}" stroke="#999"/>',
             f'<text x="4" y="{PAD}">{hi}</text><text x="4" y="{H - PAD}">{lo}</text>']
    for k, (player, line) in enumerate(sorted(totals.items())):
        colour = COLOURS[k % len(COLOURS)]
        points = " ".join(xy(i, v) for i, v in enumerate(line))
        parts.append(f'<polyline class="player" data-player="{escape(player)}" fill="none" stroke="{colour}" '
                     f'stroke-width="2" points="{points}"/>')
        parts.append(f'<text x="{W - PAD + 4 - 120}" y="{36 + 14 * k}" fill="{colour}">'
                     f'{escape(player)}: {line[-1]}</text>')
    if not totals:
        parts.append(f'<text x="{PAD}" y="{H // 2}">no hands yet 还没有牌局</text>')
    parts.append("</svg>")
    return "".join(parts)
