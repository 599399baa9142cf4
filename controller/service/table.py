"""The table service's core, without HTTP: rounds, refereeing, bots, voice, e-stop, the chip ledger.

:class:`TableService` is what the FastAPI app (``controller.service.app``) calls; tests can drive it
directly too. It is thread-safe: the deal runs in its own thread, bots in theirs, requests in the
server's. Everything it publishes to the :class:`~controller.service.hub.EventHub` is public.

>>> svc = TableService(data_dir, deal_source=SoftwareDealSource())        # doctest: +SKIP
>>> rid = svc.start_round(game="hongsi", first_seat=0, bots="all").id     # doctest: +SKIP
"""

from __future__ import annotations

import collections
import copy
import logging
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.announce import result_words, table_news
from controller.fair_deal import commitment
from controller.journal import Journal, private_dir
from controller.service.bots import plan_action, plan_hint, plan_talk
from controller.service.contribute import NextDeal
from controller.service.deal import DealInterrupted, DealSource, SoftwareDealSource
from controller.service.hub import EventHub
from controller.service.rounds import Round, public_violation
from controller.service.session import KIND as SESSION_KIND
from controller.service.session import session_of
from controller.service.tokens import TokenStore
from controller.service.voice import Announcer
from controller.text import count_words, seat_en, seat_link_words, seat_zh, violation_for_people, void_words
from engine.bots.greedy import plain_policy
from engine.bots.search import WAIT, is_declaration
from engine.game import Violation
from engine.registry import DEFAULT_GAME, UnknownGame, get_game

log = logging.getLogger("hongsi.service")

# Deal-progress fields the service passes on from a deal source: never a card's identity.
DEAL_EVENT_FIELDS = ("index", "seat", "total", "reason", "passes", "fair", "commitment")
# Before the first play the bots wait for the people at the table to declare (挑, 亮牌, 宣, 亮主, …) until each
# has said they are ready, or for this many bot delays at most (0.8 s → 32 s).
DECLARE_WINDOW_FACTOR = 40
ANSWERS = ("pa_accept", "pa_refuse")  # a bot's answer to a request made to it
KEEP_ROUNDS = 200  # rounds kept in memory (older finished ones are in the journal)
# What the table is told when a deal pauses, by reason. The dealer's own message goes to the journal and
# the operator only: it may name a card (a mismatch at the window), and the hand is still secret.
PAUSE_TEXT = {
    "estop": ("Emergency stop. The operator makes the table safe, then resumes.", "急停。操作员确认安全后继续。"),
    "jam": ("A card is stuck in the dealer. The operator clears it, then resumes.", "发牌机卡牌。操作员处理后继续。"),
    "camera": ("The camera shows nothing. The operator checks it, then resumes.", "相机无画面。操作员检查后继续。"),
    "mcu": ("The controller board restarted. The operator checks the rig, then resumes.",
            "控制板重启。操作员检查后继续。"),
    "link": ("The rig does not answer. The operator checks its cable, then resumes.", "发牌机无响应。操作员检查后继续。"),
    "unreadable": ("A card could not be read. The operator checks it, then resumes.", "有牌无法识别。操作员检查后继续。"),
    "mismatch": ("The cards in the dealer were moved. The operator puts them back, then resumes.",
                 "发牌机里的牌被动过。操作员复原后继续。"),
    "double_feed": ("Cards went past the camera unseen. The operator checks the hands the operator page names, "
                    "then resumes.", "有牌未经相机识别。操作员按操作页提示核对手牌后继续。"),
}
PAUSE_DEFAULT = ("The deal is paused for the operator.", "发牌暂停，等待操作员。")
STOPPED_TEXT = ("The deal stopped: the operator checks the rig, then resumes or voids it.",
                "发牌停止：操作员检查发牌机后，继续或作废本局。")


class ServiceError(Exception):
    """A request the service refuses; ``status`` is the HTTP status (404, 409, 422)."""

    def __init__(self, status: int, message: str, message_zh: str = ""):
        super().__init__(message)
        self.status = status
        self.message = message
        self.message_zh = message_zh or message


class TableService:
    """Rounds on one table. ``bot_delay``: seconds a bot waits before acting (to be watchable);
    ``declare_window``: seconds the bots give people to declare before the first play, unless all of
    them said they are ready sooner (default: :data:`DECLARE_WINDOW_FACTOR` bot delays)."""

    def __init__(self, data_dir: Path, deal_source: DealSource | None = None, *, voice: Announcer | None = None,
                 bot_delay: float = 0.8, seats: int = 4, seed: int | None = None, journal: Journal | None = None,
                 declare_window: float | None = None):
        self.data_dir = Path(data_dir).expanduser()
        private_dir(self.data_dir)
        self.tokens = TokenStore(self.data_dir)
        self.tokens.on_new_seat = self.seat_link_made  # a link made by `hongsi token --seat` is told too
        self.hub = EventHub()
        self.journal = journal if journal is not None else Journal(self.data_dir / "journal.db")
        self.deal_source: DealSource = deal_source or SoftwareDealSource()
        self.voice = voice or Announcer(speak=False)
        self.voice.attach(self.hub)
        self.bot_delay = bot_delay
        self.declare_window = DECLARE_WINDOW_FACTOR * bot_delay if declare_window is None else declare_window
        self.seats = seats
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self.rounds: dict[int, Round] = {}
        self.current: Round | None = None
        self.estopped = False
        self._names: dict[str, str] | None = None  # players' names by seat, from the journal's seat_name rows
        self._session: tuple[int, dict[str, Any]] | None = None  # (the journal's head seq, GET /api/session)
        self.fault: str | None = None
        self._wake = threading.Condition(self._lock)
        self._kicks = 0  # bumped by every kick: a bot finding nothing to do sleeps only if none came since
        self._bot_refused: set[tuple[int, int]] = set()  # (round, seat) whose bot had a move refused
        self._bot_asked: dict[tuple[int, int], frozenset[str]] = {}  # (round, seat): declarations last offered
        self.bot_talks: collections.deque[tuple[int, str]] = collections.deque(maxlen=200)  # bots asked out of turn: (seat, answer)
        self.hints: set[int] = set()  # seats that turned their beginner's hint on
        self._hint_cache: dict[tuple[int, int, int], dict[str, Any]] = {}  # (round, seat, events) -> hint
        self.bot_times: collections.deque[float] = collections.deque(maxlen=1000)  # seconds, due to acted
        self._closing = False
        self._threads: list[threading.Thread] = []
        self.ledger = self._load_ledger()
        self.next_deal = NextDeal()          # the next fair deal's seed, committed before seats add to it
        self._seeds: dict[int, tuple[bytes | None, dict[int, str]]] = {}
        self.table_camera: Any = None  # controller.table_camera.watcher.TableWatcher, when plays are seen
        self._adopt_interrupted()
        bot_thread = threading.Thread(target=self._bot_loop, name="hongsi-bots", daemon=True)
        bot_thread.start()
        self._threads.append(bot_thread)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        with self._lock:
            self._closing = True
            self._wake.notify_all()
        try:
            self.deal_source.close()
        finally:
            for t in self._threads:
                t.join(timeout=5)
            self.voice.close()
            self.journal.close()

    def status(self) -> dict[str, Any]:
        try:
            rig = self.deal_source.status()
        except Exception as exc:  # a rig that cannot answer is itself a status
            rig = {"state": "error", "error": str(exc)}
        cur = self.current
        out = {"status": "ok", "rig": rig, "estop": self.estopped, "fault": self.fault,
               "round": cur.id if cur else None, "phase": cur.phase if cur else None,
               "voice": self.voice.status(), "clients": self.hub.client_count}
        if self.table_camera is not None:
            out["table_camera"] = self.table_camera.status()
        return out

    # ------------------------------------------------------------------ rounds
    def get_round(self, rid: int) -> Round:
        with self._lock:
            rnd = self.rounds.get(rid)
        if rnd is None:
            raise ServiceError(404, f"no round {rid}", f"没有第 {rid} 局")
        return rnd

    def recent_rounds(self, n: int) -> list[Round]:
        """The ``n`` newest rounds of this session, newest first."""
        with self._lock:
            return sorted(self.rounds.values(), key=lambda r: -r.id)[:n]

    def start_round(self, *, game: str = DEFAULT_GAME, first_seat: int = 0, fair_deal: bool = True,
                    bots: list[int] | str | None = None, preset: str | None = None,
                    rules: dict[str, Any] | None = None) -> Round:
        """Start shuffling and dealing a new hand (in a thread); return the new round at once.

        ``bots``: seats a bot plays; ``"all"``; ``None`` = every seat that has no seat token."""
        try:
            impl = get_game(game)
            settings = impl.settings(preset, rules)
            plan = impl.deal_plan(settings)
        except UnknownGame as exc:
            raise ServiceError(422, str(exc), f"未知的游戏 {game!r}") from None
        except (ValueError, ImportError) as exc:
            raise ServiceError(422, f"{game}: {exc}", f"{game}：设置有误") from None
        if not 0 <= first_seat < plan.seats:
            raise ServiceError(422, f"first_seat {first_seat}: {game} has seats 0..{plan.seats - 1}",
                               f"首发座位 {first_seat} 不存在（0..{plan.seats - 1}）")
        bot_seats = self._bot_seats(bots, plan.seats)
        with self._lock:
            if self.estopped:
                raise ServiceError(409, "the emergency stop is on: clear the fault first", "急停中：请先解除故障")
            cur = self.current
            if cur is not None and cur.phase in ("dealing", "interrupted"):
                if cur.phase == "dealing":  # a second press of Deal: the first one is under way
                    raise ServiceError(409, f"round {cur.id} is dealing: wait for it to finish",
                                       f"第 {cur.id} 局正在发牌，请稍候")
                raise ServiceError(409, f"round {cur.id} is still {cur.phase}: resume or void it first",
                                   f"第 {cur.id} 局尚未发完：请先继续或作废")
            if cur is not None and cur.phase == "playing":  # the cards were gathered for a new deal
                with cur.lock:
                    cur.phase, cur.paused = "void", False
                    cur.message, cur.message_zh = "Abandoned for a new deal.", "已放弃，重新发牌。"
                self.journal.append(cur.id, "round_end", {"status": "void", "reason": "a new deal started"})
                self.hub.publish({"type": "void", "round": cur.id, "message": cur.message,
                                  "message_zh": cur.message_zh})
            seed, shares = self.next_deal.take() if fair_deal else (None, {})
            rid = self.journal.new_round({"game": game, "first_seat": first_seat, "fair_deal": fair_deal,
                                          "source": "service", "commitment": seed and commitment(seed)})
            self._seeds[rid] = (seed, shares)
            rnd = Round(rid, impl, settings, first_seat=first_seat, fair_deal=fair_deal, bots=bot_seats,
                        preset=preset, rules=rules)
            rnd.declare_window = self.declare_window
            self.rounds[rid] = rnd
            self.current = rnd
            for old in sorted(self.rounds)[:-KEEP_ROUNDS]:  # finished hands live on in the journal
                if self.rounds[old].phase in ("finished", "void"):
                    del self.rounds[old]
        self.hub.publish({"type": "round", "round": rid, "game": game, "phase": "dealing",
                          "first_seat": first_seat, "total": rnd.total, "seats": plan.seats,
                          "bots": sorted(bot_seats)})
        self._spawn_deal(rnd, resume=False)
        return rnd

    def _bot_seats(self, bots: list[int] | str | None, seats: int) -> set[int]:
        if bots == "all":
            return set(range(seats))
        if bots is None:
            taken = self.tokens.seats_with_tokens()
            return {s for s in range(seats) if s not in taken}
        if isinstance(bots, str):
            raise ServiceError(422, f"bots {bots!r}: a list of seats, 'all', or null", "机器人座位有误")
        for s in bots:
            if not 0 <= s < seats:
                raise ServiceError(422, f"bots: seat {s} is not a seat 0..{seats - 1}", f"机器人座位 {s} 不存在")
        return set(bots)

    def _spawn_deal(self, rnd: Round, resume: bool) -> None:
        t = threading.Thread(target=self._deal, args=(rnd, resume), name=f"hongsi-deal-{rnd.id}", daemon=True)
        self._threads = [x for x in self._threads if x.is_alive()] + [t]
        t.start()

    def _on_deal_event(self, rnd: Round, ev: dict[str, Any]) -> None:
        """A deal source's event: count the card, follow pauses; publish only card-free facts."""
        kind = ev.get("type")
        public = {k: ev[k] for k in DEAL_EVENT_FIELDS if k in ev and _plain(ev[k])}
        with rnd.lock:
            if kind in ("card_dealt", "card"):
                rnd.card_dealt(ev.get("seat"))
            elif kind == "paused":
                text, text_zh = PAUSE_TEXT.get(str(ev.get("reason")), PAUSE_DEFAULT)
                public.update({"message": text, "message_zh": text_zh})
                if rnd.phase == "void" and self.deal_source.waiting:
                    self.deal_source.resolve("void")
                else:
                    rnd.phase, rnd.message, rnd.message_zh = "interrupted", text, text_zh
            elif kind == "resumed":
                if isinstance(ev.get("dealt"), int):  # a deal resumed from the journal after a restart
                    rnd.dealt = max(rnd.dealt, ev["dealt"])
                if rnd.phase == "interrupted":
                    rnd.phase, rnd.message, rnd.message_zh = "dealing", None, None
            public.update({"dealt": rnd.dealt, "total": rnd.total, "phase": rnd.phase})
        if kind in ("card_dealt", "card"):
            self.hub.publish({"type": "deal", "round": rnd.id, **public})
            return
        self.hub.publish({"type": "deal_status", "stage": str(kind), "round": rnd.id, **public})
        if kind == "paused":
            self.voice.say(public["message_zh"], public["message"])

    def _deal(self, rnd: Round, resume: bool) -> None:
        seed, shares = self._seeds.pop(rnd.id, (None, {}))
        try:
            result = self.deal_source.deal(round_id=rnd.id, game=rnd.game.name, first_seat=rnd.first_seat,
                                           fair=rnd.fair_deal, preset=rnd.preset, rules=rnd.rules or None,
                                           on_event=lambda ev: self._on_deal_event(rnd, ev), resume=resume,
                                           seed=seed, contributions=shares or None)
        except DealInterrupted as exc:
            with rnd.lock:
                voided = not exc.resumable or rnd.phase == "void"
            if voided:  # the hand is gone (a bad deck, or voided): nothing in it is secret any more
                self.journal.append(rnd.id, "round_end", {"status": "void", "message": str(exc)})
                self._halt(rnd, "void", str(exc), exc.message_zh)
            else:
                self._halt(rnd, "interrupted", STOPPED_TEXT[0], STOPPED_TEXT[1], detail=str(exc))
            return
        except Exception as exc:  # a bug or a fault no source caught: the round waits for the operator
            log.exception("deal failed")
            self.fault = STOPPED_TEXT[0]
            self._halt(rnd, "interrupted", STOPPED_TEXT[0], STOPPED_TEXT[1], detail=f"deal failed: {exc!r}")
            return
        with rnd.lock:
            if rnd.phase == "void":
                return
            try:
                rnd.start_play(result.hands, result.bottom, result.first_player, result.extra)
            except Exception as exc:  # the camera's hand does not fit the game: an operator matter
                self._halt(rnd, "interrupted", STOPPED_TEXT[0], STOPPED_TEXT[1],
                           detail=f"the dealt hand cannot be played: {exc!r}")
                return
            first = rnd.first_player
            rec = rnd.record()
            self.journal.append(rnd.id, "service_dealt", {"hands": rec["hands"], "bottom": rec["bottom"],
                                                          "first_player": first})
        self.hub.publish({"type": "dealt", "round": rnd.id, "first_player": first, "phase": "playing",
                          "counts": rnd.counts(), "turn": rnd.turn()})
        if rnd.first_text is not None:
            self.voice.say(*self._named(first, rnd.first_text))
        self._kick()

    def _halt(self, rnd: Round, phase: str, message: str, message_zh: str, detail: str | None = None) -> None:
        """The round stops (``interrupted`` or ``void``): tell the table; the detail (which may name a
        card) goes to the journal, for the operator."""
        with rnd.lock:
            rnd.phase, rnd.message, rnd.message_zh = phase, message, message_zh
        if detail is not None:
            self.journal.append(rnd.id, "service_fault", {"detail": detail})
        self.hub.publish({"type": "void" if phase == "void" else "interrupted", "round": rnd.id,
                          "dealt": rnd.dealt, "message": message, "message_zh": message_zh})
        self.voice.say(message_zh, message)

    # ------------------------------------------------------------------ actions
    def act(self, rid: int, action: dict[str, Any], *, by_bot: bool = False, expect: int | None = None) -> dict[str, Any]:
        """Referee one action now; apply it if legal. Return ``{"index", "applied", "violations"}``.
        ``expect``: the number of events the actor saw (a bot's plan); another count is refused (409) before the
        referee sees it, checked under the same lock as the judging (a person's action may land in between).

        After a play that leaves a seat with few cards, the table is told the count; where the rules
        make the announcement a record event (红桃四's rule 8), the service makes it for the player."""
        rnd = self.get_round(rid)
        with rnd.lock:
            if expect is not None and len(rnd.events) != expect:
                raise ServiceError(409, "the table moved on since this move was planned", "牌局已变化")
            self._check_may_act(rnd, action)
            turn = rnd.turn()  # whose turn it was, for the refusal's words
            before = rnd.counts() or []
            index, violations, news = self._referee(rnd, action, by_bot)
            applied = rnd.applied[index]
            made = self._announce_for_player(rnd, action) if applied else []
            count = self._count_left(rnd, action, before) if applied else None
            finished = rnd.phase == "finished"
            # published under the round's lock: live events come in the order the referee saw them
            self._publish_actions(rnd, [index, *made])
            self._tell_table(rnd, action, violations, news, count)
        if finished:
            self._finish(rnd)
        self._kick()
        # the acting seat reads the engine's reason in people's words (seats from 1, cards as ♠A)
        return {"index": index, "applied": applied, "violations": [violation_for_people(v, action, turn) for v in violations]}

    def _check_may_act(self, rnd: Round, action: dict[str, Any]) -> None:
        """Refuse (``ServiceError``) an action the round cannot take now, before the referee sees it."""
        seat = action.get("seat")
        if rnd.phase in ("dealing", "interrupted"):
            raise ServiceError(409, f"round {rnd.id} is still being dealt", "还在发牌")
        if rnd.phase == "void":
            raise ServiceError(409, f"round {rnd.id} was voided", "本局已作废")
        if rnd.paused or self.estopped:
            raise ServiceError(409, "the round is paused (emergency stop)", "本局暂停（急停）")
        if not isinstance(seat, int) or not 0 <= seat < rnd.plan.seats:
            raise ServiceError(422, f"seat {seat!r}: not a seat 0..{rnd.plan.seats - 1}", "座位有误")
        if (why := rnd.game.info.malformed(action)) is not None:  # no action at all: not put in the record
            raise ServiceError(422, why, f"{rnd.game.info.name_zh}没有这样的动作，或缺少必需的内容")
        if rnd.asked_already(action):  # a refused ask would otherwise let a seat try every seat in turn
            raise ServiceError(409, "this seat has already asked for a 趴 this hand", "本局已经喊过趴")

    def _referee(self, rnd: Round, action: dict[str, Any], by_bot: bool) -> tuple[int, list[Violation], Any]:
        """Judge ``action`` and journal it; return its index, its violations and the news it made."""
        game = rnd.game
        facts = rnd.facts() if game.may_make_news(action.get("action")) else None
        index, violations, applied = rnd.judge(action)
        rnd.count_ask(index, action, violations)
        news = table_news(facts, rnd.facts()) if applied and facts is not None else None
        self.journal.append(rnd.id, "action", {"index": index, "event": action, "applied": applied, "bot": by_bot,
                                               "violations": rnd.violations[index]["list"]})
        return index, violations, news

    def _announce_for_player(self, rnd: Round, action: dict[str, Any]) -> list[int]:
        """The announcements the rules require after ``action`` (``State.due_announcements``), judged
        and journaled as the player's events; their indexes."""
        if action.get("action") != "play" or rnd.phase != "playing" or rnd.state is None:
            return []
        made = []
        for ann in rnd.state.due_announcements():
            i, _, _ = rnd.judge(ann)
            self.journal.append(rnd.id, "action", {"index": i, "event": ann, "applied": rnd.applied[i],
                                                   "violations": rnd.violations[i]["list"]})
            made.append(i)
        return made

    def _count_left(self, rnd: Round, action: dict[str, Any], before: list[int]) -> int | None:
        """The cards an applied play left its seat, if few enough to tell the table."""
        seat, after = action["seat"], rnd.counts() or []
        if action.get("action") != "play" or rnd.phase != "playing" or seat >= len(after):
            return None
        n = after[seat]
        return n if 0 < n <= rnd.announce_at() and (not before or before[seat] != n) else None

    def _publish_actions(self, rnd: Round, indexes: list[int]) -> None:
        turn, counts, trick = rnd.turn(), rnd.counts() or [], rnd.public_trick()
        for i in indexes:
            self.hub.publish({"type": "action", "round": rnd.id, **rnd.public_action(i), "turn": turn,
                              "counts": counts, "trick": trick})

    def _tell_table(self, rnd: Round, action: dict[str, Any], violations: list[Violation],
                    news: tuple[str, str] | None, count: int | None) -> None:
        """The refusal (its rule, never the cards tried), the news and the count: display and voice."""
        seat = action["seat"]
        errors = [v for v in violations if v.severity == "error"]
        if errors:
            v = public_violation(errors[0].to_json())
            self.hub.publish({"type": "refused", "round": rnd.id, "seat": seat, "action": action.get("action"),
                              **v})
            self.voice.say(f"{seat_zh(seat)}位违规：{v['message_zh']}", f"{seat_en(seat)}: {v['message']}")
        if news is not None:
            self.voice.say(*news)
        if count is not None:
            self.hub.publish({"type": "count", "round": rnd.id, "seat": seat, "count": count})
            self.voice.say(*self._named(seat, count_words(seat, count)))

    def _finish(self, rnd: Round) -> None:
        with rnd.lock:
            verdict = rnd.result() or {}
            record = rnd.record()
        scores = verdict.get("scores")
        proof = self.deal_source.after_hand(rnd.id)
        if proof is not None:
            record["deal"] = {**(record.get("deal") or {}), "proof": proof}
            with rnd.lock:
                rnd.deal_extra["deal"] = record["deal"]
        with self._lock:
            if isinstance(scores, list):
                for s, v in enumerate(scores):
                    self.ledger[s] = self.ledger.get(s, 0) + int(v)
            ledger = dict(self.ledger)
        self.journal.append(rnd.id, "round_end", {"status": "done", "record": record, "verdict": verdict,
                                                  "scores": scores})
        self.hub.publish({"type": "finished", "round": rnd.id, "result": verdict, "ledger": _ledger_list(ledger)})
        self.voice.say(*result_words(verdict))

    def _adopt_interrupted(self) -> None:
        """A deal the journal shows interrupted (the service or the machine stopped mid-deal) becomes the
        current round, ``interrupted``: the operator resumes it (from the journal) or voids it."""
        try:
            rid = self.journal.last_open_round()
            if rid is None or self.journal.status(rid) != "interrupted":
                return
            rows = self.journal.rows(rid)
            start = next((r.data for r in rows if r.kind == "round_start"), {})
            impl = get_game(str(start.get("game", DEFAULT_GAME)))
            settings = impl.settings(start.get("preset"), start.get("rules"))
            plan = impl.deal_plan(settings)
            first = int(start.get("first_seat") or 0)
        except Exception:  # a journal row this service cannot read: leave it to `hongsi deal --resume`
            log.exception("cannot adopt the interrupted round")
            return
        rnd = Round(rid, impl, settings, first_seat=first if 0 <= first < plan.seats else 0,
                    fair_deal=bool(start.get("fair_deal", True)), bots=self._bot_seats(None, plan.seats),
                    preset=start.get("preset"), rules=start.get("rules"))
        rnd.phase, rnd.declare_window = "interrupted", self.declare_window
        rnd.message = "The deal was interrupted when the service stopped: resume or void it."
        rnd.message_zh = "服务重启时发牌中断：请继续或作废。"
        rnd.dealt = sum(1 for r in rows if r.kind == "eject_done")
        self.rounds[rid] = rnd
        self.current = rnd

    def next_first_seat(self) -> int | None:
        """Who receives first in the next deal: the last hand's ``next_first_seat`` (the first player
        out, by the rules); None when no hand has told."""
        with self._lock:
            done = [r for r in self.rounds.values() if r.phase == "finished"]
        if done:
            nxt = (max(done, key=lambda r: r.id).result() or {}).get("next_first_seat")
            if isinstance(nxt, int):
                return nxt
        return None

    def _load_ledger(self) -> dict[int, int]:
        """Each seat's total over the current session's hands (since the last ``session`` row)."""
        ledger: dict[int, int] = {}
        for row in self.journal.rows():
            if row.kind == SESSION_KIND:
                ledger = {}
            elif row.kind == "round_end" and isinstance(row.data.get("scores"), list):
                for s, v in enumerate(row.data["scores"]):
                    ledger[s] = ledger.get(s, 0) + int(v)
        return ledger

    def ledger_list(self) -> list[int]:
        with self._lock:
            return _ledger_list(self.ledger, self.seats)

    # ------------------------------------------------------------------ safety
    def estop(self, reason: str = "operator") -> dict[str, Any]:
        """Motors off at once (the deal source's e-stop), then pause the current round."""
        try:
            self.deal_source.estop()
        finally:
            with self._lock:
                self.estopped = True
                self.fault = f"emergency stop ({reason})"
                cur = self.current
            if cur is not None:
                with cur.lock:
                    if cur.phase == "playing":
                        cur.paused = True
            self.journal.append(cur.id if cur else 0, "estop", {"reason": reason})
            self.hub.publish({"type": "estop", "round": cur.id if cur else None, "reason": reason})
            self.voice.say("紧急停止", "Emergency stop")
        return self.status()

    def clear_fault(self) -> dict[str, Any]:
        self.deal_source.clear_fault()
        with self._lock:
            self.estopped = False
            self.fault = None
            cur = self.current
        if cur is not None:
            with cur.lock:
                cur.paused = False
        self.hub.publish({"type": "cleared", "round": cur.id if cur else None})
        self._kick()
        return self.status()

    def resume(self, rid: int) -> Round:
        """Resume an interrupted deal: the paused deal goes on, or (its thread gone) the source resumes it."""
        rnd = self.get_round(rid)
        with rnd.lock:
            if rnd.phase != "interrupted":
                raise ServiceError(409, f"round {rid} is {rnd.phase}, not interrupted", "本局未中断")
            if self.estopped:
                raise ServiceError(409, "the emergency stop is on: clear the fault first", "急停中：请先解除故障")
            rnd.phase, rnd.message, rnd.message_zh = "dealing", None, None
        self.hub.publish({"type": "resumed", "round": rid, "dealt": rnd.dealt, "total": rnd.total})
        if self.deal_source.waiting:
            self.deal_source.resolve("resume")
        else:
            self._spawn_deal(rnd, resume=True)
        return rnd

    def void(self, rid: int) -> Round:
        """Void a round that is not over (its cards go back for a re-shuffle)."""
        rnd = self.get_round(rid)
        with rnd.lock:
            if rnd.phase in ("finished", "void"):
                raise ServiceError(409, f"round {rid} is already {rnd.phase}", "本局已结束")
            was = rnd.phase
            rnd.phase, rnd.paused = "void", False
            rnd.message, rnd.message_zh = void_words(rid)
        if was == "dealing" and not self.deal_source.waiting:
            self.deal_source.estop()  # the deal pauses; its paused event sees the void and answers it
        if self.deal_source.waiting:
            self.deal_source.resolve("void")
        elif was != "dealing":
            self.journal.append(rid, "round_end", {"status": "void", "reason": "voided by the operator"})
        self.hub.publish({"type": "void", "round": rid, "message": rnd.message, "message_zh": rnd.message_zh})
        self.voice.say(rnd.message_zh, rnd.message)  # the table hears it: no hand vanishes in silence
        return rnd

    # ------------------------------------------------------------------ sessions
    def session(self) -> dict[str, Any]:
        """The current session's ledger per game, with each game's names and running totals (public).
        Worked out again only when the journal grew: it reads every row (anyone may ask, often)."""
        head = self.journal.head()
        key = head.seq if head is not None else 0
        with self._lock:
            if self._session is not None and self._session[0] == key:
                return copy.deepcopy(self._session[1])
        out = session_of(self.journal.rows())
        for name, g in out["games"].items():
            try:
                info = get_game(name).info
                g["title"] = [info.name_zh, info.name_en]
            except UnknownGame:
                g["title"] = [name, name]
        with self._lock:
            self._session = (key, out)
        return copy.deepcopy(out)

    def new_session(self) -> dict[str, Any]:
        """Start a new session (journaled): the ledgers start again from 0, and the table is told."""
        with self._lock:
            cur = self.current
            self.ledger = {}
        self.journal.append(cur.id if cur else 0, SESSION_KIND, {"by": "operator"})
        self.hub.publish({"type": "session", "ledger": self.ledger_list()})
        self.voice.say("新的一场，筹码清零", "A new session: the ledger starts again.")
        return self.session()

    # ------------------------------------------------------------------ players' names
    def _named(self, seat: int | None, words: tuple[str, str]) -> tuple[str, str]:
        """What the voice says about ``seat``, its player's name first when the seat has one."""
        name = self.seat_names().get(str(seat)) if seat is not None else None
        return (f"{name}，{words[0]}", f"{name}: {words[1]}") if name else words

    def seat_names(self) -> dict[str, str]:
        """Each named seat's player, by seat ("0": ...): the latest ``seat_name`` row of the journal."""
        with self._lock:
            if self._names is None:  # first asked: the journal's rows, so names outlive a restart
                self._names = {str(r.data["seat"]): str(r.data["name"]) for r in self.journal.rows_of_kind("seat_name")}
            return {k: v for k, v in self._names.items() if v}

    def seat_link_made(self, seat: int) -> bool:
        """A new link for ``seat`` made while a hand is live can read that hand: the table is told, aloud and on
        the display, and the journal keeps it, so the operator cannot look at a hand unseen. True if told."""
        with self._lock:
            cur = self.current
        if cur is None or cur.phase not in ("dealing", "playing"):
            return False  # between hands a link reads nothing hidden
        self.journal.append(cur.id, "seat_link", {"seat": seat, "by": "operator"})
        self.hub.publish({"type": "seat_link", "round": cur.id, "seat": seat})
        self.voice.say(*seat_link_words(seat))
        return True

    def decks(self) -> dict[str, Any]:
        """The enrolled decks and the one the card reader uses (``reads`` false: this table reads no cards)."""
        return self.deal_source.decks()

    def choose_deck(self, name: str | None) -> dict[str, Any]:
        """Read the next deals with the enrolled deck ``name`` (None: the models alone): journaled and told
        (a public ``deck`` event). Not while a deal is under way; an unknown deck changes nothing."""
        from controller.service.deal import NoReader
        from vision.enroll import DeckNotFound, EnrolError

        with self._lock:
            cur = self.current
        if cur is not None and cur.phase in ("dealing", "interrupted"):
            raise ServiceError(409, "a deal is under way: choose the deck before the next deal",
                               "正在发牌：请在下一次发牌前选择牌")
        try:
            self.deal_source.use_deck(name)
        except NoReader as exc:
            raise ServiceError(409, str(exc), "本桌不用摄像头读牌，无需选择牌") from None
        except DeckNotFound as exc:
            raise ServiceError(404, str(exc), "没有这副已登记的牌") from None
        except EnrolError as exc:
            raise ServiceError(409, str(exc), "这副牌需要重新登记") from None
        self.journal.append(cur.id if cur else 0, "deck", {"name": name})
        self.hub.publish({"type": "deck", "name": name})
        return self.decks()

    def set_seat_name(self, seat: int, name: str) -> dict[str, str]:
        """Name ``seat``'s player ('' clears it): journaled, and the table told (a public ``names`` event)."""
        self.seat_names()  # loaded from the journal first
        with self._lock:
            cur = self.current
            self._names[str(seat)] = name  # type: ignore[index]
        self.journal.append(cur.id if cur else 0, "seat_name", {"seat": seat, "name": name})
        names = self.seat_names()
        self.hub.publish({"type": "names", "names": names})
        return names

    def ready(self, rid: int, seat: int) -> dict[str, Any]:
        """``seat`` will not declare (more) before the first play: the bots need not wait for it."""
        rnd = self.get_round(rid)
        with rnd.lock:
            if not 0 <= seat < rnd.plan.seats:
                raise ServiceError(422, f"seat {seat!r}: not a seat 0..{rnd.plan.seats - 1}", "座位有误")
            was = seat in rnd.ready
            rnd.ready.add(seat)
            undecided = rnd.undecided()
        if not was:
            self.journal.append(rid, "ready", {"seat": seat})
            self.hub.publish({"type": "ready", "round": rid, "seat": seat, "undecided": undecided})
        self._kick()
        return {"seat": seat, "undecided": undecided}

    # ------------------------------------------------------------------ hints for beginners
    def set_hint(self, seat: int, on: bool) -> dict[str, Any]:
        """Turn ``seat``'s hint on or off (off until the seat turns it on)."""
        with self._lock:
            (self.hints.add if on else self.hints.discard)(seat)
        return {"seat": seat, "hint": on}

    def hint(self, rid: int, seat: int) -> dict[str, Any]:
        """What the careful bot would do in ``seat`` now and why, from that seat's information set only."""
        if seat not in self.hints:
            raise ServiceError(409, f"seat {seat}'s hint is off: the seat turns it on first", "本座位未开启提示")
        rnd = self.get_round(rid)
        with rnd.lock:
            if rnd.phase != "playing" or rnd.state is None or seat >= rnd.plan.seats:
                raise ServiceError(409, f"round {rid} is not being played", "本局不在进行中")
            key = (rid, seat, len(rnd.events))
            if key in self._hint_cache:
                return self._hint_cache[key]
            think = plan_hint(rnd.game, rnd.state, seat, random.Random(hash(key)))
        out = {"round": rid, "seat": seat, "version": key[2], **think()}
        with self._lock:
            self._hint_cache = {k: v for k, v in self._hint_cache.items() if k[0] == rid and k[2] == key[2]}
            self._hint_cache[key] = out
        return out

    # ------------------------------------------------------------------ bots
    def _declare_time_left(self, rnd: Round) -> float:
        """Seconds the bots still give people to declare before the first play (0: act now)."""
        with rnd.lock:
            return rnd.declare_left(self.declare_window) or 0.0

    def _kick(self) -> None:
        with self._lock:
            self._kicks += 1
            self._wake.notify_all()

    def _bot_round(self) -> Round | None:
        """The round a bot may act in now (called with the service's lock; takes no round's lock)."""
        cur = self.current
        if cur is None or cur.phase != "playing" or cur.paused or self.estopped or not cur.bots:
            return None
        if self.table_camera is not None and self.table_camera.busy():
            return None  # a play is landing on the table: the next bot waits for it
        return cur

    def _bot_move(self, cur: Round) -> BotMove | None:
        """The next bot move due in ``cur``, if any: the seat's information set read now, under the
        round's lock only (never the service's too: a person's act takes them the other way round), its
        thinking to run once the lock is let go."""
        since = time.monotonic()  # the move is due from now: its budget counts from here
        with cur.lock:
            state = cur.state
            if cur.phase != "playing" or state is None or state.is_terminal():
                return None
            version = len(cur.events)
            for seat in sorted(cur.bots):  # answers first: a 趴 request to a bot seat
                legal = state.legal_actions(seat)
                if any(a.get("action") in ANSWERS for a in legal):
                    return BotMove(cur, seat, legal, version, self._plan(cur, state, seat, legal), since)
            seat = state.current_player()
            talk = self._talk_move(cur, state, seat, version, since)
            if talk is not None:
                return talk
            if seat is None or seat not in cur.bots:
                return None
            legal = state.legal_actions(seat)
            if not legal:
                return None
            return BotMove(cur, seat, legal, version, self._plan(cur, state, seat, legal), since)

    def _talk_move(self, cur: Round, state: Any, due: int | None, version: int, since: float) -> BotMove | None:
        """A bot seat not to act that is offered a new set of declarations (挑 before the call, 趴, ...) is
        asked once whether to declare now, as people may; asked again only when its offer changes."""
        for seat in sorted(cur.bots):
            if seat == due or (cur.id, seat) in self._bot_refused:
                continue
            offered = frozenset(str(a.get("action")) for a in state.offered_actions(seat) if is_declaration(a))
            if not offered or self._bot_asked.get((cur.id, seat)) == offered:
                continue
            self._bot_asked[(cur.id, seat)] = offered
            think = plan_talk(cur.game, state, seat, self._rng)
            if think is not None:
                move = BotMove(cur, seat, state.offered_actions(seat), version, think, since)
                move.talk = True
                return move
        return None

    def _plan(self, cur: Round, state: Any, seat: int, legal: list[dict[str, Any]]) -> Callable[[], dict[str, Any]]:
        """A seat that had a move refused this hand plays the plain greedy bot from then on: a search
        that keeps choosing a refused move would stall the hand."""
        bot = "greedy" if (cur.id, seat) in self._bot_refused else None
        return plan_action(cur.game, state, seat, legal, self._rng, bot=bot)

    def _bot_loop(self) -> None:
        while True:
            with self._lock:
                while not self._closing and (cur := self._bot_round()) is None:
                    self._wake.wait(timeout=1.0)
                if self._closing:
                    return
                kicks = self._kicks
            try:
                move = self._bot_move(cur)
            except Exception:
                log.exception("bot failed to choose")
                move = None
            if move is None:
                with self._lock:  # nothing due: sleep until the table changes (a kick since is not lost)
                    if self._kicks == kicks and not self._closing:
                        self._wake.wait(timeout=1.0)
                continue
            self._bot_play(move)

    def _bot_play(self, move: BotMove) -> None:
        """Think (without the locks: the table answers meanwhile), wait for people still declaring, then
        act, unless the table changed since the move was planned (then the bot plans again)."""
        rnd = move.round
        action = move.think()
        if move.talk:
            self.bot_talks.append((move.seat, str(action.get("action"))))
        if action.get("action") == WAIT:
            return  # out of turn, the bot chose not to declare
        # a request to a bot is answered at once; a declaration out of turn is what the window is for
        answer = action.get("action") in ANSWERS or move.talk
        left = 0.0 if answer else self._declare_time_left(rnd)
        if left > 0:  # people may still declare: wait for them (a "ready" or a declaration wakes us)
            with self._lock:
                self._wake.wait(timeout=min(left, 1.0))
            return
        if self.bot_delay:
            time.sleep(self.bot_delay)
        try:
            with rnd.lock:
                if len(rnd.events) != move.version or rnd.paused or rnd.phase != "playing":
                    return  # the table changed while the bot thought: plan again
            if self.table_camera is not None and self.table_camera.throw(rnd, action):
                return  # a virtual player threw its cards: the table camera referees them
            out = self.act(rnd.id, action, by_bot=True, expect=move.version)
        except ServiceError as exc:  # stale (the table moved on while the bot thought) or paused: plan again
            with rnd.lock:
                kept = len(rnd.events) == move.version and not rnd.paused and rnd.phase == "playing"
            if kept and not self.estopped:  # refused before the referee (a second 趴 ask): not again
                self._bot_refused.add((rnd.id, move.seat))
                log.warning("round %s: bot seat %s's %s was refused: %s", rnd.id, move.seat, action.get("action"),
                            exc.message)
            return
        except Exception:
            log.exception("bot action failed")
            time.sleep(0.5)
            return
        self.bot_times.append(time.monotonic() - move.since)
        if not out["applied"]:
            self._bot_refused.add((rnd.id, move.seat))
            rules = [v.get("rule") for v in out["violations"] if v.get("severity") == "error"]
            log.warning("round %s: bot seat %s's %s was refused (%s); it plays the plain greedy bot from now on",
                        rnd.id, move.seat, action.get("action"), ", ".join(map(str, rules)))


class BotMove:
    """A bot's move planned at event ``version`` of ``round``: its thinking, and the plain policy's move
    if that thinking fails (a hand never stalls on a bot)."""

    def __init__(self, rnd: Round, seat: int, legal: list[dict[str, Any]], version: int,
                 think: Callable[[], dict[str, Any]], since: float):
        self.round, self.seat, self.legal, self.version, self._think = rnd, seat, legal, version, think
        self.since = since
        self.talk = False  # out of turn: a declaration, or "wait"

    def think(self) -> dict[str, Any]:
        try:
            return self._think()
        except Exception:
            log.exception("bot seat %s failed to think: it plays the plain policy's move", self.seat)
            return plain_policy(self.seat, self.legal, random.Random())


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (int, float, str, bool))


def _ledger_list(ledger: dict[int, int], seats: int = 4) -> list[int]:
    """Each seat's running total, for the seats that have played a hand (every table seat before the
    first: a table that plays only 3-player 挖坑 does not list a fourth seat)."""
    n = max(s + 1 for s in ledger) if ledger else seats
    return [ledger.get(s, 0) for s in range(n)]
