"""Which module implements which game. Imports are lazy so one game's module never slows another."""

from __future__ import annotations

import importlib

from engine.game import Game

_GAME_CLASSES = {
    "hongsi": "engine.hongsi.game:HongsiGame",
    "wakeng": "engine.wakeng:WakengGame",
    "zhuohonga": "engine.zhuohonga:ZhuohongaGame",
    "gongzhu": "engine.gongzhu:GongzhuGame",
    "shengji": "engine.shengji:ShengjiGame",
}
DEFAULT_GAME = "hongsi"  # the table's main game: 红桃四
_cache: dict[str, Game] = {}


class UnknownGame(ValueError):
    pass


def game_names() -> list[str]:
    return list(_GAME_CLASSES)


def get_game(name: str) -> Game:
    if name not in _GAME_CLASSES:
        raise UnknownGame(f"unknown game {name!r}; known: {', '.join(_GAME_CLASSES)}")
    if name not in _cache:
        module, cls = _GAME_CLASSES[name].split(":")
        _cache[name] = getattr(importlib.import_module(module), cls)()
    return _cache[name]
