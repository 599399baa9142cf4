"""The service glue: the table camera referees the plays of the current hand.

A thread reads the table camera's frames; each settled picture goes to the :class:`PlayTracker`. Cards
added are read (``vision.play_read.read_play``) against the legal plays of the seat whose turn it is and,
when read, refereed as that seat's play (``TableService.act``). A reading that is None, or a play the
referee refuses, is never applied: the table is told (display, operator page) and the seat is asked
to confirm the reading or tap the cards it played (its next play, or :meth:`TableWatcher.confirm`).
Each play's picture and the crops of its indices go into the journal (``table_play`` rows).

On the virtual rig the virtual players are the bots: their plays are thrown onto the virtual table
(:meth:`throw`), a finished trick is gathered, and a bot asked about its play taps what it threw.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from controller.camera import CameraError
from controller.table_camera.settle import Settler, reaches_in
from controller.table_camera.tracker import Change, PlayTracker
from controller.text import table_camera_words

log = logging.getLogger("hongsi.table_camera")
KIND = "table_play"  # the journal row of a play seen by the table camera
AREA = (640, 480)  # the play area is warped to this size when its corners are known
STALL = 3.0  # seconds without a frame: the camera has stopped
CROP = 1.25  # an index's crop, around its box
# A settled picture with an arm reaching in is not read: a hand resting on the cards it threw hides some. It
# waits for the picture to move; after this long the seat to play is asked (a hand, or a card across the
# edge, that stays), and the camera still reads the play once the hand goes. (Read after HOLD instead, the
# picture with the hand became the next play's "before": when the hand went, the next seat was asked about
# a play it never made; an outside audit. Only told, a card left across the edge stalled the hand.)
HOLD = 2.5


@dataclass
class Ask:
    """A play the camera saw and did not apply: the seat confirms or corrects it."""

    round: int
    seat: int
    code: str  # why: unread, illegal, no_hand, two_plays, covered
    change: Change
    cards: list[str] | None  # the reading to confirm (public once played), or None
    frame: bytes
    crops: list[str] = field(default_factory=list)
    boxes: list[dict[str, Any]] = field(default_factory=list)


class TableWatcher:
    """Watches ``camera`` (a ``controller.camera.Camera``) for ``service`` (a ``TableService``).
    ``virtual``: the virtual table (``firmware_bridge.sim.table_camera.VirtualTable``) whose virtual
    players are the bots; ``corners``: the play area's four corners in the camera's picture."""

    def __init__(
        self,
        service: Any,
        camera: Any,
        *,
        virtual: Any = None,
        corners: list | None = None,
        settle_frames: int = 4,
        pass_after: float = 0.0,
        reader: Any = None,
        stall: float = STALL,
    ):
        self.svc, self.camera, self.virtual = service, camera, virtual
        self.warp = _warp(corners)
        self.settler = Settler(settle_frames)
        self.tracker = PlayTracker()
        self.pass_after = pass_after
        self.reader = reader
        self.stall = stall
        self.lock = threading.RLock()
        self.ask: Ask | None = None
        self.problem: str | None = None  # a message code the table is told (camera stopped, ...)
        self.round_id: int | None = None
        self.need_empty = True  # the next settled picture is the empty play area of a new hand
        self.held: float | None = None  # since when the settled picture has had an arm reaching in
        self.thrown: dict[
            int, dict[str, Any]
        ] = {}  # seat -> the play a virtual player threw, not yet applied
        self.stats: dict[str, Any] = {"read": 0, "asked": 0, "held": 0, "verdict_ms": [], "why": Counter()}
        from vision.play_read import CardSize

        self.card_size = CardSize()  # a card's size on this table, learnt from plays that were one card
        self.hands: dict[int, Any] = {}  # round -> its cards as dealt (table_camera.hand.Dealt or None)
        self.turn_since = (None, 0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-camera", daemon=True)
        service.hub.add_listener(self._heard)

    def start(self) -> TableWatcher:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.camera.close()

    def status(self) -> dict[str, Any]:
        with self.lock:
            ask = self.ask
            words = table_camera_words(self.problem, None) if self.problem else None
            return {
                "state": "problem" if self.problem else "ok",
                "problem": self.problem,
                # the operator page's words for it (the event that told of it may be long gone)
                "message": words and words[1], "message_zh": words and words[0],
                "ask": None if ask is None else {"round": ask.round, "seat": ask.seat, "code": ask.code},
            }

    # ------------------------------------------------------------------ the virtual players
    def busy(self) -> bool:
        """Whether the bots must wait: a throw is still landing, or the new hand's empty table unseen."""
        if self.virtual is None:
            return False
        with self.lock:
            return bool(self.thrown) or self.need_empty or self.virtual.moving()

    def throw(self, rnd: Any, action: dict[str, Any]) -> bool:
        """A bot's play goes onto the virtual table instead of to the referee (True: taken)."""
        if self.virtual is None or action.get("action") != "play" or not action.get("cards"):
            return False
        with self.lock:
            self.thrown[int(action["seat"])] = dict(action)
        self.virtual.throw(action["seat"], action["cards"])
        return True

    # ------------------------------------------------------------------ frames
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frames = self.camera.grab(1, timeout=self.stall)
            except CameraError:
                self._tell_problem("stopped")
                self.settler.reset()
                continue
            except Exception:
                log.exception("table camera failed")
                time.sleep(0.5)
                continue
            if self.problem == "stopped":
                self._tell_problem(None)
            picture = (
                frames[0].image
                if self.warp is None
                else cv2.warpPerspective(frames[0].image, self.warp, AREA)
            )
            try:
                self._new_hand()
                if self.settler.feed(picture):
                    self._settled(picture, frames[0].t)
                elif not self.settler.still:
                    self.held = None  # it moved: the next settled picture is the one to read
                elif self.held is not None and time.monotonic() - self.held > HOLD and self.ask is None:
                    self._covered(picture)
                self._timeout_pass()
            except Exception:
                log.exception("table camera: a picture could not be handled")

    def _new_hand(self) -> None:
        """A new hand started playing: the virtual players gather the last hand's cards first."""
        cur = self.svc.current
        if cur is None or cur.phase != "playing" or cur.id == self.round_id:
            return
        with self.lock:
            self.round_id, self.need_empty, self.ask, self.thrown = cur.id, True, None, {}
            self.held = None
            self.hands = {}
        if self.virtual is not None:
            self.virtual.clear()
            self.virtual.idle()
        self.settler.reset()

    def _settled(self, picture: np.ndarray, t: float) -> None:
        rnd = self.svc.current
        if rnd is None or rnd.id != self.round_id or rnd.phase != "playing":
            return
        if self.need_empty:
            self.tracker.start(picture)
            with self.lock:
                self.need_empty = False
            self.svc._kick()
            return
        before = self.tracker.before
        if before is not None and reaches_in(before, picture):
            self.held = time.monotonic()  # wait for the hand to go
            self.stats["held"] += 1
            return
        change = self.tracker.settled(picture)
        if change is None or change.kind != "play":
            return
        self._read(rnd, change, t)

    def _covered(self, picture: np.ndarray) -> None:
        """An arm (or a card) across the play area's edge stayed :data:`HOLD` seconds: the seat to play is
        asked, with the picture. Nothing is read from it."""
        rnd = self.svc.current
        if rnd is None or rnd.id != self.round_id or rnd.phase != "playing":
            return
        with rnd.lock:
            state = rnd.state
            seat = _to_play(state)
        change = self.tracker.settled(picture)
        if seat is None or change is None or change.kind != "play":
            return
        self._ask(rnd, seat, "covered", change, None, _jpeg(picture), [], [])

    def _read(self, rnd: Any, change: Change, t: float) -> None:
        from vision.play_read import read_play

        with rnd.lock:
            state = rnd.state
            seat = _to_play(state)
            options = (
                [
                    list(a["cards"])
                    for a in state.legal_actions(seat)
                    if a.get("action") == "play" and a.get("cards")
                ]
                if seat is not None
                else []
            )
            own = list(rnd.seat_view(seat)["hand"]) if seat is not None else []
            played = [
                c
                for ev, ok in zip(rnd.events, rnd.applied, strict=True)
                if ok and ev.get("action") == "play"
                for c in ev.get("cards") or []
            ]
        if seat is None:
            self._tell_problem("no_turn")
            return
        t_read = time.monotonic()
        read = read_play(change.before, change.after, options, reader=self.reader, card=self.card_size.card,
                         refs=self._hand(rnd.id, seat))
        log.info(
            "seat %s: read %s in %.0f ms (%d options) %s",
            seat,
            read.labels,
            1000 * (time.monotonic() - t_read),
            len(options),
            read.why,
        )
        frame = _jpeg(change.after)
        crops = [self.svc.journal.store_image(_jpeg(_crop(change.after, b["box"]))) for b in read.boxes]
        if read.labels is None:
            self.stats["why"][read.why] += 1  # for the benchmarks: what the reader could not answer
            self._ask(rnd, seat, _why(read, own, played), change, None, frame, crops, read.boxes)
            return
        action = {"seat": seat, "action": "play", "cards": list(read.labels)}
        with self.lock:  # read now (the hand went): an ask about the covered picture is withdrawn
            withdrawn = self.ask is not None and self.ask.seat == seat and self.ask.code == "covered"
            if withdrawn:
                self.ask = None
        if withdrawn:
            self.svc.hub.publish({"type": "table_camera", "round": rnd.id, "state": "answered", "seat": seat})
        try:
            out = self.svc.act(rnd.id, action)
        except Exception as exc:  # the round paused or ended meanwhile: nothing applied, the seat asked
            log.info("table camera: play not refereed: %s", exc)
            out = {"applied": False, "index": None}
        ms = round((time.monotonic() - t) * 1000)  # from the settled frame's arrival to the verdict
        self.stats["verdict_ms"].append(ms)
        if not out["applied"]:
            self._ask(rnd, seat, "illegal", change, list(read.labels), frame, crops, read.boxes)
            return
        self.stats["read"] += 1
        self.card_size.learn(read.change, [read.labels])  # applied: the play is known
        self.tracker.taken(change)
        self._journal(
            rnd.id,
            seat,
            out["index"],
            "applied",
            list(read.labels),
            read.confidence,
            frame,
            crops,
            read.boxes,
            ms,
        )
        self._tell_problem(None)

    def _hand(self, rid: int, seat: int) -> Any:
        """The seat's hand as the dealer camera saw it, among every card dealt (built once per hand), or None."""
        from controller.table_camera.hand import dealt_refs

        if rid not in self.hands:
            self.hands[rid] = dealt_refs(self.svc.journal, rid, self.reader)
        dealt = self.hands[rid]
        return None if dealt is None else dealt.seat(seat)

    # ------------------------------------------------------------------ asking the seat
    def _ask(
        self,
        rnd: Any,
        seat: int,
        code: str,
        change: Change,
        cards: list[str] | None,
        frame: bytes,
        crops: list[str],
        boxes: list,
    ) -> None:
        with self.lock:
            self.ask = Ask(rnd.id, seat, code, change, cards, frame, crops, boxes)
            self.stats["asked"] += 1
        words = table_camera_words(code, seat)
        self.svc.journal.append(
            rnd.id, KIND, {"seat": seat, "verdict": "asked", "code": code, "crops": crops}, image=frame
        )
        self.svc.hub.publish(
            {
                "type": "table_camera",
                "round": rnd.id,
                "state": "ask",
                "seat": seat,
                "code": code,
                "message": words[1],
                "message_zh": words[0],
            }
        )
        self.svc.voice.say(*words)
        thrown = self.thrown.get(seat)
        if thrown is not None and seat in rnd.bots:  # a virtual player taps the cards it threw
            threading.Thread(target=self._tap, args=(rnd.id, thrown, code), daemon=True).start()

    def _tap(self, rid: int, action: dict[str, Any], code: str) -> None:
        time.sleep(0.2)
        if code == "covered" and self.virtual is not None:
            # as a person would: take the hand away first, and tap only if the camera still cannot read it
            self.virtual.idle(timeout=10.0)
            time.sleep(1.5)
            with self.lock:
                ask = self.ask
            if ask is None or ask.round != rid or ask.seat != action.get("seat"):
                return
        try:
            self.svc.act(rid, action)
        except Exception as exc:
            log.info("virtual player's tap refused: %s", exc)

    def pending(self, rid: int, seat: int) -> dict[str, Any] | None:
        """What ``seat`` is asked about its play now (its own page), or None."""
        with self.lock:
            ask = self.ask
        if ask is None or ask.round != rid or ask.seat != seat:
            return None
        words = table_camera_words(ask.code, seat)
        return {"code": ask.code, "cards": ask.cards, "message": words[1], "message_zh": words[0]}

    def confirm(self, rid: int, seat: int) -> dict[str, Any]:
        """``seat`` confirms the camera's reading of its play: refereed as if tapped."""
        with self.lock:
            ask = self.ask
        if ask is None or ask.round != rid or ask.seat != seat or not ask.cards:
            raise LookupError("no reading of this seat's play waits to be confirmed; tap the cards played")
        return self.svc.act(rid, {"seat": seat, "action": "play", "cards": list(ask.cards)})

    def _heard(self, event: dict[str, Any]) -> None:
        """Every public event (in the publisher's thread, maybe under the round's lock): an applied play
        answers an ask, lands a virtual player's throw, and a finished trick is gathered."""
        if event.get("type") != "action" or not event.get("applied"):
            return
        if event.get("action") == "pass":
            self._passed(event.get("round"), event.get("seat"))
            return
        if event.get("action") != "play":
            return
        seat, rid = event.get("seat"), event.get("round")
        with self.lock:
            self.thrown.pop(seat, None)
            ask = self.ask
            answered = ask is not None and ask.round == rid and ask.seat == seat
            if answered:
                self.ask = None
        if answered:
            self.tracker.taken(ask.change)
            cards = list(event.get("cards") or [])
            if len(cards) == 1:  # the seat says it was one card: what changed is a card's size
                from vision.play_read import change_shape

                self.card_size.learn(change_shape(ask.change.before, ask.change.after), [cards])
            verdict = (
                "confirmed" if ask.cards and list(event.get("cards") or []) == ask.cards else "corrected"
            )
            self._journal(
                rid,
                seat,
                event.get("index"),
                verdict,
                event.get("cards"),
                None,
                ask.frame,
                ask.crops,
                ask.boxes,
                None,
            )
            self.svc.hub.publish({"type": "table_camera", "round": rid, "state": "answered", "seat": seat})
        rnd = self.svc.current
        if self.virtual is not None and rnd is not None and rnd.game.info.trick_taking:
            plays = [e for e in (event.get("trick") or []) if e.get("action") == "play"]
            if len(plays) >= rnd.plan.seats:
                self.virtual.clear()

    def _passed(self, rid: Any, seat: Any) -> None:
        """The seat asked about a play passed: what the camera saw was not its play (an audit: the ask
        stayed, held off the timeout pass, and went into the journal beside the seat's next play). The
        picture is taken as it is, so it is not asked about again."""
        with self.lock:
            ask = self.ask
            if ask is None or ask.round != rid or ask.seat != seat:
                return
            self.ask = None
        self.tracker.taken(ask.change)
        self.svc.hub.publish({"type": "table_camera", "round": rid, "state": "answered", "seat": seat})

    def _journal(
        self,
        rid: int,
        seat: int,
        index: Any,
        verdict: str,
        cards: Any,
        confidence: float | None,
        frame: bytes,
        crops: list[str],
        boxes: list,
        ms: int | None,
    ) -> None:
        self.svc.journal.append(
            rid,
            KIND,
            {
                "seat": seat,
                "index": index,
                "verdict": verdict,
                "cards": cards,
                "confidence": confidence,
                "boxes": boxes,
                "crops": crops,
                "ms": ms,
            },
            image=frame,
        )

    def _tell_problem(self, code: str | None) -> None:
        """A bad picture or a stopped camera: the display and the operator page say it (once)."""
        with self.lock:
            if code == self.problem:
                return
            self.problem = code
        cur = self.svc.current
        if code is None:
            self.svc.hub.publish({"type": "table_camera", "round": cur.id if cur else None, "state": "ok"})
            return
        words = table_camera_words(code, None)
        self.svc.hub.publish(
            {
                "type": "table_camera",
                "round": cur.id if cur else None,
                "state": "problem",
                "code": code,
                "message": words[1],
                "message_zh": words[0],
            }
        )

    def _timeout_pass(self) -> None:
        """A seat that may pass and plays nothing for ``pass_after`` seconds passes."""
        rnd = self.svc.current
        if not self.pass_after or rnd is None or rnd.phase != "playing" or self.ask is not None:
            return
        with rnd.lock:
            state = rnd.state
            seat = _to_play(state)
            key = (rnd.id, len(rnd.events))
            may = seat is not None and {"seat": seat, "action": "pass"} in state.legal_actions(seat)
        if key != self.turn_since[0]:
            self.turn_since = (key, time.monotonic())
            return
        quiet = self.tracker.pending is None and self.held is None and self.settler.still  # no throw under way
        if may and quiet and time.monotonic() - self.turn_since[1] > self.pass_after:
            self.svc.act(rnd.id, {"seat": seat, "action": "pass"})


def _to_play(state: Any) -> int | None:
    """The seat whose turn it is, or None (no state yet, the hand over)."""
    return state.current_player() if state is not None and not state.is_terminal() else None


def _why(read: Any, own: list[str], played: list[str]) -> str:
    """Why a play was not read, told to the whole table: so it is worked out from the seat's own hand and the
    cards already played (public), never from where a card it is not hides (another hand, the bottom)."""
    labels = [b["label"] for b in read.boxes if b["confidence"] >= 0.8]  # not a pip read as some card
    if not labels or all(c in own for c in labels):
        return "unread"
    if any(c in played and c not in own for c in labels):
        return "no_hand"  # a card already played: in nobody's hand
    return "two_plays" if any(c in own for c in labels) else "unread"


def _warp(corners: list | None) -> np.ndarray | None:
    if not corners:
        return None
    src = np.array(corners, np.float32).reshape(4, 2)
    W, H = AREA
    return cv2.getPerspectiveTransform(src, np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32))


def _jpeg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def _crop(image: np.ndarray, box: list[float]) -> np.ndarray:
    x0, y0, x1, y1 = box
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, CROP * max(x1 - x0, y1 - y0) / 2
    H, W = image.shape[:2]
    xa, ya, xb, yb = int(max(0, cx - r)), int(max(0, cy - r)), int(min(W, cx + r)), int(min(H, cy + r))
    return image[ya:yb, xa:xb] if xb > xa and yb > ya else image
