"""The referee view: the one way the operator sees a live hand's hidden cards, and never in secret.

While a hand is live the operator sees the journal without its hidden cards (``controller.redact``),
no camera crop of it, no seat's hand and no record. A dispute that needs them opens the referee view
of that round (``POST /api/rounds/{id}/referee_view``, or implicitly by reading a seat's hand or the
record): the whole table is told (a public ``referee_view`` event, the display's caption and the
voice, in English and Chinese) and the journal records it (a ``referee_view`` row). From then on the
operator sees that round whole; the view stays open for the rest of the hand.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from typing import Any

from controller.redact import OVER_KINDS, REFEREE_KIND
from controller.text import seat_en, seat_zh

LIVE_PHASES = ("dealing", "interrupted", "playing")   # a round whose hand is still secret
JOURNAL_OVER = ("done", "void", "stopped")             # a journal's round whose hand is no secret any more
# the service's own reasons, in Chinese (an operator's own words are shown as written)
REASONS_ZH = {"a dispute": "有争议", "reading a seat's hand": "查看座位手牌", "read the record": "查看牌局记录",
              "replay a hand": "回放本局"}


def is_open(journal: Any, rid: int) -> bool:
    """Whether the operator may see round ``rid`` whole: its hand is over, or its referee view is open."""
    return any(r.kind in OVER_KINDS or r.kind == REFEREE_KIND for r in journal.rows(rid))


def image_rounds(journal: Any, digest: str) -> set[int]:
    """The rounds whose rows name image ``digest``: a row's own picture, or a crop the table camera
    stored beside its ``table_play`` row (named in its data). The crops are searched in SQL, on a
    read-only connection: reading every ``table_play`` row took about 1 s a request at 20,000 rows."""
    with closing(sqlite3.connect(f"file:{journal.path}?mode=ro", uri=True)) as db:
        named = {r for (r,) in db.execute("SELECT DISTINCT round FROM journal WHERE kind = 'table_play' "
                                          "AND instr(data, ?) > 0", (digest,))}
    return set(journal.image_rounds(digest)) | named


def words(reason: str, seat: int | None = None) -> tuple[str, str]:
    """What the table is told (English, Chinese)."""
    if seat is not None:
        return (f"Referee view: the operator is looking at {seat_en(seat)}'s hand ({reason}).",
                f"裁判查看：操作员正在查看{seat_zh(seat)}位的手牌（{REASONS_ZH.get(reason, reason)}）。")
    return (f"Referee view: the operator is looking at this hand's hidden cards ({reason}).",
            f"裁判查看：操作员正在查看本局的暗牌（{REASONS_ZH.get(reason, reason)}）。")


def is_live(svc: Any, rid: int) -> bool:
    """Whether round ``rid``'s hand is still secret: a round the service holds, by its phase; else one only
    the journal holds (a CLI deal played at the table unrefereed, a hand an earlier run left), by its status."""
    if rid in svc.rounds or not svc.journal.rows(rid):
        rnd = svc.get_round(rid)                 # 404 for no such round
        with rnd.lock:
            return rnd.phase in LIVE_PHASES
    return svc.journal.status(rid) not in JOURNAL_OVER


def open_view(svc: Any, rid: int, reason: str, seat: int | None = None) -> dict[str, Any]:
    """Open round ``rid``'s referee view (once): journal it, tell the table. Returns the view's state."""
    live = is_live(svc, rid)                     # 404 for no such round
    with svc._lock:                              # two requests at once open it once
        if not live or is_open(svc.journal, rid):
            return {"round": rid, "open": True, "announced": False}
        en, zh = words(reason, seat)
        svc.journal.append(rid, REFEREE_KIND, {"reason": reason, "seat": seat, "message": en, "message_zh": zh})
    svc.hub.publish({"type": "referee_view", "round": rid, "seat": seat, "message": en, "message_zh": zh})
    svc.voice.say(zh, en)
    return {"round": rid, "open": True, "announced": True}
