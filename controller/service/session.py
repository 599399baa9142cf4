"""A session: the hands played since the operator last started a new one (a journaled ``session`` row).
Its ledger is kept per game (升级's levels are not 红桃四's points), each with every seat's running total
after each hand, for the display's plot.

>>> from types import SimpleNamespace as R
>>> rows = [R(kind="round_start", round=1, data={"game": "hongsi"}),
...         R(kind="round_end", round=1, data={"scores": [2, -2, 2, -2]}),
...         R(kind="session", round=1, data={}),
...         R(kind="round_start", round=2, data={"game": "hongsi"}),
...         R(kind="round_end", round=2, data={"scores": [1, -1, 1, -1]}),
...         R(kind="round_start", round=3, data={"game": "wakeng"}),
...         R(kind="round_end", round=3, data={"scores": [4, -2, -2]})]
>>> s = session_of(rows)
>>> s["games"]["hongsi"]["totals"], s["games"]["hongsi"]["history"], s["games"]["wakeng"]["totals"]
([1, -1, 1, -1], [[1, -1, 1, -1]], [4, -2, -2])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

KIND = "session"  # the journal row that starts a new session


def session_of(rows: Iterable[Any]) -> dict[str, Any]:
    """The current session from the journal's rows, oldest first: when it started (its row's seq, 0 for
    the journal's start) and, per game, each seat's totals and its running totals after each hand."""
    games: dict[str, dict[str, Any]] = {}
    game_of: dict[int, str] = {}
    started = 0
    for row in rows:
        if row.kind == KIND:
            games, started = {}, getattr(row, "seq", 0)
        elif row.kind == "round_start":
            game_of[row.round] = str(row.data.get("game") or "")
        elif row.kind == "round_end" and isinstance(row.data.get("scores"), list):
            scores = [int(v) for v in row.data["scores"]]
            g = games.setdefault(game_of.get(row.round, ""), {"totals": [], "history": [], "hands": 0})
            totals = g["totals"] + [0] * (len(scores) - len(g["totals"]))
            g["totals"] = [t + (scores[i] if i < len(scores) else 0) for i, t in enumerate(totals)]
            g["history"].append(list(g["totals"]))
            g["hands"] += 1
    return {"since": started, "games": games}
