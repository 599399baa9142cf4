"""Issue 31, finding 10c: after ``kill -9`` of ``serve --sim`` the virtual rig starts again with a fresh
deck. Resuming the interrupted deal checks the virtual table against the journal's reads at once and
says so (the round is voided with one clear line) instead of dealing a different deck to the end."""

from __future__ import annotations

import pytest
from svc_helpers import rig_parts_missing, rig_service, wait_for

from controller.journal import Journal
from controller.service.deal import FRESH_DECK, DealInterrupted, RigDealSource, virtual_deck_problem
from firmware_bridge.sim.model import make_deck

pytestmark = [pytest.mark.slow, pytest.mark.skipif(rig_parts_missing() is not None,
                                                   reason=rig_parts_missing() or "")]
CUT = 10   # the journal as a kill -9 left it: ten cards dealt


def _journal_at_the_kill(svc, rid, path):
    """The round's rows up to its tenth card dealt, in a journal of their own (as if the process died)."""
    out = Journal(path)
    new = out.new_round({"game": "hongsi", "first_seat": 0, "fair_deal": True})
    ejected = 0
    for row in svc.journal.rows(rid)[1:]:
        image = svc.journal.image_path(row.image).read_bytes() if row.image else None
        out.append(new, row.kind, row.data, image=image)
        ejected += row.kind == "eject_done"
        if ejected == CUT:
            return out, new
    raise AssertionError("the deal never got that far")


def test_a_fresh_virtual_deck_is_named_at_resume(tmp_path):
    svc, vr = rig_service(tmp_path, speed=60)
    try:
        rnd = svc.start_round(game="hongsi", first_seat=0, bots=[])
        wait_for(lambda: rnd.dealt >= CUT + 2, timeout=60)
        svc.estop("test")                                   # the rig stands still while its table is set
        wait_for(lambda: svc.deal_source.waiting)
        journal, rid = _journal_at_the_kill(svc, rnd.id, tmp_path / "killed.db")
        # the table as it was at the kill: ten cards out, the rest in the hopper
        with vr.board.lock:
            cards = [c for c, _ in vr.board.places] + vr.board.hopper
            vr.board.places = vr.board.places[:CUT]
            vr.board.hopper = cards[CUT:]
        assert virtual_deck_problem(journal, rid, vr.board) is None
        # the virtual rig started again: a fresh deck in the hopper, nothing dealt
        vr.board.load(make_deck(1, False))
        assert virtual_deck_problem(journal, rid, vr.board) == FRESH_DECK
        src = svc.deal_source
        again = RigDealSource(src.rig, src.camera, src.reader, journal, virtual_board=vr.board)
        ejects = vr.board.ejects
        with pytest.raises(DealInterrupted) as got:
            again.deal(round_id=rid, game="hongsi", first_seat=0, fair=True, preset=None, rules=None,
                       on_event=lambda ev: None, resume=True)
        assert not got.value.resumable and "fresh deck" in str(got.value) and "新牌" in got.value.message_zh
        assert vr.board.ejects == ejects                    # said at once: not one card moved
        again.dealer.close()
        journal.close()
    finally:
        svc.close()
        vr.stop()
