"""Who plays first, by each game's rule, and saying it: voice (espeak-ng, Mandarin), text in English
and Chinese.

- 红桃四 (``hongsi``) and 捉红A (``zhuohonga``): the holder of ♥4.
- 挖坑 (``wakeng``): the holder of ♥4; if it is in the bottom, the holder of the lowest heart
  (climbing order: 4 5 6 … K A 2 3).
- 拱猪 (``gongzhu``): the holder of ♣2.
- 升级 (``shengji``): the dealer (庄家), who is the seat the deal started from.

Seats are numbered from 0 in records and events, and from 1 when spoken or shown to people
(seat 2 is "三号位").

>>> fp = first_player("hongsi", [["S5"], ["H4"], ["C2"], ["D9"]], [])
>>> fp.seat, fp.card, fp.text_zh
(1, 'H4', '红桃四在二号位，二号先出')

>>> voice = Voice()          # espeak-ng in a background queue; announcements never overlap
>>> voice.say(fp.text_zh, fp.text_en)                              # doctest: +SKIP
>>> voice.close()
"""

from __future__ import annotations

import queue
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import CLIMBING, SUIT_NAMES_ZH, parse_card

ZH_DIGITS = {1: "一", 2: "二", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九", 10: "十"}
ZH_RANKS = {"2": "二", "3": "三", "4": "四", "5": "五", "6": "六", "7": "七", "8": "八", "9": "九",
            "10": "十", "J": "J", "Q": "Q", "K": "K", "A": "A"}
EN_RANKS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
EN_SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def card_zh(card: str) -> str:
    """Spoken Chinese name: ``H4`` → 红桃四."""
    c = parse_card(card)
    if c.suit is None:
        return c.zh
    return SUIT_NAMES_ZH[c.suit] + ZH_RANKS[c.rank]


def card_en(card: str) -> str:
    c = parse_card(card)
    if c.suit is None:
        return "the big joker" if c.rank == "RJ" else "the small joker"
    return f"the {EN_RANKS.get(c.rank, c.rank)} of {EN_SUITS[c.suit]}"


def seat_zh(seat: int) -> str:
    return ZH_DIGITS.get(seat + 1, str(seat + 1)) + "号"


_SEAT_PATTERNS = (  # the engines' messages number seats from 0, as records do
    (re.compile(r"\bseat (\d+)"), lambda n: f"Seat {n + 1}"),
    (re.compile(r"座位(\d+)"), lambda n: f"{seat_zh(n)}位"),
    (re.compile(r" ?(\d+) ?号(?:座)?位"), lambda n: f"{seat_zh(n)}位"),
    (re.compile(r"不是 ?(\d+) ?号"), lambda n: f"不是{seat_zh(n)}位"),
)


_QUOTED_CARD = re.compile(r"'([SHDC])(10|[2-9JQKA])'")
_SUIT_SIGNS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def people_text(text: str) -> str:
    """A referee message with its seats named as people at the table name them (from 1, 一号位).

    >>> people_text("seat 1 leads and may not pass")
    'Seat 2 leads and may not pass'
    >>> people_text("轮到座位3，不是座位0")
    '轮到四号位，不是一号位'
    >>> people_text("现在轮到 2 号座位出牌，不是 0 号")
    '现在轮到三号位出牌，不是一号位'
    >>> people_text("1号位没有红A，剩3张")
    '二号位没有红A，剩3张'
    >>> people_text("cannot call 'SA': a card of rank 4..10")   # a quoted card code, as a card
    'cannot call ♠A: a card of rank 4..10'
    """
    for pattern, name in _SEAT_PATTERNS:
        text = pattern.sub(lambda m, name=name: name(int(m.group(1))), text)
    return _QUOTED_CARD.sub(lambda m: _SUIT_SIGNS[m.group(1)] + m.group(2), text)


def and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def result_words(verdict: dict[str, Any]) -> tuple[str, str]:
    """What the table hears when a hand ends (Chinese, English).

    >>> result_words({"winners": [1]})
    ('本局结束，二号位获胜', 'Hand over: Seat 2 wins.')
    >>> result_words({"game": "hongsi", "mode": "baomen", "h4_holder": 0, "winners": [1, 2, 3]})
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


def violation_for_people(v: dict[str, Any]) -> dict[str, Any]:
    """A violation's JSON with :func:`people_text` applied to both messages (the record keeps the engine's)."""
    return {**v, "message": people_text(str(v.get("message", ""))),
            "message_zh": people_text(str(v.get("message_zh", "")))}


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


def _holder(hands: Sequence[Sequence[str]], card: str) -> int | None:
    for seat, hand in enumerate(hands):
        if card in [str(c) for c in hand]:
            return seat
    return None


def _by_card(seat: int, card: str, rule: str) -> FirstPlayer:
    return FirstPlayer(seat, card, rule,
                       f"Seat {seat + 1} holds {card_en(card)} and plays first.",
                       f"{card_zh(card)}在{seat_zh(seat)}位，{seat_zh(seat)}先出")


def first_player(game: str, hands: Sequence[Sequence[str]], bottom: Sequence[str],
                 dealer: int = 0) -> FirstPlayer:
    """The first player of a dealt hand by ``game``'s rule. Raise ``ValueError`` if no seat qualifies."""
    if game in ("hongsi", "zhuohonga", "gongzhu"):
        card = "C2" if game == "gongzhu" else "H4"
        seat = _holder(hands, card)
        if seat is None:
            raise ValueError(f"no seat holds {card}: the deal is not a whole {game} deck")
        return _by_card(seat, card, f"holder of {card}")
    if game == "wakeng":
        for rank in CLIMBING.ranks:
            seat = _holder(hands, "H" + rank)
            if seat is not None:
                return _by_card(seat, "H" + rank, "lowest heart")
        raise ValueError("no seat holds a heart")
    if game == "shengji":
        return FirstPlayer(dealer, None, "dealer", f"Seat {dealer + 1} is the dealer and plays first.",
                           f"{seat_zh(dealer)}坐庄，{seat_zh(dealer)}先出")
    raise ValueError(f"unknown game {game!r}")


NEWS_GAMES = frozenset({"shengji", "wakeng", "zhuohonga", "hongsi"})  # the games :func:`table_news` has news of
PLAIN_PLAY = frozenset({"play", "pass", "announce"})  # actions that make no 红桃四 news (plays are shown anyway)


def may_make_news(game: str, action: str | None) -> bool:
    """Whether ``action`` can make :func:`table_news` in ``game`` (so the views are built only then)."""
    return game in NEWS_GAMES and not (game == "hongsi" and action in PLAIN_PLAY)


def table_news(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, str] | None:
    """What the table is told (Chinese, English) when an action makes a public fact of the hand known,
    from the engine's public views before and after it: 升级's trump, 挖坑's digger and bid, a 宣红A that
    stands. None when nothing of that kind changed.

    >>> table_news({"game": "shengji", "trump_suit": None}, {"game": "shengji", "trump_suit": "D"})
    ('方块为主', 'Diamonds are trump.')
    >>> table_news({"game": "wakeng", "digger": None}, {"game": "wakeng", "digger": 2, "bid": 3})
    ('三号位挖坑，3分', 'Seat 3 digs, for 3.')

    红桃四: who leads the first trick, when a 对挑 or a 趴 moves it from the ♥4 holder, and who lies down:

    >>> table_news({"game": "hongsi", "first_leader": 0, "tiao": [2]},
    ...            {"game": "hongsi", "first_leader": 1, "tiao": [2, 1], "lying_down": []})
    ('对挑，二号位先出', '挑 against 挑: Seat 2 leads.')
    >>> table_news({"game": "hongsi", "first_leader": 0, "lying_down": []},
    ...            {"game": "hongsi", "first_leader": 2, "lying_down": [0]})
    ('一号位趴下，三号位先出', 'Seat 1 lies down; Seat 3 leads.')
    """
    game = after.get("game")
    if game == "hongsi":
        return _hongsi_news(before, after)
    if game == "shengji" and before.get("trump_suit") is None and not before.get("no_trump"):
        if after.get("no_trump"):
            return "无主", "No trump."
        suit = after.get("trump_suit")
        if suit in EN_SUITS:
            return f"{SUIT_NAMES_ZH[suit]}为主", f"{EN_SUITS[suit].capitalize()} are trump."
    if game == "wakeng" and before.get("digger") is None and isinstance(after.get("digger"), int):
        seat, bid = after["digger"], after.get("bid")
        return f"{seat_zh(seat)}位挖坑，{bid}分", f"Seat {seat + 1} digs, for {bid}."
    if game == "zhuohonga" and before.get("xuan") != after.get("xuan") and after.get("xuan") in ("xuan", "du_xuan"):
        by = after.get("xuan_by")
        who_zh, who_en = (f"{seat_zh(by)}位", f"Seat {by + 1}") if isinstance(by, int) else ("", "The")
        alone = after["xuan"] == "du_xuan"
        return (f"{who_zh}{'独宣' if alone else '宣红A'}，翻倍",
                f"{who_en} {'declares both red aces alone' if alone else 'red aces declaration stands'}: doubled.")
    return None


def _hongsi_news(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, str] | None:
    lead = after.get("first_leader")
    moved = isinstance(lead, int) and lead != before.get("first_leader") and after.get("phase") != "play"
    down = [s for s in after.get("lying_down") or [] if s not in (before.get("lying_down") or [])]
    zh: list[str] = []
    en: list[str] = []
    if len(after.get("tiao") or []) == 2 and len(before.get("tiao") or []) < 2 and moved:
        zh.append("对挑")
        en.append("挑 against 挑")
    for s in down:
        zh.append(f"{seat_zh(s)}位趴下")
        en.append(f"Seat {s + 1} lies down")
    if moved:
        zh.append(f"{seat_zh(lead)}位先出")
        en.append(f"Seat {lead + 1} leads")
    if not zh:
        return None
    return "，".join(zh), (": " if en[0].startswith("挑") else "; ").join(en) + "."


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
