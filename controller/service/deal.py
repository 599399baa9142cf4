"""Where a round's cards come from: the seam between the table service and the dealer.

A :class:`DealSource` deals one hand (blocking, in the service's deal thread) and reports progress
through ``on_event`` — the service passes on only whitelisted, card-free fields. It answers a
:class:`DealtHand` (who holds what, as the camera read it) or raises :class:`DealInterrupted`.

A fault that needs a person (an e-stop, a jam) *pauses* the deal inside ``deal()``: the source emits a
``paused`` event and waits until the service calls :meth:`resolve` with ``"resume"`` or ``"void"``
(the operator's buttons). ``deal(resume=True)`` continues a deal whose thread ended (after a crash).

Two sources:

- :class:`RigDealSource` — the real thing: :class:`controller.deal.Dealer` driving a rig (a real one,
  or the virtual rig of ``firmware_bridge.sim``) over serial, the camera reading every card, the journal.
- :class:`SoftwareDealSource` — a software shuffle dealt in the game's deal order, for running the
  service with no rig at all (``hongsi serve --no-rig``) and for testing the service on its own.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from controller.deal.operators import EventOperator
from controller.plan import BOTTOM, game_counts, make_plan
from engine.cards import Card, parse_card

if TYPE_CHECKING:
    from controller.deal.seams import Camera, CardReader, Rig

OnEvent = Callable[[dict[str, Any]], None]
STATUS_MAX_AGE_S = 1.0


@dataclass
class DealtHand:
    """A dealt hand as the camera read it (the deal source's answer to the service)."""

    hands: list[list[Card]]
    bottom: list[Card]
    first_player: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # goes into the game record (deal facts)


class DealInterrupted(Exception):
    """The deal ended without a hand: ``resumable`` false means it must be voided (a bad deck)."""

    def __init__(self, message: str, message_zh: str = "", resumable: bool = True):
        super().__init__(message)
        self.message_zh = message_zh or message
        self.resumable = resumable


class NoReader(Exception):
    """This deal source reads no cards (no camera): it takes no enrolled deck."""


class DealSource(Protocol):
    def deal(self, *, round_id: int, game: str, first_seat: int, fair: bool, preset: str | None,
             rules: dict[str, Any] | None, on_event: OnEvent, resume: bool = False, seed: bytes | None = None,
             contributions: dict[int, str] | None = None) -> DealtHand: ...

    @property
    def waiting(self) -> bool: ...

    def resolve(self, answer: str) -> None: ...

    def estop(self) -> None: ...

    def clear_fault(self) -> None: ...

    def after_hand(self, round_id: int) -> dict[str, Any] | None: ...

    def status(self) -> dict[str, Any]: ...

    def decks(self) -> dict[str, Any]: ...

    def use_deck(self, name: str | None) -> None: ...

    def close(self) -> None: ...


class SoftwareDealSource:
    """Deal a software-shuffled deck (no rig): the plan of :func:`controller.plan.make_plan` (fair deal
    or round robin), ``card_delay`` seconds between cards so the display can show the deal.

    >>> src = SoftwareDealSource(card_delay=0)
    >>> res = src.deal(round_id=1, game="hongsi", first_seat=0, fair=True, preset=None, rules=None,
    ...                on_event=lambda ev: None)
    >>> sorted(len(h) for h in res.hands)
    [13, 13, 13, 13]
    """

    def __init__(self, card_delay: float = 0.0, seed: int | None = None):
        self.card_delay = card_delay
        self._rng = random.Random(seed) if seed is not None else random.SystemRandom()
        self._stop = threading.Event()
        self._pause = EventOperator()
        self._pending: dict[str, Any] | None = None  # a deal whose thread ended early, to resume
        self.state = "ready"

    @property
    def waiting(self) -> bool:
        return self._pause.waiting

    def resolve(self, answer: str) -> None:
        self._pause.resolve(answer)

    def deal(self, *, round_id: int, game: str, first_seat: int, fair: bool, preset: str | None,
             rules: dict[str, Any] | None, on_event: OnEvent, resume: bool = False, seed: bytes | None = None,
             contributions: dict[int, str] | None = None) -> DealtHand:
        if resume and self._pending is not None and self._pending["round"] == round_id:
            p = self._pending
        else:
            plan = make_plan(game, first_seat=first_seat, fair=fair, preset=preset, rules=rules, seed=seed,
                             contributions=contributions)
            cards = plan.deck.cards()
            self._rng.shuffle(cards)
            p = {"round": round_id, "cards": cards, "order": list(plan.order), "next": 0,
                 "hands": [[] for _ in range(plan.seats)], "bottom": [], "fair": fair,
                 "commitment": plan.commitment}
        self._pending = p
        self.state = "dealing"
        total = len(p["order"])
        on_event({"type": "deal_started", "total": total, "fair": fair, "commitment": p["commitment"]})
        while p["next"] < total:
            if self._stop.is_set():
                self.state = "paused"
                self._pause.expect()
                on_event({"type": "paused", "reason": "estop", "message": "Emergency stop. Make the table safe, "
                          "then resume.", "message_zh": "急停。确认安全后继续。"})
                if self._pause.attend() == "void":
                    self._pending, self.state = None, "ready"
                    raise DealInterrupted("voided by the operator", "操作员已作废本局", resumable=False)
                self._stop.clear()
                self.state = "dealing"
                on_event({"type": "resumed"})
            k = p["next"]
            seat = p["order"][k]
            (p["bottom"] if seat == BOTTOM else p["hands"][seat]).append(p["cards"][k])
            p["next"] = k + 1
            on_event({"type": "card_dealt", "index": k, "seat": None if seat == BOTTOM else seat, "total": total})
            if self.card_delay:
                time.sleep(self.card_delay)
        self._pending = None
        self.state = "ready"
        return DealtHand(hands=p["hands"], bottom=p["bottom"],
                          extra={"deal": {"source": "software", "fair": fair, "first_seat": first_seat}})

    def estop(self) -> None:
        self._stop.set()

    def clear_fault(self) -> None:
        if not self.waiting:
            self._stop.clear()

    def after_hand(self, round_id: int) -> dict[str, Any] | None:
        return None

    def status(self) -> dict[str, Any]:
        return {"rig": "software", "state": self.state, "estop": self._stop.is_set(), "waiting": self.waiting}

    def decks(self) -> dict[str, Any]:
        return {"reads": False, "current": None, "available": []}  # no camera reads these cards

    def use_deck(self, name: str | None) -> None:
        raise NoReader("this table deals without a camera: there is no card reader to give a deck")

    def close(self) -> None:
        self._stop.set()
        if self.waiting:
            self.resolve("void")


class RigDealSource:
    """:class:`controller.deal.Dealer` on a rig: every card shuffled, read by the camera, dealt, and
    journaled. ``rig``, ``camera``, ``reader`` are the dealer's parts (see ``controller.deal``).

    >>> src = RigDealSource.open(serial="/dev/pts/5", camera_url="http://127.0.0.1:8081/stream.mjpg",
    ...                          journal=journal, config=cfg)                           # doctest: +SKIP
    """

    def __init__(self, rig: Rig, camera: Camera, reader: CardReader, journal: Any, *, config: Any = None,
                 panel: Any = None, frames_per_read: int | None = None, owned: tuple[Any, ...] = (),
                 load_deck: Callable[[int, bool], Any] | None = None, virtual_board: Any = None):
        from controller.deal import Dealer

        self.rig, self.camera, self.reader, self.journal = rig, camera, reader, journal
        self.operator = EventOperator()
        options = {} if frames_per_read is None else {"frames_per_read": frames_per_read}
        # voice=None: the table service announces the first player itself (display + voice queue)
        self.dealer = Dealer(rig, camera, reader, journal, config=config, voice=None, panel=panel,
                             operator=self.operator, **options)
        self._owned = owned
        self.data_dir = Path(config.data_dir).expanduser() if config is not None else None
        self.deck = getattr(config, "deck", None) or None  # the enrolled deck the reader uses (None: the models)
        self.load_deck = load_deck  # the virtual rig's operator puts the game's deck in (a person does, at a table)
        self.virtual_board = virtual_board  # the virtual rig's table (its cards), checked before a resume
        self._estop = False
        self.state = "ready"
        self._status_lock = threading.Lock()
        self._status_cache: tuple[float, dict[str, Any]] = (-1e9, {})

    @classmethod
    def open(cls, *, serial: str, camera_url: str, journal: Any, config: Any, panel: Any = None,
             frames_per_read: int | None = None, load_deck: Callable[[int, bool], Any] | None = None,
             virtual_board: Any = None) -> RigDealSource:
        """Connect to the rig on ``serial`` and the camera at ``camera_url``; load the card reader."""
        from controller.camera import open_camera
        from firmware_bridge import Rig
        from vision.reader import CardReader

        reader = CardReader(threads=1)  # first: the part most likely missing, before anything opens
        if config.deck:  # the table's own deck (a deck that is not enrolled stops the start, in one line)
            from vision.enroll import DeckRefs

            reader.use_deck(DeckRefs.load(config.data_dir, config.deck))
        rig = Rig(serial, angles=list(config.servo_angles), bottom_angle=config.bottom_angle)
        try:
            rig.connect()
            camera = open_camera(camera_url, exposure_us=config.camera_exposure_us)
        except Exception:
            rig.close()
            raise
        return cls(rig, camera, reader, journal, config=config, panel=panel, frames_per_read=frames_per_read,
                   owned=(camera, rig), load_deck=load_deck, virtual_board=virtual_board)

    @property
    def waiting(self) -> bool:
        return self.operator.waiting

    def resolve(self, answer: str) -> None:
        self.operator.resolve(answer)

    def deal(self, *, round_id: int, game: str, first_seat: int, fair: bool, preset: str | None,
             rules: dict[str, Any] | None, on_event: OnEvent, resume: bool = False, seed: bytes | None = None,
             contributions: dict[int, str] | None = None) -> DealtHand:
        self.state = "dealing"
        try:
            if resume:
                self._check_virtual_deck(round_id)
                result = self.dealer.resume(round_id, on_event=on_event)
            else:
                if self.load_deck is not None:
                    deck = game_counts(game, preset, rules)[0].deck
                    self.load_deck(deck.decks, deck.jokers)
                # the camera log says what read the cards: an enrolled deck's references, or the models alone
                self.journal.append(round_id, "reader", {"deck": self.deck})
                result = self.dealer.run(game, first_seat=first_seat, fair=fair, preset=preset, rules=rules,
                                         on_event=on_event, round_=round_id, seed=seed,
                                         contributions=contributions)
        except DealInterrupted:
            raise
        except Exception as exc:  # the rig or the camera failed beyond the dealer's own recovery
            raise DealInterrupted(f"the rig stopped: {exc}", f"发牌机故障：{exc}", resumable=True) from exc
        finally:
            self.state = "ready"
        if result.status != "done" or result.record is None:
            raise DealInterrupted(result.message or f"the deal ended: {result.status}",
                                  result.message_zh or "发牌未完成", resumable=False)
        rec = result.record
        extra = {k: v for k, v in rec.items() if k not in ("game", "hands", "bottom", "events", "preset", "rules")}
        return DealtHand(hands=[[parse_card(c) for c in h] for h in rec["hands"]],
                          bottom=[parse_card(c) for c in rec.get("bottom", [])],
                          first_player=result.first_player.seat if result.first_player else None, extra=extra)

    def _check_virtual_deck(self, round_id: int) -> None:
        """Before resuming on the virtual rig: are the cards at its table the ones the journal dealt? A
        virtual rig started again (``kill -9`` of ``serve --sim``) holds a fresh deck, not the hand in
        play: say so now, not at the end of the deal."""
        if self.virtual_board is None:
            return
        problem = virtual_deck_problem(self.journal, round_id, self.virtual_board)
        if problem is not None:
            raise DealInterrupted(*problem, resumable=False)

    def estop(self) -> None:
        self._estop = True
        self.dealer.estop()

    def clear_fault(self) -> None:
        self._estop = False
        if not self.waiting:
            try:
                self.rig.clear_fault()
            except Exception:  # a rig that is not latched has nothing to clear
                pass

    def after_hand(self, round_id: int) -> dict[str, Any] | None:
        """The hand is over: reveal the fair deal's seed (the proof goes into the record)."""
        try:
            return self.dealer.reveal(round_id)
        except Exception:
            return None

    def status(self) -> dict[str, Any]:
        """The rig's state; the microcontroller is asked at most once a second (health is public)."""
        with self._status_lock:
            t, mcu = self._status_cache
            if time.monotonic() - t > STATUS_MAX_AGE_S:
                try:
                    rig = dict(self.rig.status())
                except Exception as exc:
                    rig = {"error": str(exc)}
                mcu = {k: v for k, v in rig.items() if isinstance(v, (int, float, str, bool, type(None)))}
                self._status_cache = (time.monotonic(), mcu)
        return {"rig": "serial", "state": self.state, "estop": self._estop, "waiting": self.waiting, "mcu": mcu}

    def decks(self) -> dict[str, Any]:
        """The enrolled decks (vision.enroll) and the one the reader uses (None: the models alone)."""
        from vision.enroll import known_decks

        return {"reads": True, "current": self.deck,
                "available": known_decks(self.data_dir) if self.data_dir is not None else []}

    def use_deck(self, name: str | None) -> None:
        """Read the next deals with the enrolled deck ``name`` (None: the models alone); EnrolError
        (DeckNotFound) if it is not enrolled or another model made it, the reader unchanged."""
        from vision.enroll import DeckNotFound, DeckRefs

        if name is not None and self.data_dir is None:
            raise DeckNotFound(f"no deck named {name!r} is enrolled (this table has no data directory)")
        self.reader.use_deck(None if name is None else DeckRefs.load(self.data_dir, name))
        self.deck = name

    def close(self) -> None:
        if self.waiting:
            self.resolve("void")
        self.dealer.close()
        for part in self._owned:
            try:
                part.close()
            except Exception:
                pass


FRESH_DECK = ("The virtual rig started again with a fresh deck: the cards dealt before the restart are not at its "
              "table, so this deal cannot go on. It is voided; deal again.",
              "虚拟发牌机重启后换了一副新牌，重启前发出的牌已不在桌上，无法继续发牌。本局作废，请重新发牌。")


def virtual_deck_problem(journal: Any, round_id: int, board: Any) -> tuple[str, str] | None:
    """Why the virtual rig's table cannot be the journal's deal of ``round_id`` (English, Chinese), or
    None. It must have dealt at least the cards the journal saw dealt, mostly the same ones (the camera
    may have misread one), and hold the plan's count in all; a card in flight at the crash may be dealt
    on the table but not journaled yet."""
    from controller.deal.state import DealState

    state = DealState.from_journal(journal, round_id)
    with board.lock:
        hopper, dealt = list(board.hopper), [card for card, _where in board.places]
    seen = Counter(str(r["label"]) for i, r in state.reads.items() if i in state.dealt and r.get("label"))
    missing = sum((seen - Counter(dealt)).values())   # a misread or two is the decoder's business, not this
    if len(dealt) < len(state.dealt) or len(hopper) + len(dealt) != state.plan.total or missing > len(seen) // 4:
        return FRESH_DECK
    return None
