"""The deal's problems and pauses as data: a :class:`Problem` is a code and its parameters (seats from
0, cards as the reader's labels, counts); :data:`TEXT`, the one table, renders it in English and
Chinese (seats from 1; cards as people name them: ♠5, 黑桃五). A problem that names dealt cards has public words too:
what the table, the voice and every event hear while the hand is still secret.

>>> Problem("seat_count", {"seat": 2, "count": 14, "want": 13}).en
'seat 3 has 14 cards, not 13'
>>> Problem("seat_count", {"seat": 2, "count": 14, "want": 13}).zh
'3号位有14张牌，应为13张'
>>> Problem("twice", {"card": "S5"}).en
'♠5 is in the deck twice (take one out)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.plan import BOTTOM, deck_text
from controller.text import and_list, card_sign, card_zh
from engine.cards import parse_card

# code: (English, Chinese[, public English, public Chinese])
TEXT: dict[str, tuple[str, ...]] = {
    # a stopped deal (the deck does not add up)
    "missing": ("{card} is missing from the deck (find it and put it back)", "缺少{card}（找到后放回）"),
    "twice": ("{card} is in the deck twice (take one out)", "{card}有两张（取出一张）"),
    "foreign": ("{card} does not belong in this deck (take it out)", "{card}不属于这副牌（取出）"),
    "seat_count": ("{seat} has {count} cards, not {want}", "{seat}有{count}张牌，应为{want}张"),
    "bottom_count": ("the bottom has {count} cards, not {want}", "底牌有{count}张，应为{want}张"),
    "misplaced": ("a double feed put {card} at {at} but it belongs to {belongs}", "双张：{card}被发到{at}，应属{belongs}"),
    "hopper_extra": ("{count} card(s) too many in the hopper", "牌仓多出{count}张牌"),
    "unseen_extra": ("a card too many went to {seat} with card {with_card} (a double feed took it along unseen: "
                     "take it out of {seat}'s cards)",
                     "多了一张牌：双张时随第{with_card}张牌被带到{seat}，未被看到（请从{seat}的牌中取出）"),
    "deck_short": ("the deck has {count} cards, not {want}", "整副牌有{count}张，应为{want}张"),
    "wrong_deck": ("the hopper held {count} cards, but this deal needs {want}, {deck}: load that deck",
                   "牌仓里有{count}张牌，本局需要{want}张，即{deck}：请放入这副牌"),
    "stopped": ("The deal is stopped, not a good deal: {problems}. Collect every card, check the deck (fix what is "
                "named), and deal again.",
                "发牌已停止，本局无效：{problems}。请收回所有牌，检查整副牌（按上述补齐或取出），然后重新发牌。"),
    "voided": ("Hand {round} voided: collect every card and deal again.", "第{round}局作废：请收回所有牌，重新洗牌发牌。"),
    # pauses: a person fixes the rig, then resumes (or voids)
    "jam": ("A card is jammed in the dealer. Clear it (leave it in the hopper), then resume.",
            "发牌器卡牌。请清除卡住的牌（放回牌仓），然后继续。"),
    "estop": ("Emergency stop. Make the table safe, then resume.", "急停。确认安全后继续。"),
    "rig_fault": ("The rig reported a fault while {during}: {error}. Fix it, then resume.", "发牌机故障：{error}。排除后继续。"),
    "rig_unexpected": ("Unexpected rig error while {during}: {error}. Check the rig, then resume.",
                       "发牌机异常：{error}。检查后继续。"),
    "camera_dark": ("The camera shows nothing: check its cable and light, then resume.",
                    "摄像头无画面：请检查连线和灯光，然后继续。"),
    "no_answer": ("The rig does not answer. Check its USB cable and power, then resume.",
                  "发牌机无响应：请检查 USB 线和电源，然后继续。"),
    "mismatch": ("The card at the window ({now}) is not the journal's card {n} ({known}). Were cards moved? "
                 "Put them back as they were, then resume.",
                 "读到的牌（{now}）与记录的第{n}张（{known}）不符。是否动过牌？请复原后继续。",
                 "The cards in the dealer were moved. The operator puts them back, then resumes.",
                 "发牌机里的牌被动过。操作员复原后继续。"),
    "unseen_check": ("Double feeds: {unseen}, so the camera cannot tell which of {cards} went where. Look through "
                     "the cards of {places}: {hold} (swap cards between them until it is so), then resume. Void the "
                     "hand if they are not all there.",
                     "双张：第{numbers}张牌没有被看清，无法确定{cards}各在哪家。请查看{places}的牌，使{hold}（不对就互换），"
                     "然后继续；如果牌不全，请作废本局。",
                     "Double feeds: cards went by unseen. The operator checks some hands, then resumes.",
                     "双张：有牌没有被看到，操作员核对几家的牌后继续。"),
    "hand_over": ("Double feed: {card} (card {n}) went to {at} with the card before it, but it belongs to {belongs}. "
                  "Take {card} out of {at}'s cards and give it to {belongs}, then resume.",
                  "双张：{card}（第{n}张）随前一张牌被发到{at}，应属{belongs}。请从{at}的牌中取出{card}交给{belongs}，然后继续。",
                  "Double feed: a card went to the wrong seat. The operator hands it to its seat, then resumes.",
                  "双张：有一张牌发错了位置，操作员把它交给应得的一家后继续。"),
    "find_unseen": ("The hopper ran out {count} card(s) early: {cards} never reached the camera. Two cards stacked "
                    "flush leave as one, so such a card lies at a place with a card too many (each should hold "
                    "{counts}). Take it out and give it to {belongs} (one card each), then resume. If no place has "
                    "a card too many, the deck lacks it: void the hand.",
                    "牌仓提前{count}张空了：{cards}没有经过摄像头。两张叠齐的牌会一起发出，这样的牌在多了一张牌的地方"
                    "（应有：{counts}）。请取出交给{belongs}（每处一张），然后继续；如果没有哪处多牌，说明缺牌：请作废本局。",
                    "Cards went by stacked, unseen. The operator counts the places and moves them, then resumes.",
                    "有牌叠在一起发出、未被看到。操作员清点各处的牌并移交后继续。"),
    # faults handled without a person
    "mcu_rebooted": ("The controller board restarted while {during}; reconnecting, re-homing and resuming from the "
                     "journal.", "控制板重启，正在重连、归位并按记录继续。"),
    "link_lost": ("The link to the controller board was lost while {during}; reconnecting, re-homing and resuming "
                  "from the journal.", "与控制板的连接中断，正在重连、归位并按记录继续。"),
    # flags: what the operator is asked to check after a good deal (the record keeps the English)
    "double_carried": ("double feed: cards {n} and {with_card} both went to {seat}",
                       "双张：第{n}张和第{with_card}张牌都发到了{seat}"),
    "double_carried_belongs": ("double feed: cards {n} and {with_card} both went to {seat} (card {with_card} belongs "
                               "to {belongs})", "双张：第{n}张和第{with_card}张牌都发到了{seat}（第{with_card}张应属{belongs}）"),
    "double_extra": ("double feed: card {n} took a card too many along to {seat}", "双张：第{n}张牌多带了一张牌到{seat}"),
    # flags name no card: they go out with the public deal_done event (the placed/handed_over rows keep them)
    "unseen_placed": ("double feed: {unseen}; the operator made sure that {places} hold the cards the record says",
                      "双张：操作员已核对{places}的牌与记录相符"),
    "handed_over": ("double feed: card {n} went to {at}; the operator handed it over to {belongs}",
                    "双张：第{n}张牌被发到{at}，操作员已把它交给{belongs}"),
    "found_unseen": ("double feed: card {n} went by stacked on another, unseen; the operator found it at a place "
                     "with a card too many and gave it to {belongs}",
                     "双张：第{n}张牌叠在另一张上发出、未被看到，操作员在多牌的一处找到并交给{belongs}"),
    "hand_over_asked": ("double feed: card {n} went to {at}; the table was asked to hand it over to {belongs} "
                        "(unattended: nobody confirmed it)",
                        "双张：第{n}张牌被发到{at}，已请牌桌把它交给{belongs}（无人值守，未经确认）"),
}

PLACES = ("seat", "at", "belongs", "places")          # seats from 0, BOTTOM for the bottom
CARDS = ("card", "cards", "now", "known")             # reader labels (H4, SA, RJ), rendered ♥4 / 红桃四


@dataclass(frozen=True)
class Problem:
    """One problem or pause of the deal: ``code`` (a key of :data:`TEXT`) and its parameters."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def en(self) -> str:
        return TEXT[self.code][0].format(**_words(self.params, "en"))

    @property
    def zh(self) -> str:
        return TEXT[self.code][1].format(**_words(self.params, "zh"))

    @property
    def names_cards(self) -> bool:
        return len(TEXT[self.code]) > 2

    @property
    def public(self) -> tuple[str, str]:
        """What everyone may hear while the hand is live (no dealt card named)."""
        if self.names_cards:
            return TEXT[self.code][2], TEXT[self.code][3]
        return self.en, self.zh


def where(seat: int, lang: str = "en") -> str:
    if lang == "zh":
        return "底牌" if seat == BOTTOM else f"{seat + 1}号位"
    return "the bottom" if seat == BOTTOM else f"seat {seat + 1}"


JOKERS_EN = {"RJ": "the big joker", "BJ": "the small joker"}


def card_name(label: str, lang: str) -> str:
    """A reader label as people name the card: ``S5`` → ♠5 (English), 黑桃五 (Chinese)."""
    try:
        if lang != "en":
            return card_zh(label)
        card = parse_card(label)
    except ValueError:              # "?" and labels no game knows stay as they are
        return label
    if card.suit is None:
        return JOKERS_EN.get(str(card), str(card))
    return card_sign(label)


def _join(items: list[str], lang: str) -> str:
    return and_list(items) if lang == "en" else "、".join(items)


def _words(params: dict[str, Any], lang: str) -> dict[str, Any]:
    """Each parameter as the words of ``lang``."""
    out = dict(params)
    for key, value in params.items():
        if key in PLACES:
            out[key] = _join([where(s, lang) for s in value], lang) if isinstance(value, list) else where(value, lang)
        elif key in CARDS:
            out[key] = _join([card_name(c, lang) for c in value], lang) if isinstance(value, list) else \
                card_name(value, lang)
        elif key == "counts":
            out[key] = _join([f"{where(s, lang)} {n}" if lang == "en" else f"{where(s, lang)}{n}张" for s, n in value],
                             lang)
        elif key == "hold":
            out[key] = _holdings(value, lang, "must hold")
        elif key == "deck":
            out[key] = deck_text(*value)[0 if lang == "en" else 1]
        elif key == "problems":
            out[key] = ("; " if lang == "en" else "；").join(p.en if lang == "en" else p.zh for p in value)
        elif key == "unseen":
            out[key] = _unseen_words(value, params.get("seen", []))
        elif key == "numbers":
            out[key] = "、".join(str(n) for n in value)
    return out


def _holdings(hold: list[tuple[int, list[str]]], lang: str, verb: str) -> str:
    if lang == "en":
        return "; ".join(f"{where(s)} {verb} {and_list([card_name(c, 'en') for c in cards])}" for s, cards in hold)
    return "，".join(f"{where(s, 'zh')}有{_join([card_name(c, 'zh') for c in cards], 'zh')}" for s, cards in hold)


def _unseen_words(unseen: list[int], seen: list[int]) -> str:
    """Which cards (numbered from 1) went past the camera unseen, and which could not be read for sure."""
    what = f"card{'s' if len(unseen) > 1 else ''} {and_list([str(n) for n in unseen])} went past the camera unseen"
    if seen:
        what += f", and card{'s' if len(seen) > 1 else ''} {and_list([str(n) for n in seen])} could not be read for sure"
    return what
