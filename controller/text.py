"""Words for people, in English and Chinese, rendered from data at the edge (shengji's way): seats
numbered from 1 (Seat 2 / 二号位), cards as ♠A / 黑桃A. Engines and the deal give codes and parameters
(seats from 0, card codes); nothing here parses a message.

>>> seat_en(1), seat_zh(1) + "位", card_sign("SA"), card_zh("SA"), and_list(["a", "b", "c"])
('Seat 2', '二号位', '♠A', '黑桃A', 'a, b and c')
>>> from engine.game import violation
>>> people_words(violation("lead_pass", "seat 1 leads and may not pass", "座位1首出，不能不出", seat=1))
('Seat 2 leads and may not pass.', '二号位首出，不能不出')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cards import SUIT_NAMES_ZH, parse_card
from engine.game import News, Violation

ZH_DIGITS = {1: "一", 2: "二", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九", 10: "十"}
ZH_RANKS = {"2": "二", "3": "三", "4": "四", "5": "五", "6": "六", "7": "七", "8": "八", "9": "九",
            "10": "十", "J": "J", "Q": "Q", "K": "K", "A": "A"}
EN_RANKS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
EN_SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SIGNS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


# ---------------------------------------------------------------------------- seats and cards
def seat_en(seat: int) -> str:
    return f"Seat {seat + 1}"


def seat_zh(seat: int) -> str:
    """``二号`` for seat 1 (add 位 for 二号位; ``二号先出`` reads without it)."""
    return ZH_DIGITS.get(seat + 1, str(seat + 1)) + "号"


def card_zh(card: str) -> str:
    """Spoken Chinese name: ``H4`` → 红桃四."""
    c = parse_card(card)
    if c.suit is None:
        return c.zh
    return SUIT_NAMES_ZH[c.suit] + ZH_RANKS[c.rank]


def card_en(card: str) -> str:
    """Spoken English name: ``H4`` → the 4 of hearts."""
    c = parse_card(card)
    if c.suit is None:
        return "the big joker" if c.rank == "RJ" else "the small joker"
    return f"the {EN_RANKS.get(c.rank, c.rank)} of {EN_SUITS[c.suit]}"


def card_sign(card: str) -> str:
    """Written: ``SA`` → ♠A (jokers by their Chinese names)."""
    c = parse_card(card)
    return c.zh if c.suit is None else SUIT_SIGNS[c.suit] + c.rank


def cards_sign(cards: Any) -> str:
    return " ".join(card_sign(str(c)) for c in cards or [])


def and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def count_zh(n: int) -> str:
    return "两" if n == 2 else ZH_DIGITS.get(n, str(n))


# ---------------------------------------------------------------------------- violations
Words = Callable[[dict[str, Any]], tuple[str, str]]


def _s(p: dict[str, Any], key: str = "seat") -> str:
    return seat_en(p[key])


def _z(p: dict[str, Any], key: str = "seat") -> str:
    return seat_zh(p[key]) + "位"


# code -> the words for people, from the violation's params. A code not here is shown in the engine's
# own words, which then name no seat and no card code.
VIOLATION_WORDS: dict[str, Words] = {
    "not_your_turn": lambda p: (f"Not {_s(p)}'s turn: {_s(p, 'due')} is to act.",
                                f"还没轮到{_z(p)}，应{_z(p, 'due')}"),
    "sits_out": lambda p: (f"{_s(p)} does not play this hand.", f"{_z(p)}本局不出牌"),
    "not_in_hand": lambda p: (f"{_s(p)} does not hold {cards_sign(p['cards'])}.",
                              f"{_z(p)}手中没有 {cards_sign(p['cards'])}"),
    "holds_fewer": lambda p: (f"{_s(p)} holds only {p['held']} {card_sign(p['card'])}.",
                              f"{_z(p)}只有 {p['held']} 张 {card_sign(p['card'])}"),
    "already_exposed": lambda p: (f"{_s(p)}'s {card_sign(p['card'])} is already exposed.",
                                  f"{_z(p)}的 {card_sign(p['card'])} 已经亮过"),
    "not_dealt": lambda p: (f"{_s(p)} had not been dealt {cards_sign(p['cards'])} after {p['dealt']} cards.",
                            f"发出 {p['dealt']} 张牌时{_z(p)}还没有抓到这些牌"),
    "dealer_only": lambda p: (f"Only the dealer, {_s(p)}, does that.", f"只有庄家（{_z(p)}）可以这样做"),
    "digger_only": lambda p: (f"Only the digger, {_s(p)}, takes the bottom.", f"只有挖坑者（{_z(p)}）抓底"),
    "h4_only": lambda p: (f"Only the ♥4 holder, {_s(p)}, calls.", f"只有红桃四（{_z(p)}）叫牌"),
    "lead_pass": lambda p: (f"{_s(p)} leads and may not pass.", f"{_z(p)}首出，不能不出"),
    "tiao_again": lambda p: (f"{_s(p)} has already declared 挑.", f"{_z(p)}已经挑过"),
    "count_missed": lambda p: (f"{_s(p)} did not announce {p['count']} card(s) left.",
                               f"{_z(p)}未报剩余牌数（{p['count']}张）"),
    "count_wrong": lambda p: (f"{_s(p)} announced {p['count']!r} but holds {p['left']}.",
                              f"{_z(p)}报{p['count']!r}张，实有{p['left']}张"),
    "count_not_due": lambda p: (f"{_s(p)} announced a count that was not due ({p['left']} card(s) left).",
                                f"{_z(p)}无需报牌数（剩{p['left']}张）"),
    "pa_lying": lambda p: (f"{_s(p)} lies down and cannot ask.", f"{_z(p)}已趴下，不能喊趴"),
    "pa_not_teammate": lambda p: (f"{_s(p, 'target')} is not {_s(p)}'s teammate.",
                                  f"{_z(p, 'target')}不是{_z(p)}的队友"),
    "pa_target_lying": lambda p: (f"{_s(p, 'target')} already lies down.", f"{_z(p, 'target')}已经趴下"),
    "pa_asked": lambda p: (f"{_s(p)} has already asked.", f"{_z(p)}已经喊过趴"),
    "pa_nobody_asked": lambda p: (f"Nobody asked {_s(p)} to lie down.", f"没有人喊{_z(p)}趴"),
    "call_card": lambda p: (f"Cannot call {card_sign(p['card'])}: a card of rank 4..10, not ♥4.",
                            f"不能叫{card_sign(p['card'])}：须叫4到10的牌（红桃四除外）"),
    "follow_suit": lambda p: (f"Follow suit: {_s(p)} holds {EN_SUITS[p['suit']]}.",
                              f"有{SUIT_NAMES_ZH[p['suit']]}必须跟出"),
    "follow_pair": lambda p: (f"A pair was led and {_s(p)} holds a pair of {EN_SUITS[p['suit']]}: give a pair.",
                              f"首家出对，有{SUIT_NAMES_ZH[p['suit']]}对牌必须给对牌"),
    "forced_bid": lambda p: (f"{_s(p)} holds the cards that must dig: bid 3.", f"{_z(p)}持必挖之牌，须叫3分"),
    "xuan_answer_due": lambda p: (f"{_s(p)} must first answer the 宣红A.", f"须先由{_z(p)}回应宣红A"),
    "xuan_no_red_ace": lambda p: (f"{_s(p)} holds no red ace.", f"{_z(p)}没有红A"),
    "xuan_answer_only": lambda p: (f"Only {_s(p)}, the other red ace, answers the 宣红A.",
                                   f"只有持另一张红A的{_z(p)}可回应宣红A"),
    "fan_xuan_red": lambda p: (f"{_s(p)} is on the red-ace side.", f"{_z(p)}是红A一方"),
    "fan_xuan_again": lambda p: (f"{_s(p)} already declared 反宣.", f"{_z(p)}已反宣"),
}


def people_words(v: Violation) -> tuple[str, str]:
    """A violation in people's words (English, Chinese): from its code and params when the table has
    them, else the engine's own words (which then name no seat and no card code)."""
    words = VIOLATION_WORDS.get(v.code)
    if words is not None:
        try:
            return words(v.params)
        except (KeyError, TypeError, ValueError):  # params missing or odd: the engine's words still say it
            pass
    return v.message, v.message_zh


def refusal_words(v: Violation, action: dict[str, Any] | None = None, turn: int | None = None) -> tuple[str, str]:
    """A refusal as the seat that acted reads it: a play or pass out of turn is "not your turn" whatever
    rule the engine checked first (红桃四 says the ♥4 holder must call), and a play that is no
    combination names its cards as ♠4 ♠3, not S4 S3."""
    action = action or {}
    seat = action.get("seat")
    if (v.severity == "error" and v.rule in ("phase", "turn") and action.get("action") in ("play", "pass")
            and isinstance(seat, int) and isinstance(turn, int) and seat != turn):
        return VIOLATION_WORDS["not_your_turn"]({"seat": seat, "due": turn})
    cards = action.get("cards")
    if v.rule == "combo" and isinstance(cards, list) and cards and all(isinstance(c, str) for c in cards):
        try:
            shown = cards_sign(cards)
        except ValueError:  # not cards at all: the engine's words say so
            return people_words(v)
        return f"{shown} is not a combination.", f"{shown} 不是合法牌型"
    return people_words(v)


def violation_for_people(v: Violation, action: dict[str, Any] | None = None,
                         turn: int | None = None) -> dict[str, Any]:
    """A violation's JSON with both messages in people's words (the record keeps the engine's)."""
    en, zh = refusal_words(v, action, turn)
    return {**v.to_json(), "message": en, "message_zh": zh}


# ---------------------------------------------------------------------------- the table's news
def first_player_words(card: str | None, seat: int, rule: str | None = None) -> tuple[str, str]:
    """What the table hears of the first player (Chinese, English)."""
    if rule == "dealer":
        return f"{seat_zh(seat)}坐庄，{seat_zh(seat)}先出", f"{seat_en(seat)} is the dealer and plays first."
    if card is not None:
        return (f"{card_zh(card)}在{seat_zh(seat)}位，{seat_zh(seat)}先出",
                f"{seat_en(seat)} holds {card_en(card)} and plays first.")
    return f"{seat_zh(seat)}先出", f"{seat_en(seat)} plays first."


def news_words(news: News) -> tuple[str, str] | None:
    """A :class:`engine.game.News` in words (Chinese, English); None for a code without words."""
    p = news.params
    if news.code == "trump":
        return f"{SUIT_NAMES_ZH[p['suit']]}为主", f"{EN_SUITS[p['suit']].capitalize()} are trump."
    if news.code == "no_trump":
        return "无主", "No trump."
    if news.code == "digger":
        return f"{seat_zh(p['seat'])}位挖坑，{p['bid']}分", f"{seat_en(p['seat'])} digs, for {p['bid']}."
    if news.code == "xuan":
        by = p.get("seat")
        who_zh, who_en = (seat_zh(by) + "位", seat_en(by)) if isinstance(by, int) else ("", "The")
        return (f"{who_zh}{'独宣' if p['alone'] else '宣红A'}，翻倍",
                f"{who_en} {'declares both red aces alone' if p['alone'] else 'red aces declaration stands'}: doubled.")
    if news.code == "lead":
        return _lead_words(p)
    return None


def _lead_words(p: dict[str, Any]) -> tuple[str, str]:
    """Who lies down, and who leads the first trick when a 对挑 or a 趴 moved the lead."""
    zh: list[str] = ["对挑"] if p.get("duitiao") else []
    en: list[str] = ["挑 against 挑"] if p.get("duitiao") else []
    for s in p.get("lying_down") or []:
        zh.append(f"{seat_zh(s)}位趴下")
        en.append(f"{seat_en(s)} lies down")
    if isinstance(p.get("lead"), int):
        zh.append(f"{seat_zh(p['lead'])}位先出")
        en.append(f"{seat_en(p['lead'])} leads")
    return "，".join(zh), (": " if p.get("duitiao") else "; ").join(en) + "."


def void_words(round_id: int) -> tuple[str, str]:
    """A hand voided by the operator (English, Chinese), as the table hears it."""
    return f"Hand {round_id} is void: the operator voided it.", f"第{round_id}局作废（操作员作废）"


# What the table camera tells the table (issue 29): a play it did not apply, or a picture it cannot use.
# Never a card: the seat itself sees the reading on its own page.
TABLE_CAMERA_TEXT = {
    "unread": ("{zh}的出牌没看清：请{zh}在手机上确认或点选所出的牌。",
               "The camera could not read {en}'s play: {en}, confirm it or tap the cards you played."),
    "illegal": ("{zh}的出牌不合规则：请{zh}在手机上确认或点选所出的牌。",
                "{en}'s play as the camera read it is not legal: {en}, confirm or tap the cards you played."),
    "no_hand": ("桌上有不属于任何人手牌的牌：未记录，请{zh}点选所出的牌。",
                "The table shows cards from no seat's hand: nothing applied; {en}, tap the cards you played."),
    "two_plays": ("桌上同时出现两家的牌：未记录，请逐家出牌。",
                  "Two plays landed at once: nothing applied; {en}, tap the cards you played, then the next seat."),
    "stopped": ("桌面相机没有画面：请检查相机，出牌可在手机上点选。",
                "The table camera shows nothing: check it; meanwhile tap plays on the phones."),
    "no_turn": ("桌上有新牌，但现在没有人该出牌：未记录。",
                "New cards on the table, but it is no seat's turn: nothing applied."),
    "covered": ("出牌区边上有手或牌：请把手移开、牌放进出牌区，或由{zh}点选所出的牌。",
                "A hand or a card lies across the play area's edge: take the hand away and put the card inside, "
                "or {en}, tap the cards you played."),
}


def table_camera_words(code: str, seat: int | None) -> tuple[str, str]:
    """(Chinese, English) of a table camera message about ``seat`` (None: about the table)."""
    zh, en = TABLE_CAMERA_TEXT.get(code, TABLE_CAMERA_TEXT["unread"])
    return (zh.format(zh=seat_zh(seat) + "位" if seat is not None else "出牌者"),
            en.format(en=seat_en(seat) if seat is not None else "the seat to play"))


def seat_link_words(seat: int) -> tuple[str, str]:
    """Said when the operator makes a new link for a seat while its hand is live (the link can read it)."""
    return f"操作员为{seat_zh(seat)}位新开了链接", f"The operator made a new link for {seat_en(seat)}."


def count_words(seat: int, count: int) -> tuple[str, str]:
    """A seat's few cards left, announced (Chinese, English)."""
    return (f"{seat_zh(seat)}位剩{count_zh(count)}张",
            f"{seat_en(seat)} has {count} card{'s' if count > 1 else ''} left")


# ---------------------------------------------------------------------------- the display's game panel
# The display's panel is built from the fields of a game's public view, by field, never by game: a view
# with a ``level`` shows the level, one with a ``digger`` the digger, and so on. Each row is data
# (labels, a kind, a value) the page renders; the kinds are text, seat, seats and cards.
SUIT_LABELS = {"S": "♠ 黑桃", "H": "♥ 红桃", "D": "♦ 方块", "C": "♣ 梅花"}
XUAN_WORDS = {"pending": ("待答复", "awaiting the answer"), "xuan": ("宣成", "declared"),
              "du_xuan": ("独宣", "declared alone"), "refused": ("放弃", "refused")}
# 拱猪's scoring cards: what a seat has taken that counts (the hearts, the pig, the goat, the doubler)
SCORING_CARDS = frozenset({"SQ", "DJ", "C10"})


def _row(zh: str, en: str, kind: str, value: Any) -> dict[str, Any]:
    return {"zh": zh, "en": en, "kind": kind, "value": value}


def _seat_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _trump(view: dict[str, Any]) -> dict[str, Any]:
    if view.get("no_trump"):
        return _row("主", "trump", "text", "无主 no trump")
    suit = view.get("trump_suit") or view.get("trump")
    return _row("主", "trump", "text", SUIT_LABELS.get(str(suit), "未定 not yet") if suit else "未定 not yet")


def _points(view: dict[str, Any], result: dict[str, Any] | None) -> dict[str, Any]:
    """In play the points taken in tricks; once over the verdict's, with 抠底 (the bottom's points
    multiplied when the attackers win the last trick)."""
    r = result or {}
    if r.get("attacker_points") is not None:
        extra = f" (含抠底 incl. the bottom {r.get('bottom_points')} ×{r['bottom_multiplier']})" \
            if r.get("bottom_multiplier") else ""
        return _row("抓分", "attackers' points", "text", f"{r['attacker_points']}{extra}")
    return _row("抓分", "attackers' points", "text", str(view.get("attacker_points", 0)))


def _xuan(view: dict[str, Any]) -> dict[str, Any]:
    state = view.get("xuan")
    if not state:
        return _row("宣红A", "red aces", "text", "—")
    zh, en = XUAN_WORDS.get(str(state), (str(state), str(state)))
    by = _seat_or_none(view.get("xuan_by"))
    return _row("宣红A", "red aces", "text", f"{zh} {en}" + (f" · {seat_zh(by)}位 {seat_en(by)}" if by is not None else ""))


def panel_rows(view: dict[str, Any] | None, result: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The display's game panel for a public view (empty: the game has no panel)."""
    v = view or {}
    rows: list[dict[str, Any]] = []
    if "level" in v:
        rows.append(_row("级", "level", "text", str(v["level"])))
        rows.append(_trump(v))
        rows.append(_row("庄家", "dealer", "seat", _seat_or_none(v.get("dealer"))))
        rows.append(_points(v, result))
    if "digger" in v:
        rows.append(_row("挖坑者", "digger", "seat", _seat_or_none(v.get("digger"))))
        rows.append(_row("叫分", "bid", "text", str(v["bid"]) if v.get("bid") else "—"))
    if "xuan" in v:
        rows.append(_xuan(v))
        rows.append(_row("反宣", "counter", "seats", list(v.get("fan_xuan_by") or [])))
    if ("digger" in v or "xuan" in v) and "multiplier" in v:
        rows.append(_row("倍数", "multiplier", "text", f"×{v['multiplier']}"))
    if "digger" in v and "bottom" in v:
        rows.append(_row("底牌", "bottom", "cards", list(v.get("bottom") or [])))
    if "exposed" in v and "taken" in v:  # 拱猪's 亮牌 (红桃四's ``exposed`` is a flag, not cards)
        rows.append(_row("亮牌", "exposed", "exposed", [e for e in v.get("exposed") or [] if isinstance(e, dict)]))
    for s, cards in enumerate(v.get("taken") or []):
        scoring = [c for c in cards or [] if str(c).startswith("H") or c in SCORING_CARDS]
        rows.append(_row(f"{seat_zh(s)}位 收", f"Seat {s + 1} took", "cards", scoring))
    return rows


# ---------------------------------------------------------------------------- the seat page's help
# What each game's words mean, for the seat page's help panel (term, Chinese, English), by the game's
# registry name; the rank order comes from the engine's data (``engine.cards.RANK_ORDERS``).
GAME_TERMS: dict[str, list[tuple[str, str, str]]] = {
    "hongsi": [
        ("♥4 先出", "红桃四先出，并叫一张4到10的牌：持该牌者是搭档（二打二）", "the ♥4 holder leads and calls a card 4–10: "
         "whoever holds it is their partner (2 vs 2)"),
        ("暗叫", "叫自己手里的牌：一打三，×2", "calling a card of one's own: alone against three, ×2"),
        ("挑", "叫牌前宣布一个人打三家", "declared before the call: play alone against the other three"),
        ("对挑", "两家都挑：两人对决，另两家观战", "two seats declare 挑: they duel, the other two sit out"),
        ("爆闷", "红桃四在叫牌前宣布一打三，必须第一个出完，分最高", "the ♥4 holder, before the call, plays alone "
         "and must go out first; the highest stake"),
        ("趴", "请队友趴下：队友不出牌，由你为两人打", "ask your partner to lie down: they sit out and you play for both"),
        ("报牌", "剩下三张或更少时要报出张数（本桌自动报）", "say how many cards you have left at three or "
         "fewer (the table says it for you)"),
    ],
    "wakeng": [
        ("挖坑", "叫分最高者挖坑：拿底牌，一人对两家", "the highest bidder digs: takes the bottom and plays alone "
         "against the other two"),
        ("叫分", "叫1到3分；3分最高", "bid 1 to 3; 3 is the highest"),
        ("黑挖", "不看牌就挖坑，分数翻倍", "digging blind, before looking at one's cards: doubled"),
        ("底牌", "挖坑者拿的牌，全桌可见", "the bottom the digger takes; shown to the whole table"),
    ],
    "zhuohonga": [
        ("红A", "♥A和♦A两家是一伙", "the two seats holding ♥A and ♦A are one side"),
        ("宣红A", "持红A者宣布，另一张红A同意则成，翻倍", "a red-ace holder declares; if the other agrees, doubled"),
        ("独宣", "两张红A都在手：翻倍，须第一个出完", "both red aces in one hand: doubled, and you must go out first"),
        ("反宣", "宣红A成后，另一方全部反宣，再翻倍", "after a 宣红A, the other side all counter-declare: doubled again"),
    ],
    "gongzhu": [
        ("猪", "♠Q：−100", "♠Q, the pig: −100"),
        ("羊", "♦J：+100", "♦J, the goat: +100"),
        ("变压器", "♣10：收到的分翻倍", "♣10, the transformer: doubles what its taker scores"),
        ("红桃", "每张红桃是负分", "every heart taken scores against you"),
        ("亮牌", "开局前亮出猪、羊、变压器或♥A，分数翻倍", "showing the pig, goat, transformer or ♥A before play: "
         "doubled"),
        ("跟牌", "有首家花色必须跟出", "follow suit when you can"),
    ],
    "shengji": [
        ("级", "本局打的级：该点数的牌是主", "the level played: cards of that rank are trump"),
        ("主", "亮主定主花色；大小王和级牌总是主", "trump, set by a declaration; jokers and level cards are always "
         "trump"),
        ("庄家", "庄家拿底牌并埋回8张", "the dealer takes the bottom and buries 8 cards"),
        ("抓分", "闲家抓到的5、10、K的分；80分以上闲家赢", "points in 5s, 10s and Ks the attackers take; 80 or more "
         "and they win"),
        ("抠底", "闲家赢最后一墩：底牌分翻倍", "attackers win the last trick: the bottom's points are multiplied"),
        ("拖拉机", "相连的对子", "consecutive pairs (a tractor)"),
    ],
}


def game_help(name: str) -> dict[str, Any]:
    """The seat page's help for game ``name``: its rank order, low to high, and its words."""
    from engine.cards import RANK_ORDERS

    order = RANK_ORDERS.get(name)
    ranks = [str(r) for r in getattr(order, "ranks", order or ())]
    return {"ranks": [{"BJ": "小王", "RJ": "大王"}.get(r, r) for r in ranks],
            "terms": [{"term": t, "zh": zh, "en": en} for t, zh, en in GAME_TERMS.get(name, [])]}


# ---------------------------------------------------------------------------------- the bots
# The empty seats' bot styles, as the operator page offers them (one line each).
BOT_STYLES: dict[str, tuple[str, str]] = {
    "careful": ("Careful: works out the hands it cannot see; declares only when that clearly pays.",
                "稳健：推算看不到的牌，只在明显有利时才叫牌。"),
    "bold": ("Bold: the same search; declares on good hopes.", "大胆：同样推算，有希望就叫牌。"),
    "greedy": ("Quick: plays its smallest play at once and never declares.", "快速：立即出最小的牌，从不叫牌。"),
}
_ACTION_WORDS: dict[str, tuple[str, str]] = {
    "play": ("Play", "出"), "pass": ("Pass", "不要"), "call": ("Call", "叫"), "tiao": ("Declare 挑", "挑"),
    "baomen": ("Declare 爆闷", "爆闷"), "pa": ("Ask for 趴:", "喊趴："), "pa_accept": ("Accept the 趴", "同意趴"),
    "pa_refuse": ("Refuse the 趴", "不趴"), "announce": ("Announce your count", "报牌数"),
    "take_bottom": ("Take the bottom", "拿底牌"), "bury": ("Bury", "扣底"), "expose": ("Show", "亮"),
    "declare": ("Declare", "亮主"), "bid": ("Bid", "叫分"), "xuan": ("Declare 宣", "宣"),
}


def hint_words(action: dict[str, Any], how: str, value: float | None, samples: int) -> tuple[str, str]:
    """A beginner's hint in one short line: what the bot would do in this seat, and why."""
    en, zh = _ACTION_WORDS.get(str(action.get("action")), (str(action.get("action")), str(action.get("action"))))
    cards = action.get("cards") or ([action["card"]] if action.get("card") else [])
    if cards:
        en, zh = f"{en} {cards_sign(cards)}", f"{zh} {cards_sign(cards)}"
    if isinstance(action.get("target"), int):
        en, zh = f"{en} {seat_en(action['target'])}", f"{zh}{seat_zh(action['target'])}"
    if isinstance(action.get("value"), int) and not isinstance(action.get("value"), bool):
        en, zh = f"{en} {action['value']}", f"{zh} {action['value']}"
    if how == "only":
        return f"{en}: the only move you have.", f"{zh}：只能这样走。"
    if how != "search" or value is None or not samples:
        return f"{en}: the quick bot's move.", f"{zh}：快速机器人的走法。"
    return (f"{en}: it scored {value:+.1f} on average in {samples} deals you cannot tell from this one.",
            f"{zh}：在 {samples} 种与眼前无法区分的牌局中平均得 {value:+.1f} 分。")
