"""Small builders for 红桃四 records, and the digest's own examples as records (tests, docs, demos).

>>> rec = record(SUITED, [call(0, "S10"), pa(1, 0), accept(0), play(1, "S4")])
>>> from engine.referee import referee
>>> v = referee(rec)
>>> v["mode"], v["lying_down"], v["leader"]
('pa', [0], 1)
"""

from __future__ import annotations

from typing import Any

from engine.hongsi.combos import RANK_NAMES

#: Seat 0 holds every heart (so ♥4), seat 1 every spade, seat 2 every diamond, seat 3 every club.
SUITED: list[list[str]] = [[s + r for r in RANK_NAMES] for s in "HSDC"]


def hands_with(fixed: dict[int, list[str]], base: list[list[str]] | None = None) -> list[list[str]]:
    """Hands where seat ``i`` holds ``fixed[i]``; the other cards fill the seats up to 13 in the order
    of ``base`` (default :data:`SUITED`), so every card is dealt exactly once."""
    taken = {c for cards in fixed.values() for c in cards}
    rest = [c for hand in (base or SUITED) for c in hand if c not in taken]
    hands = []
    for seat in range(4):
        hand = list(fixed.get(seat, []))
        while len(hand) < 13:
            hand.append(rest.pop(0))
        hands.append(hand)
    return hands


def play(seat: int, *cards: str) -> dict[str, Any]:
    return {"seat": seat, "action": "play", "cards": list(cards)}


def pass_(seat: int) -> dict[str, Any]:
    return {"seat": seat, "action": "pass"}


def call(seat: int, card: str) -> dict[str, Any]:
    return {"seat": seat, "action": "call", "card": card}


def tiao(seat: int) -> dict[str, Any]:
    return {"seat": seat, "action": "tiao"}


def baomen(seat: int) -> dict[str, Any]:
    return {"seat": seat, "action": "baomen"}


def pa(seat: int, target: int) -> dict[str, Any]:
    return {"seat": seat, "action": "pa", "target": target}


def accept(seat: int) -> dict[str, Any]:
    return {"seat": seat, "action": "pa_accept"}


def refuse(seat: int) -> dict[str, Any]:
    return {"seat": seat, "action": "pa_refuse"}


def announce(seat: int, count: int) -> dict[str, Any]:
    return {"seat": seat, "action": "announce", "count": count}


def record(hands: list[list[str]], events: list[dict[str, Any]], **rules: Any) -> dict[str, Any]:
    return {"game": "hongsi", "preset": "shaanxi-v1.3", "rules": rules, "hands": hands, "bottom": [],
            "events": events}


#: The digest's examples (rules text 5.2, 5.3, 5.7, 5.8), ♥4 at seat 0 who calls ♠10 (seat 1 holds it).
DIGEST_EXAMPLES: dict[str, dict[str, Any]] = {
    "pa_case_1_partner_asks_h4": record(SUITED, [call(0, "S10"), pa(1, 0), accept(0), play(1, "S4")]),
    "pa_case_2_the_other_side": record(SUITED, [call(0, "S10"), pa(2, 3), accept(3), play(0, "H4")]),
    "pa_case_3_h4_asks_partner": record(SUITED, [call(0, "S10"), pa(0, 1), accept(1), play(0, "H4")]),
    "dui_pa": record(SUITED, [call(0, "S10"), pa(1, 0), pa(2, 3), accept(0), accept(3), play(1, "S4")]),
    "anjiao_exposed": record(SUITED, [call(0, "H10"), pa(2, 3), accept(3), play(0, "H4")]),
    "baomen_success": record(
        hands_with({0: [f"H{r}" for r in RANK_NAMES[:10]] + ["H3", "S3", "D3"]}),
        [baomen(0), play(0, *[f"H{r}" for r in RANK_NAMES[:10]]), announce(0, 3), pass_(1), pass_(2),
         pass_(3), play(0, "H3", "S3", "D3")]),
    "baomen_failure": record(SUITED, [baomen(0), play(0, "H4"), play(1, "S5")]),
}
