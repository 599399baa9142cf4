"""Who plays first, by each game's rule (``engine.game.Game.first_play``), and saying it: voice
(espeak-ng, Mandarin), text in English and Chinese (``controller.text``).

Seats are numbered from 0 in records and events, and from 1 when spoken or shown to people
(seat 2 is "三号位"). The naming helpers live in :mod:`controller.text`; they stay importable from here.

>>> fp = first_player("hongsi", [["S5"], ["H4"], ["C2"], ["D9"]], [])
>>> fp.seat, fp.card, fp.text_zh
(1, 'H4', '红桃四在二号位，二号先出')

>>> voice = Voice()          # espeak-ng in a background queue; announcements never overlap
>>> voice.say(fp.text_zh, fp.text_en)                              # doctest: +SKIP
>>> voice.close()
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.text import (  # noqa: F401 (re-exported: the deal's code imports them from here)
    EN_RANKS,
    EN_SUITS,
    ZH_DIGITS,
    ZH_RANKS,
    and_list,
    card_en,
    card_sign,
    card_zh,
    count_words,
    first_player_words,
    news_words,
    seat_en,
    seat_zh,
    violation_for_people,
)
from engine.registry import get_game


def result_words(verdict: dict[str, Any]) -> tuple[str, str]:
    """What the table hears when a hand ends (Chinese, English).

    >>> result_words({"winners": [1]})
    ('本局结束，二号位获胜', 'Hand over: Seat 2 wins.')
    >>> result_words({"mode": "baomen", "h4_holder": 0, "winners": [1, 2, 3]})
    ('爆闷失败。本局结束，二号位、三号位、四号位获胜', 'The 爆闷 failed. Hand over: Seats 2, 3 and 4 win.')
    """
    winners = [w for w in verdict.get("winners") or [] if isinstance(w, int)]
    zh, en = "本局结束", "Hand over"
    if verdict.get("mode") == "baomen" and verdict.get("h4_holder") not in winners and winners:
        zh, en = "爆闷失败。" + zh, "The 爆闷 failed. " + en
    if not winners:
        return zh, en + "."
    numbers = and_list([str(w + 1) for w in winners])
    who = f"Seat {numbers} wins" if len(winners) == 1 else f"Seats {numbers} win"
    return zh + "，" + "、".join(f"{seat_zh(w)}位" for w in winners) + "获胜", f"{en}: {who}."


@dataclass(frozen=True)
class FirstPlayer:
    """The seat that plays first, why (``card`` held, or ``dealer``), and what to say."""

    seat: int
    card: str | None
    rule: str
    text_en: str
    text_zh: str

    def to_event(self) -> dict[str, Any]:
        return {"type": "first_player", "seat": self.seat, "seat_label": self.seat + 1, "card": self.card,
                "rule": self.rule, "text": self.text_en, "text_zh": self.text_zh}


RULE_WORDS = {"holder": "holder of {card}", "lowest_heart": "lowest heart", "dealer": "dealer"}


def first_player(game: str, hands: Sequence[Sequence[str]], bottom: Sequence[str],
                 dealer: int = 0) -> FirstPlayer:
    """The first player of a dealt hand by ``game``'s rule. Raise ``ValueError`` if no seat qualifies."""
    first = get_game(game).first_play(hands, bottom, dealer=dealer)  # UnknownGame is a ValueError too
    zh, en = first_player_words(first.card, first.seat, first.rule)
    return FirstPlayer(first.seat, first.card, RULE_WORDS[first.rule].format(card=first.card), en, zh)


def table_news(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, str] | None:
    """What the table is told (Chinese, English) when an action makes a public fact of the hand known,
    from the engine's public views before and after it (``Game.news``). None when nothing changed.

    >>> table_news({"game": "shengji", "trump_suit": None}, {"game": "shengji", "trump_suit": "D"})
    ('方块为主', 'Diamonds are trump.')
    >>> table_news({"game": "wakeng", "digger": None}, {"game": "wakeng", "digger": 2, "bid": 3})
    ('三号位挖坑，3分', 'Seat 3 digs, for 3.')
    >>> table_news({"game": "hongsi", "first_leader": 0, "tiao": [2]},
    ...            {"game": "hongsi", "first_leader": 1, "tiao": [2, 1], "lying_down": []})
    ('对挑，二号位先出', '挑 against 挑: Seat 2 leads.')
    >>> table_news({"game": "hongsi", "first_leader": 0, "lying_down": []},
    ...            {"game": "hongsi", "first_leader": 2, "lying_down": [0]})
    ('一号位趴下，三号位先出', 'Seat 1 lies down; Seat 3 leads.')
    """
    try:
        game = get_game(str(after.get("game")))
    except ValueError:
        return None
    news = game.news(before, after)
    return None if news is None else news_words(news)


# ---------------------------------------------------------------------------------------- voice
class Voice:
    """Speaks announcements one after another (a queue and one worker thread), so they never overlap.

    Uses ``espeak-ng`` with the Mandarin voice ``cmn``; where espeak-ng is missing (or ``enabled`` is
    false) each announcement is written as plain text to ``fallback`` (default: standard error) instead.

    >>> v = Voice(enabled=False, fallback=print)
    >>> v.say("三号先出", "Seat 3 plays first.")
    >>> v.close()
    三号先出 — Seat 3 plays first.
    """

    def __init__(self, *, enabled: bool = True, voice: str = "cmn", speed: int = 150,
                 fallback: Callable[[str], Any] | None = None, espeak: str | None = None):
        self.espeak = (espeak or shutil.which("espeak-ng")) if enabled else None
        self.voice, self.speed = voice, speed
        self.fallback = fallback or (lambda text: sys.stderr.write(text + "\n"))
        self._queue: queue.Queue[tuple[str, str | None, Path | None, threading.Event] | None] = queue.Queue()
        self._worker = threading.Thread(target=self._run, name="voice", daemon=True)
        self._worker.start()

    @property
    def speaks(self) -> bool:
        return self.espeak is not None

    def say(self, text_zh: str, text_en: str | None = None, *, wav: Path | None = None,
            wait: bool = False) -> None:
        """Queue one announcement; with ``wav``, write it to that WAV file instead of the speaker."""
        done = threading.Event()
        self._queue.put((text_zh, text_en, Path(wav) if wav else None, done))
        if wait:
            done.wait()

    def wav(self, text_zh: str, path: Path) -> Path:
        """Write an announcement to a WAV file now (through the queue) and return the path."""
        self.say(text_zh, wav=path, wait=True)
        return Path(path)

    def close(self, timeout: float = 30.0) -> None:
        """Finish what is queued, then stop the worker."""
        self._queue.put(None)
        self._worker.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            text_zh, text_en, wav, done = item
            try:
                self._speak(text_zh, text_en, wav)
            finally:
                done.set()

    def _speak(self, text_zh: str, text_en: str | None, wav: Path | None) -> None:
        if self.espeak is not None:
            cmd = [self.espeak, "-v", self.voice, "-s", str(self.speed)]
            cmd += ["-w", str(wav)] if wav else []
            try:
                subprocess.run(cmd + [text_zh], check=True, timeout=60, capture_output=True)
                return
            except (OSError, subprocess.SubprocessError):
                pass
        self.fallback(text_zh + (f" — {text_en}" if text_en else ""))
