"""红桃四 (拐三) as a :class:`engine.game.Game`: presets, settings, the deal plan, states, bot hands.

>>> import random
>>> from engine.hongsi.game import HongsiGame
>>> game = HongsiGame()
>>> record = game.bot_hand(random.Random(7), bot="random")
>>> from engine.referee import referee
>>> referee(record)["violations"]
[]
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from engine.cards import DECKS, Card
from engine.climbing import shuffle
from engine.game import Action, DealPlan, FirstPlay, Game, GameInfo, IllegalAction, News, holder
from engine.hongsi import combos
from engine.hongsi.bots import BOTS, play_out, random_play, talk
from engine.hongsi.settings import DEFAULT_PRESET, PRESETS, HongsiSettings
from engine.hongsi.state import HongsiState

PLAIN_PLAY = frozenset({"play", "pass", "announce"})  # actions that make no news (plays are shown anyway)


class HongsiGame(Game):
    name = "hongsi"
    info = GameInfo("红桃四", "Hongsi", declares_before_play=True, passes=True, count_announce_events=True,
                    call_tracker=True, lead_moves=True, talk=("tiao", "baomen", "pa"),
                    actions=(("tiao", ()), ("baomen", ()), ("call", ("card",)), ("pa", ("target",)), ("pa_accept", ()),
                             ("pa_refuse", ()), ("play", ("cards",)), ("pass", ()), ("announce", ("count",))))
    settings_type = HongsiSettings
    presets = PRESETS
    default_preset = DEFAULT_PRESET

    def deal_plan(self, settings: Any) -> DealPlan:
        return DealPlan(seats=4, cards_per_seat=(13, 13, 13, 13), bottom=0, deck=DECKS["hongsi"])

    def new_state(self, hands: list[list[Card]], bottom: list[Card], settings: Any, *,
                  first_seat: int | None = None, dealer: int | None = None) -> HongsiState:
        return HongsiState(hands, settings or self.settings())

    def first_play(self, hands: Sequence[Sequence[Any]], bottom: Sequence[Any], *, dealer: int = 0) -> FirstPlay:
        """The holder of ♥4 plays first (and calls)."""
        seat = holder(hands, "H4")
        if seat is None:
            raise ValueError("no seat holds H4: the deal is not a whole hongsi deck")
        return FirstPlay(seat, "H4", "holder")

    def may_make_news(self, action: str | None) -> bool:
        return action not in PLAIN_PLAY

    def news(self, before: dict[str, Any], after: dict[str, Any]) -> News | None:
        """Who leads the first trick, when a 对挑 or a 趴 moves it from the ♥4 holder, and who lies down."""
        lead = after.get("first_leader")
        moved = isinstance(lead, int) and lead != before.get("first_leader") and after.get("phase") != "play"
        down = [s for s in after.get("lying_down") or [] if s not in (before.get("lying_down") or [])]
        if not moved and not down:
            return None
        duitiao = len(after.get("tiao") or []) == 2 and len(before.get("tiao") or []) < 2 and moved
        return News("lead", {"duitiao": duitiao, "lying_down": down, "lead": lead if moved else None})

    def announce_at(self, settings: Any) -> int:
        return int(settings.count_announce_at or 0)

    def dealt_bans(self, view: dict[str, Any], seat: int, dealt: Sequence[str]) -> dict[int, set[str]]:
        """对挑 is led by the duellist dealt the first heart in ♥4, ♥5 … ♥3 order: a duellist who leads it
        knows the other was dealt no heart before its own first (with none at all, no heart)."""
        duel = view.get("tiao") or []
        leader = view.get("leader") if view.get("leader") is not None else view.get("first_leader")
        if len(duel) != 2 or view.get("baomen") or leader != seat or seat not in duel:
            return {}
        mine = set(dealt)
        before = []
        for code in combos.HEART_ORDER:
            if combos.CARD_NAMES[code] in mine:
                break
            before.append(combos.CARD_NAMES[code])
        return {next(s for s in duel if s != seat): set(before)}

    def deal(self, rng: random.Random, first_seat: int = 0) -> list[list[str]]:
        """Shuffle and deal 13 cards each, one at a time, starting at ``first_seat``."""
        return self._deal(rng, first_seat)[0]

    def _deal(self, rng: random.Random, first_seat: int) -> tuple[list[list[str]], list[int]]:
        """:meth:`deal`'s hands (each low to high) and their card masks."""
        deck = list(range(52))
        shuffle(deck, rng)  # rng.shuffle's order, faster
        hands: list[list[str]] = [[], [], [], []]
        masks = [0, 0, 0, 0]
        for k in range(4):  # the k-th card dealt, every 4th after it, goes to seat first_seat + k
            pick = itemgetter(*sorted(deck[k::4]))  # (13 look-ups in one call)
            seat = (first_seat + k) % 4
            hands[seat] = list(pick(combos.CARD_NAMES))
            masks[seat] = sum(pick(combos.CODE_BIT))
        return hands, masks

    def bot_hand(self, rng: random.Random, *, bot: str = "greedy", settings: Any = None,
                 first_seat: int = 0) -> dict[str, Any]:
        if bot not in BOTS:
            raise ValueError(f"unknown bot {bot!r}; use greedy or random")
        settings = settings or self.settings()
        hands, masks = self._deal(rng, first_seat)
        state = HongsiState(hands, settings, masks=masks)  # type: ignore[arg-type]
        events: list[Action] = []

        def do(event: Action) -> None:
            for v in state.judge(event):
                if v.severity == "error":
                    raise IllegalAction(v)  # a bot bug: bots make legal moves only
            events.append(event)

        talk(state, rng, do)
        if bot == "random" and type(rng) is random.Random:
            random_play(state, rng, events)  # every event judged by state.judge, as ``do`` does
        else:
            play_out(state, rng, bot, do)
        return self.bot_record(state, settings, hands, [], events, first_seat=first_seat)
