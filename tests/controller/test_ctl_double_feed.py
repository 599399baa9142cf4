"""Double feeds: a card the camera never saw (it left together with the card before it) is never given a
guessed seat in a "done" record, an extra card taken along by the last eject stops the hand, and a crash
after any row of a double feed resumes with the true hands.

The deals run on the virtual rig in this process (its firmware behind a real pty, the MJPEG camera on
loopback, the ONNX reader, SQLite), so a test can force a double feed on a chosen eject and play the
person who checks the hands; the journal-level tests use the real decoding on journals the dealer's own
methods wrote.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from ctl_simrig import SPEED, Table, assert_equals_truth, start_deal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.deal import AutoOperator, Dealer, DealState
from controller.deal.problems import card_name
from controller.deal.state import card_seats
from controller.journal import ROW_KINDS, Journal
from controller.plan import BOTTOM, make_plan
from vision.labels import LABELS


@pytest.fixture(scope="module")
def reader():
    from vision.reader import CardReader

    return CardReader(threads=1)


# ---------------------------------------------------------------------------------------- the rig
class Crash(BaseException):
    """The process dies here (kill -9): nothing after this row is journaled, nothing is cleaned up."""


class CrashingJournal(Journal):
    """A journal whose process dies right after it appended the row ``crash_at(row)`` picks."""

    crash_at: Any = None

    def append(self, *args: Any, **kw: Any):
        row = super().append(*args, **kw)
        if self.crash_at is not None and self.crash_at(row):
            self.crash_at = None
            raise Crash(row)
        return row


@contextmanager
def rig_table(tmp_path, reader, seed: int, **kw: Any):
    from firmware_bridge.sim import VirtualRig

    vr = VirtualRig(seed=seed, speed=SPEED, **kw)
    ends = vr.start()
    table = Table(ends, tmp_path / "journal.db", reader)
    table.journal.close()
    table.journal = CrashingJournal(tmp_path / "journal.db", durable=False)
    try:
        yield vr, table
    finally:
        table.close()
        vr.stop()


def force_doubles(vr, at: set[int]):
    """An ``on_event`` that makes the eject of each card index in ``at`` take the next card along."""
    def on_event(ev: dict[str, Any]) -> None:
        if ev["type"] == "card_dealt" and ev["index"] + 1 in at:
            with vr.board.lock:
                vr.board.forced_doubles = 1
    return on_event


def hands_of(vr):
    """The person at the virtual table: makes each place hold the cards the pause names (swapping
    cards between those places), or hands the named card from one seat to another, as the message asks."""
    def place(problem: dict[str, Any]) -> str | None:
        if problem.get("find"):     # count the places; give each card found where one is too many
            return None if vr.board.find_unseen(problem["find"]) else "void"
        if problem.get("hand_over"):
            hand_over(vr, problem["hand_over"])
            return None
        want = {(k if k == "bottom" else int(k)): list(v) for k, v in problem["place"].items()}
        cards = Counter(c for v in want.values() for c in v)
        with vr.board.lock:
            spots = {w: [n for n, (c, where) in enumerate(vr.board.places) if where == w and c in cards]
                     for w in want}
            assert Counter(vr.board.places[n][0] for v in spots.values() for n in v) == cards, problem
            for w, names in want.items():
                assert len(spots[w]) == len(names), problem
                for n, card in zip(spots[w], names, strict=True):
                    vr.board.places[n] = (card, w)
        return None
    return place


def hand_over(vr, move: dict[str, Any]) -> None:
    """Take the named card out of one place's cards and give it to another."""
    def spot(where: str) -> int | str:
        return where if where == "bottom" else int(where)

    with vr.board.lock:
        n = next(n for n, (c, w) in enumerate(vr.board.places) if c == move["card"] and w == spot(move["from"]))
        vr.board.places[n] = (move["card"], spot(move["to"]))


def operator(vr, log: list[dict[str, Any]]):
    op = AutoOperator(place=hands_of(vr))
    inner = op.attend
    op.attend = lambda problem: (log.append(problem), inner(problem))[1]  # type: ignore[method-assign]
    return op


def deal(table, vr, op, at: set[int], **kw):
    dealer = table.dealer(operator=op)
    try:
        return dealer.run("hongsi", first_seat=0, fair=False, on_event=force_doubles(vr, at), **kw)
    finally:
        dealer.close()


def test_two_double_feeds_to_different_seats_are_checked_by_a_person_not_guessed(tmp_path, reader):
    with rig_table(tmp_path, reader, seed=41) as (vr, table):
        problems: list[dict[str, Any]] = []
        result = deal(table, vr, operator(vr, problems), at={9, 30})
        truth = vr.truth()
        kinds = [r.kind for r in table.journal.rows(result.round)]
        assert result.status == "done", result.message
        assert_equals_truth("hongsi", result.record, truth)
        assert kinds.count("double_feed") == 2 and "placed" in kinds
        pause = next(p for p in problems if p["reason"] == "double_feed")
        assert sorted(pause["cards"]) == [10, 31]          # the two unseen cards, by index
        assert len(pause["place"]) == 2                      # ... at two different seats
        for seat, cards in pause["place"].items():
            assert f"seat {int(seat) + 1} must hold {card_name(cards[0], 'en')}" in pause["message"]
            assert card_name(cards[0], "en")[0] in "♠♥♦♣" or "joker" in card_name(cards[0], "en")
        assert any("the operator made sure" in f for f in result.flags)
        named = [card_name(c, "en") for cs in pause["place"].values() for c in cs]
        assert not any(n in f for n in named for f in result.flags)     # flags go out in a public event
        assert result.record["deal"]["flags"] == result.flags
        assert table.journal.verify().ok


def test_double_feeds_and_nobody_to_check_the_hands_void_the_hand(tmp_path, reader):
    """Unattended (nobody can look at dealt cards): declined, never a guessed record."""
    with rig_table(tmp_path, reader, seed=44) as (vr, table):
        result = deal(table, vr, AutoOperator(), at={6, 23, 40})
        assert result.status == "void" and result.record is None and result.first_player is None
        assert "went past the camera unseen" in result.message
        rows = table.journal.rows(result.round)
        assert not any(r.kind in ("deal_end", "first_player") for r in rows)
        # the public event and the voice name no card (hands are secret); the operator's problem does
        # (on a loaded machine a slow exit can pause the deal as a jam first: the double feed's pause follows)
        pause = next(r for r in rows if r.kind == "pause" and r.data["reason"] == "double_feed")
        assert pause.data["place"]


def test_a_double_feed_on_the_last_eject_with_an_extra_card_stops_the_hand(tmp_path, reader):
    with rig_table(tmp_path, reader, seed=3, extra=["S5"]) as (vr, table):
        result = deal(table, vr, AutoOperator(), at={51})
        truth = vr.truth()
        assert len(truth["hands"][3]) == 14                  # the extra card really is at seat 4
        assert result.status == "stopped" and result.record is None and result.first_player is None
        assert any("too many went to seat 4 with card 52" in p for p in result.problems), result.problems
        assert any("seat 4 has 14 cards" in p for p in result.problems), result.problems
        assert "seat 4" in result.message and "多" in result.message_zh
        assert any("took a card too many along to seat 4" in f for f in result.flags)


def _seats_agree(rows, record, truth) -> None:
    """Every card read went to the seat ``card_seats`` says: a seen card's label is in that seat's real
    hand, and every seat's cards by ``card_seats`` (the unseen ones named by the record) are its hand."""
    reads = [r for r in rows if r.kind == "card_read"]
    seats = card_seats(rows)
    assert len(seats) == len(reads) and None not in seats
    for read, seat in zip(reads, seats, strict=True):
        assert read.data["seat"] is not None                    # every row says where its card goes
        if read.data["label"] is not None:
            assert read.data["label"] in truth["hands"][seat], (read.data, seat)
    counts = Counter(seats)
    assert [counts[s] for s in range(4)] == [len(h) for h in record["hands"]] == [13] * 4


def deal_watched(vr, table, attended: bool, on_event) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    """One hand, round robin from seat 1: the result, what the person was asked (attended: the simulated
    hands do it; unattended: it is only told), and every event."""
    asked: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    op = operator(vr, asked) if attended else AutoOperator(tell=asked.append)
    dealer = table.dealer(operator=op)
    try:
        result = dealer.run("hongsi", first_seat=0, fair=False, on_event=lambda ev: (events.append(ev), on_event(ev)))
    finally:
        dealer.close()
    return result, asked, events


def force_stacked(vr, at: set[int]):
    """An ``on_event`` that makes the eject after each card index in ``at`` throw two cards stacked flush:
    one card's pulse, so neither the firmware nor the dealer can tell from the beam."""
    def on_event(ev: dict[str, Any]) -> None:
        if ev["type"] == "card_dealt" and ev["index"] + 1 in at:
            with vr.board.lock:
                vr.board.forced_stacked = 1
    return on_event


@pytest.mark.parametrize("attended", [True, False])
def test_a_stacked_double_is_found_at_the_table_or_the_deal_stops_naming_the_card(tmp_path, reader, attended):
    """Card 9's eject throws card 10 stacked under it: one card's pulse. Every later read is of the card
    after, so the hopper runs out one card early and card 10 is missing by elimination. The table is
    asked to count its places (no card shown): the place with one too many holds it, and it goes to the
    last card's seat; the record is exact. Unattended, nobody can look: the deal stops naming the card."""
    with rig_table(tmp_path, reader, seed=21) as (vr, table):
        result, asked, events = deal_watched(vr, table, attended, force_stacked(vr, {9}))
        rows = table.journal.rows(result.round)
        assert vr.board.stacked == 1 and not any(r.kind == "double_feed" for r in rows)   # the beam saw one card
        ask = next(p for p in asked if p.get("find"))
        card = ask["find"]["cards"][0]
        assert ask["find"]["to"] == ["3"] and len(ask["find"]["cards"]) == 1        # round robin: card 52 is seat 4's
        assert card_name(card, "en") in ask["message"] and "seat 4" in ask["message"]
        assert card_name(card, "zh") in ask["message_zh"]
        paused = [e for e in events if e["type"] == "paused"]
        assert paused and not any(card_name(card, "en") in e["message"] or card in e["message"] for e in paused)
        if not attended:
            assert result.status == "stopped" and result.record is None
            assert card_name(card, "en") in result.message and "missing" in result.message
            return
        assert result.status == "done", result.message
        moved = next(r.data for r in rows if r.kind == "handed_over")
        assert (moved["index"], moved["from"], moved["to"], moved["card"]) == (51, None, 3, card)
        assert any("stacked" in f and "seat 4" in f for f in result.flags)
        assert not any(card in f or card_name(card, "en") in f for f in result.flags)   # flags are public
        truth = vr.truth()
        assert_equals_truth("hongsi", result.record, truth)
        _seats_agree(rows, result.record, truth)
        assert table.journal.verify().ok
        resumed = DealState.from_journal(table.journal, result.round)   # the journal alone knows it
        assert resumed.dealt[51] == 3 and resumed.is_unseen(51)


@pytest.mark.parametrize("attended", [True, False])
def test_a_double_feed_on_the_last_card_is_handed_over_and_the_deal_finishes_exact(tmp_path, reader, attended):
    """Card 51 takes card 52 (the last) along to its own seat, so no later card can even the counts
    out: card 52 is known by elimination, and so is its seat. The operator is asked to hand it over
    (the card named in English and Chinese; the public words name none), it is journaled, and the
    record holds every card where it must end up. Unattended, the instruction is printed all the same
    (``tell``) and the deal finishes, flagged as unconfirmed; the table then does as it was told."""
    with rig_table(tmp_path, reader, seed=12) as (vr, table):
        result, asked, events = deal_watched(vr, table, attended, force_doubles(vr, {50}))
        rows = table.journal.rows(result.round)
        assert result.status == "done", result.message
        moved = next(r.data for r in rows if r.kind == "handed_over")
        card = moved["card"]
        assert (moved["index"], moved["from"], moved["to"]) == (51, 2, 3)   # round robin: card 52 is seat 4's
        assert moved["by"] == ("operator" if attended else "nobody")
        ask = next(p for p in asked if p.get("hand_over"))
        assert f"Take {card_name(card, 'en')} out of seat 3's cards and give it to seat 4" in ask["message"]
        assert card_name(card, "zh") in ask["message_zh"] and "4号位" in ask["message_zh"]
        paused = [e for e in events if e["type"] == "paused"]
        assert paused and not any(card_name(card, "en") in e["message"] or card in e["message"] for e in paused)
        assert any(("handed it over to seat 4" if attended else "nobody confirmed") in f for f in result.flags)
        assert not any(card in f or card_name(card, "en") in f for f in result.flags)   # flags are public
        assert card in result.record["hands"][3]
        if not attended:                       # the people at the table do what the terminal said
            hand_over(vr, {"card": card, "from": "2", "to": "3"})
        truth = vr.truth()
        assert_equals_truth("hongsi", result.record, truth)
        _seats_agree(rows, result.record, truth)
        assert table.journal.verify().ok
        assert {r.kind for r in rows} - set(ROW_KINDS) == set()
        resumed = DealState.from_journal(table.journal, result.round)   # the journal alone knows it
        assert resumed.dealt[51] == 3 and not resumed.misplaced


def test_unattended_hongsi_deal_prints_the_hand_over_and_finishes(tmp_path):
    """``hongsi deal --unattended`` on the virtual rig, card 51 taking card 52 along: the terminal shows
    the instruction naming the card (en and zh), the journal keeps it, and the record puts the card
    at its seat, flagged as unconfirmed."""
    import json
    import threading

    from ctl_simrig import SPEED, start_deal

    from firmware_bridge.sim import VirtualRig

    vr = VirtualRig(seed=12, speed=SPEED)
    ends = vr.start()
    stop = threading.Event()

    def double_the_last() -> None:       # the moment card 51 (index 50) is the next eject
        while not stop.is_set():
            with vr.board.lock:
                if vr.board.ejects == 50:
                    vr.board.forced_doubles = 1
                    return
            time.sleep(0.0005)

    watcher = threading.Thread(target=double_the_last, daemon=True)
    watcher.start()
    try:
        proc = start_deal(ends, tmp_path / "journal.db", "--no-fair", "--first-seat", "0", "--frames", "1", "--json")
        out, err = proc.communicate(timeout=120)
    finally:
        stop.set()
        vr.stop()
    assert proc.returncode == 0, err[-2000:]
    record = json.loads(out)
    with Journal(tmp_path / "journal.db", readonly=True) as journal:
        moved = next(r.data for r in journal.rows() if r.kind == "handed_over")
    assert (moved["index"], moved["from"], moved["to"], moved["by"]) == (51, 2, 3, "nobody")
    assert f"Take {card_name(moved['card'], 'en')} out of seat 3's cards and give it to seat 4" in err
    assert f"请从3号位的牌中取出{card_name(moved['card'], 'zh')}交给4号位" in err
    assert moved["card"] in record["hands"][3] and any("nobody confirmed" in f for f in record["deal"]["flags"])


def crash_then_resume(vr, table, asked: list[dict[str, Any]], on_event) -> tuple[Any, list[Any]]:
    """Deal until the journal's ``crash_at`` row kills the process, then resume the round as a new
    process would (a new link to the rig); the result and the round's rows."""
    from firmware_bridge import Rig

    dealer = table.dealer(operator=operator(vr, asked))
    with pytest.raises(Crash):
        dealer.run("hongsi", first_seat=0, fair=False, on_event=on_event)
    dealer.close()
    round_ = table.journal.last_open_round()
    table.rig.close()                                  # the process is gone: so is its link
    time.sleep(0.3)
    table.rig = Rig(vr.ends["serial"], angles=table.cfg.servo_angles, bottom_angle=table.cfg.bottom_angle)
    table.rig.connect()
    dealer = table.dealer(operator=operator(vr, asked))
    try:
        result = dealer.resume(round_)
    finally:
        dealer.close()
    return result, table.journal.rows(round_)


def test_a_crash_while_the_operator_hands_the_last_card_over_resumes_to_the_same_hand_over(tmp_path, reader):
    """kill -9 while the deal waits for the hand-over (its pause journaled, the card not yet moved):
    resume asks for the same hand-over once, and the record equals the table."""
    with rig_table(tmp_path, reader, seed=13) as (vr, table):
        asked: list[dict[str, Any]] = []
        table.journal.crash_at = lambda row: row.kind == "pause" and bool(row.data.get("hand_over"))
        result, rows = crash_then_resume(vr, table, asked, force_doubles(vr, {50}))
        assert result.status == "done", result.message
        # the crash came before the person was asked; resume asks once (a loaded machine may add a rig pause)
        assert sum(bool(p.get("hand_over")) for p in asked) == 1, [(p["reason"], p["message"]) for p in asked]
        assert sum(r.kind == "handed_over" for r in rows) == 1
        assert_equals_truth("hongsi", result.record, vr.truth())
        _seats_agree(rows, result.record, vr.truth())


@pytest.mark.parametrize("after", ["pause", "handed_over", "card_read"])
def test_a_crash_while_a_stacked_card_is_found_resumes_to_the_true_hands(tmp_path, reader, after):
    """kill -9 after each row of the find (the ask, the card handed over, its unseen read): the table is
    asked once in all, and the record equals the table."""
    with rig_table(tmp_path, reader, seed=23) as (vr, table):
        asked: list[dict[str, Any]] = []
        table.journal.crash_at = lambda row: row.kind == after and (after != "pause" or bool(row.data.get("find"))) \
            and (after != "card_read" or bool(row.data.get("unseen")))
        result, rows = crash_then_resume(vr, table, asked, force_stacked(vr, {30}))
        assert result.status == "done", result.message
        assert sum(bool(p.get("find")) for p in asked) == 1   # a crash at the pause came before the ask
        assert sum(r.kind == "handed_over" for r in rows) == 1
        assert_equals_truth("hongsi", result.record, vr.truth())
        _seats_agree(rows, result.record, vr.truth())


# the rows of a double feed, in the order the dealer writes them (the rig reports it: DoubleFeed)
DOUBLE_FEED_ROWS = [
    ("fault", lambda d: d.get("kind") == "DoubleFeed"),
    ("eject_done", lambda d: d.get("double")),
    ("double_feed", lambda d: True),
    ("card_read", lambda d: d.get("unseen")),
    ("eject_done", lambda d: d.get("inferred") and not d.get("double")),
    ("mcu_baseline", lambda d: True),
]


def test_a_crash_after_any_row_of_a_double_feed_resumes_with_the_true_hands(tmp_path, reader):
    """One deal, six double feeds (to every seat), and the process dies right after a different row
    of each; every resume goes on from the journal alone (a fresh Rig link, a fresh Dealer)."""
    from firmware_bridge import Rig

    at = [3, 12, 21, 30, 39, 45]
    with rig_table(tmp_path, reader, seed=7) as (vr, table):
        problems: list[dict[str, Any]] = []
        crashes = list(zip(at, DOUBLE_FEED_ROWS, strict=True))
        seen: dict[str, int] = {}

        def crash_at(row) -> bool:
            """Crash after the chosen row of the double feed at card ``i`` (its eject_intent seen)."""
            if row.kind == "eject_intent":
                seen["intent"] = row.data["index"]
            i, (kind, test) = crashes[0]
            return seen.get("intent") == i and row.kind == kind and bool(test(row.data))

        table.journal.crash_at = crash_at
        dealer = table.dealer(operator=operator(vr, problems))
        on_event = force_doubles(vr, set(at))
        round_ = None
        result = None
        while result is None:
            try:
                if round_ is None:
                    round_ = table.journal.new_round({"game": "hongsi", "first_seat": 0, "fair_deal": False})
                    result = dealer.run("hongsi", first_seat=0, fair=False, on_event=on_event, round_=round_)
                else:
                    result = dealer.resume(round_, on_event=on_event)
            except Crash:
                dealer.close()
                crashes.pop(0)
                table.rig.close()                        # the process is gone: so is its link
                time.sleep(0.3)
                table.rig = Rig(vr.ends["serial"], angles=table.cfg.servo_angles,
                                bottom_angle=table.cfg.bottom_angle)
                table.rig.connect()
                dealer = table.dealer(operator=operator(vr, problems))
                if crashes:
                    table.journal.crash_at = crash_at
        dealer.close()
        rows = table.journal.rows(round_)
        assert result.status == "done", result.message
        assert_equals_truth("hongsi", result.record, vr.truth())
        assert not crashes, f"the deal ended before crashing after {crashes}"
        assert sum(r.kind == "resumed" for r in rows) == len(at)
        assert sum(r.kind == "double_feed" for r in rows) == len(at)
        assert sorted(r.data["index"] for r in rows if r.kind == "eject_done") == list(range(52))
        assert not any(p["reason"] != "double_feed" for p in problems), problems
        assert table.journal.verify().ok
        assert {r.kind for r in rows} - set(ROW_KINDS) == set()    # the one list of row kinds is whole


def test_resume_after_a_crash_during_the_shuffle_does_not_ask_the_operator(tmp_path, reader):
    """kill -9 while the shuffler runs: the firmware latches "host silent" (its failsafe); resume
    clears it and deals on, as after any other crash, instead of pausing for a person."""
    from firmware_bridge.sim import VirtualRig

    journal = tmp_path / "journal.db"
    vr = VirtualRig(seed=23, speed=10)     # a shuffle longer than the host-silence limit
    ends = vr.start()
    try:
        proc = start_deal(ends, journal, "--no-fair", "--first-seat", "0", "--frames", "1")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not vr.board.relay:
            time.sleep(0.002)                                 # the shuffler is running
        assert _has(journal, "shuffle_intent") and not _has(journal, "shuffle_done")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 10
        while vr.board.relay and time.monotonic() < deadline:
            time.sleep(0.01)                                  # the firmware notices the host is gone
        table = Table(ends, journal, reader)
        try:
            assert table.rig.status()["fault"] == "host silent"
            round_ = table.journal.last_open_round()
            problems: list[dict[str, Any]] = []
            dealer = table.dealer(operator=operator(vr, problems))
            try:
                result = dealer.resume(round_)
            finally:
                dealer.close()
            assert problems == [] and result.status == "done", (problems, result.message)
            assert_equals_truth("hongsi", result.record, vr.truth())
            kinds = [r.kind for r in table.journal.rows(round_)]
            assert "pause" not in kinds and kinds.index("fault") < kinds.index("shuffle_done")
        finally:
            table.close()
    finally:
        vr.stop()


def _has(journal, kind: str) -> bool:
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT 1 FROM journal WHERE kind=?", (kind,)).fetchone() is not None
        finally:
            db.close()
    except sqlite3.Error:
        return False


# ---------------------------------------------------------------------------------------- journal level
def _probs(label: str) -> list[float]:
    v = np.full(len(LABELS), 0.01 / (len(LABELS) - 1))
    v[LABELS.index(label)] = 0.99
    return v.tolist()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), unseen=st.sets(st.integers(1, 51), min_size=1, max_size=5),
       first=st.integers(0, 3), hands=st.booleans())
def test_decoding_never_records_a_guessed_seat_as_known(tmp_path_factory, seed, unseen, first, hands):
    """Any cards the camera never saw, at any seats: the deal ends "done" only with the true hands (after
    the person, if there is one, made the seats hold what the pause asked); else it is declined."""
    from controller.deal import DealVoided

    rng = np.random.default_rng(seed)
    plan = make_plan("hongsi", first_seat=first, fair=False)
    deck = [str(c) for c in plan.deck.cards()]
    rng.shuffle(deck)
    table = [[plan.order[i], card] for i, card in enumerate(deck)]   # where each card really lies
    j = Journal(tmp_path_factory.mktemp("j") / "journal.db", durable=False)
    r = j.new_round({"game": "hongsi"})
    j.append(r, "deal_plan", {"plan": plan.to_json(), "commitment": None})
    for i, card in enumerate(deck):
        read = ({"index": i, "label": None, "confidence": 0.0, "unsure": True, "probs": None, "unseen": True}
                if i in unseen else {"index": i, "label": card, "confidence": 0.99, "unsure": False,
                                     "probs": _probs(card)})
        j.append(r, "card_read", read)
        j.append(r, "eject_done", {"index": i, "seat": plan.order[i], "pulse_ms": 70.0})

    def place(problem):                    # the person swaps cards until each seat holds what is asked
        for where, cards in problem["place"].items():
            seat = BOTTOM if where == "bottom" else int(where)
            group = {c for cs in problem["place"].values() for c in cs}
            for card in cards:
                at = next(t for t in table if t[1] == card)
                if at[0] != seat:
                    other = next(t for t in table if t[0] == seat and t[1] in group and t[1] not in cards)
                    at[0], other[0] = other[0], at[0]

    dealer = Dealer(None, None, None, j, operator=AutoOperator(place=place if hands else None))
    try:
        result = dealer._finish(DealState.from_journal(j, r))
    except DealVoided:
        result = None
    truth = [sorted(c for s, c in table if s == seat) for seat in range(4)]
    spread = len({plan.order[g] for g in unseen}) > 1
    if result is None:
        assert spread and not hands            # declined only when a guess was the alternative
    else:
        assert result.status == "done", result.problems
        assert [sorted(h) for h in result.record["hands"]] == truth
        assert hands or not spread
    j.close()


class _FakeRig:
    """Just enough rig for the dealer's eject step: exit pulses, and a double feed on one eject."""

    def __init__(self, pulses, raises_at=None):
        self.pulses, self.raises_at, self.n = list(pulses), raises_at, 0

    def eject(self):
        from firmware_bridge import DoubleFeed
        from firmware_bridge.rig import EjectEvidence

        pulse, self.n = self.pulses[self.n], self.n + 1
        ev = EjectEvidence(pulse_ms=pulse, t=0.0, travel_ms=1.0, attempts=1, seat=None, angle=None,
                           double=self.n - 1 == self.raises_at, mcu_t_ms=0)
        if ev.double:
            raise DoubleFeed("two cards left together", ev)
        return ev

    def status(self):
        return {}

    def clear_fault(self):
        pass


@pytest.mark.parametrize("how", ["the rig reports it", "a long exit pulse"])
def test_every_prefix_of_a_double_feeds_rows_resumes_to_the_same_deal(tmp_path, how):
    """Cut the journal after each row of a double feed (kill -9 there): the state rebuilt from the
    journal, with the double feed's unwritten rows finished, is the state of the uncut deal."""
    plan = make_plan("hongsi", first_seat=0, fair=False)
    deck = [str(c) for c in plan.deck.cards()]
    k = 6                                             # card 7 takes card 8 along
    pulses = [70.0] * k + [70.0 if how == "the rig reports it" else 150.0]

    def deal_up_to_the_double(journal):
        j = journal.new_round({"game": "hongsi"}) if journal.rounds() == [] else 1
        journal.append(j, "deal_plan", {"plan": plan.to_json(), "commitment": None})
        state = DealState.from_journal(journal, j)
        dealer = Dealer(_FakeRig(pulses, raises_at=k if how == "the rig reports it" else None), None, None,
                        journal)
        for i in range(k + 1):
            dealer._record_read(state, {"index": i, "label": deck[i], "confidence": 0.99, "unsure": False,
                                        "probs": _probs(deck[i])}, None)
            dealer._eject(state, i, state.plan.order[i])
        return state

    whole = deal_up_to_the_double(CrashingJournal(tmp_path / "whole.db", durable=False))
    first = next(n for n, row in enumerate(Journal(tmp_path / "whole.db").rows()) if
                 row.kind == "eject_intent" and row.data["index"] == k)
    n_rows = len(Journal(tmp_path / "whole.db").rows())
    assert whole.dealt[k] == whole.dealt[k + 1] and whole.reads[k + 1]["unseen"]
    for cut in range(first, n_rows):
        journal = CrashingJournal(tmp_path / f"cut{cut}.db", durable=False)
        journal.crash_at = lambda row, seen=[], cut=cut: (seen.append(row), len(seen) == cut + 1)[1]
        with pytest.raises(Crash):
            deal_up_to_the_double(journal)
        state = DealState.from_journal(journal, 1)
        Dealer(_FakeRig([]), None, None, journal)._finish_double_feeds(state)
        if cut == first:                              # only the intent: the eject is still to come
            assert state.pending is not None and k not in state.dealt
            continue
        assert state.dealt == whole.dealt and state.plan.order == whole.plan.order, cut
        assert state.flags == whole.flags and state.reads[k + 1]["unseen"], cut
        again = DealState.from_journal(journal, 1)    # the journal alone now says it all
        assert again.dealt == whole.dealt and not again.doubles_open and not again.unseen_rows, cut
        done = sorted(row.data["index"] for row in journal.rows(1) if row.kind == "eject_done")
        assert done == list(range(k + 2)), cut        # each card journaled as gone exactly once
        journal.close()
