"""The table's bots among people: a bot never holds the service up, never plays a move the table moved on
from, never stalls a hand, answers within its budget, and gives a person it asks for a 趴 the same
declaring window a person would."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from svc_helpers import wait_for

from controller.service import bots
from controller.service.deal import SoftwareDealSource
from controller.service.table import TableService


def _service(tmp_path: Path, **kw) -> TableService:
    return TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=kw.pop("deal_seed", 7)),
                        bot_delay=0.0, seed=3, **kw)


def _errors(rnd) -> list[tuple[int, dict]]:
    return [(i, ev) for i, (ev, ok) in enumerate(zip(rnd.events, rnd.applied, strict=True)) if not ok]


def test_the_bots_never_wait_for_a_round_holding_the_service_lock(tmp_path):
    """A person's act holds the round's lock and then the service's (to name a seat): a bot that held the
    service's lock while waiting for the round's deadlocked the table."""
    svc = _service(tmp_path)
    try:
        rnd = svc.start_round(game="hongsi", first_seat=0, bots=[1, 2, 3])
        wait_for(lambda: rnd.phase == "playing")
        with rnd.lock:  # as a person's act does
            svc._kick()  # the bots wake and look for a move: they wait for this round's lock
            time.sleep(0.3)
            got = svc._lock.acquire(timeout=2)
            if got:
                svc._lock.release()
        assert got, "the bot thread holds the service's lock while it waits for the round's"
    finally:
        svc.close()


class RacyTable(TableService):
    """A person's action arrives just before a bot's own (the requests race at a real table)."""

    person: list[dict] | None = None

    def act(self, rid, action, **kw):
        if kw.get("by_bot") and self.person:
            TableService.act(self, rid, self.person.pop())
        return TableService.act(self, rid, action, **kw)


@pytest.mark.parametrize("deal_seed", range(4))
def test_a_move_the_table_moved_on_from_is_planned_again_not_refused(tmp_path, deal_seed):
    """The ♥4 holder (a person) calls, asks its partner (a bot) for a 趴 and, while the bot answers, leads:
    the answer is stale (the first play ends the asking). The bot plans again instead of being refused."""
    svc = RacyTable(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=deal_seed), bot_delay=0.0, seed=3,
                    declare_window=30.0)
    try:
        rnd = svc.start_round(game="hongsi", first_seat=0, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        with rnd.lock:
            p = next(s for s, hand in enumerate(rnd.hands) if any(str(c) == "H4" for c in hand))
            rnd.bots = {0, 1, 2, 3} - {p}  # the ♥4 holder is the person; the bots wait for its call
            call = next(a for a in rnd.state.legal_actions(p) if a["action"] == "call"
                        and not any(str(c) == a["card"] for c in rnd.hands[p]))
        svc.act(rnd.id, call)
        with rnd.lock:
            ask = next((a for a in rnd.state.legal_actions(p) if a["action"] == "pa"), None)
            lead = next(a for a in rnd.state.legal_actions(p) if a["action"] == "play")
        if ask is None:
            pytest.skip("the called card's holder is lying down")
        svc.person = [lead]  # played just before the bot's answer reaches the table
        svc.act(rnd.id, ask)
        wait_for(lambda: not svc.person and len(rnd.events) >= 4)
        time.sleep(0.3)
        assert not _errors(rnd), _errors(rnd)
    finally:
        svc.close()


def test_a_search_that_fails_plays_greedy_and_the_hand_finishes(tmp_path, monkeypatch, caplog):
    from engine.bots import search

    def broken(*a, **k):
        raise RuntimeError("a broken search")

    monkeypatch.setattr(search, "_search", broken)
    monkeypatch.setattr(bots.SETTINGS, "bot", "careful")
    svc = _service(tmp_path)
    try:
        with caplog.at_level(logging.WARNING):
            rnd = svc.start_round(game="hongsi", first_seat=0, bots="all")
            wait_for(lambda: rnd.phase == "finished", timeout=30)
        assert not _errors(rnd)
        assert any("fell back to greedy" in r.getMessage() and "a broken search" in r.getMessage()
                   for r in caplog.records)
    finally:
        svc.close()


def test_a_bot_that_cannot_think_at_all_plays_the_plain_move(tmp_path, monkeypatch, caplog):
    def broken(*a, **k):
        raise RuntimeError("no thinking")

    monkeypatch.setattr(bots, "choose", broken)
    monkeypatch.setattr(bots, "fallback", broken)
    svc = _service(tmp_path)
    try:
        with caplog.at_level(logging.ERROR):
            rnd = svc.start_round(game="wakeng", first_seat=0, bots="all")
            wait_for(lambda: rnd.phase == "finished", timeout=30)
        assert any("failed to think" in r.getMessage() for r in caplog.records)
    finally:
        svc.close()


@pytest.mark.parametrize("style", ["careful", "bold"])
def test_a_bot_move_arrives_within_its_budget_at_the_p99(tmp_path, monkeypatch, style):
    budget = 40.0
    monkeypatch.setattr(bots.SETTINGS, "bot", style)
    monkeypatch.setattr(bots.SETTINGS, "budget_ms", budget)
    svc = _service(tmp_path)
    peer = _Oversleep(budget)  # the machine's own lateness in the same run: a thread that only sleeps
    try:
        for game in ("hongsi", "gongzhu"):
            rnd = svc.start_round(game=game, first_seat=0, bots="all")
            wait_for(lambda r=rnd: r.phase == "finished", timeout=60)
            assert not _errors(rnd)
        late = peer.stop()
        ms = sorted(1000 * t for t in svc.bot_times)
        assert len(ms) >= 60
        p99 = ms[int(0.99 * (len(ms) - 1))]
        # budget + 100 ms on a quiet machine; a loaded one (CI's other worker) is let off only by what a
        # thread that merely sleeps the budget was late by, at its p99, in the same run
        assert p99 <= budget + 100 + late, f"p99 {p99:.0f} ms over {len(ms)} moves (a plain sleep was {late:.0f} ms late)"
        assert ms[len(ms) // 2] >= 0.5 * budget  # it did think: the budget is spent, not skipped
    finally:
        svc.close()


class _Oversleep:
    """A thread sleeping ``ms`` again and again; :meth:`stop` gives the p99 of how late it woke, in ms."""

    def __init__(self, ms: float):
        import threading

        self.ms, self.late, self._stop = ms, [], threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            t = time.perf_counter()
            time.sleep(self.ms / 1000)
            self.late.append(1000 * (time.perf_counter() - t) - self.ms)

    def stop(self) -> float:
        self._stop.set()
        self.thread.join()
        late = sorted(self.late)
        return late[int(0.99 * (len(late) - 1))] if late else 0.0


def _played(rnd) -> bool:
    with rnd.lock:
        return any(ok and ev.get("action") == "play" for ev, ok in zip(rnd.events, rnd.applied, strict=True))


def _teammate_asks(rnd, askers: list[int]) -> dict | None:
    with rnd.lock:
        for s in askers:
            ask = next((a for a in rnd.state.legal_actions(s) if a["action"] == "pa" and a["target"] == 0), None)
            if ask is not None:
                return ask
    return None


@pytest.mark.parametrize("asker", ["bot", "person"])
def test_a_person_asked_for_a_pa_gets_the_same_window_from_a_bot_as_from_a_person(tmp_path, asker):
    window = 1.5
    svc = _service(tmp_path, declare_window=window)
    try:
        for _ in range(25):  # a deal where seat 0's partner may ask it
            rnd = svc.start_round(game="hongsi", first_seat=0, bots=[2, 3])
            wait_for(lambda r=rnd: r.phase == "playing")
            for person in (0, 1):  # the people call at once; a bot ♥4 calls once the window is over
                with rnd.lock:
                    call = next((a for a in rnd.state.legal_actions(person) if a["action"] == "call"), None)
                if call is not None:
                    svc.act(rnd.id, call)
            # set-up, not what is tested: a bot ♥4 holder calls once the window is over, or goes alone (挑) and
            # leads with no call; either way it never holds the hand up
            wait_for(lambda r=rnd: r.called() is not None or _played(r), timeout=window + 15,
                     why=lambda r=rnd: f"{len(r.events)} events, seat {r.turn()} to act")
            if rnd.called() is None:  # it went alone: no partner to ask seat 0 for a 趴
                svc.void(rnd.id)
                continue
            ask = _teammate_asks(rnd, [2, 3] if asker == "bot" else [1])
            if ask is not None:
                break
            svc.void(rnd.id)
        else:
            pytest.skip("no deal gave seat 0 a partner who may ask it")
        events = len(rnd.events)
        asked_at = time.monotonic()
        svc.act(rnd.id, ask, by_bot=asker == "bot")
        left = rnd.public()["declare_left"]
        assert window - 0.3 <= left <= window
        assert 0 in rnd.public()["undecided"]
        time.sleep(max(0.0, asked_at + window - 0.3 - time.monotonic()))
        # no seat played on while seat 0 could still answer; a bot teammate may join the ask out of turn (as a
        # person may), which leaves seat 0's answer open
        with rnd.lock:
            later, public = list(rnd.events[events + 1:]), rnd.public()
        assert all(ev["action"] == "pa" and ev["seat"] != 0 for ev in later), f"a bot acted while seat 0 " \
            f"could still answer the 趴: {later}"
        if time.monotonic() - asked_at < window - 0.1:  # (a starved test thread may wake after the window)
            assert 0 in public["undecided"] and public["declare_left"] > 0
    finally:
        svc.close()


def test_a_bot_seat_not_to_act_is_asked_to_declare_and_the_hand_goes_on(tmp_path):
    """As a person may 挑 or 趴 out of turn, a search bot seat offered a declaration while another seat is to
    act is asked once per offer: it declares (applied like anyone's) or waits, and the hand never stalls."""
    old = (bots.SETTINGS.bot, bots.SETTINGS.budget_ms)
    bots.configure("bold", 15)
    svc = _service(tmp_path, deal_seed=21)
    try:
        rnd = svc.start_round(game="hongsi", first_seat=0, bots=[0, 1, 2, 3])
        wait_for(lambda: rnd.phase == "finished", 120, why=lambda: f"phase {rnd.phase}, {len(rnd.events)} events")
        talks = list(svc.bot_talks)
        assert talks, "no bot seat was asked out of turn"
        declared = [a for _, a in talks if a != "wait"]
        assert all(a != "play" for a in declared)
        applied = [ev["action"] for ev, ok in zip(rnd.events, rnd.applied, strict=True) if ok]
        assert all(a in applied for a in declared)  # what a bot declared out of turn is in the record
        assert len(talks) == len(set(talks)) or len(talks) <= 3 * len(rnd.events)  # asked per offer, not per tick
        assert not _errors(rnd)
    finally:
        svc.close()
        bots.configure(*old)
