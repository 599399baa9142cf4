"""Whole hands through the HTTP API: bots in empty seats, one seat played through the API, every public
response and every live event collected — and not one hidden card in any of them."""

from __future__ import annotations

import random
import time

import httpx
import pytest
from svc_helpers import SSECollector, check_no_hidden_cards, play_hand, wait_for


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_hands_never_show_a_hidden_card(live, seed):
    svc = live.svc
    rng = random.Random(seed)
    seat_token = svc.tokens.new_seat_token(0)
    op = {"Authorization": f"Bearer {svc.tokens.operator_token()}"}
    sse = SSECollector(live.url).start()
    snapshots: list[tuple[str, dict]] = []
    with httpx.Client(base_url=live.url, timeout=10) as client:
        rid = client.post("/api/rounds", json={"game": "hongsi", "first_seat": seed % 4}, headers=op).json()["id"]
        assert client.get(f"/api/rounds/{rid}").json()["bots"] == [1, 2, 3]  # empty seats: bots
        play_hand(client, rid, seat_token, rng, snapshots)
        record = client.get(f"/api/rounds/{rid}/record").json()  # public now: the hand is over
    wait_for(lambda: any(ev["type"] == "finished" for _t, ev in sse.events))
    sse.stop(svc)
    check_no_hidden_cards(snapshots, sse.events, record, rid)
    # the hand is refereed: a finished, zero-sum verdict, the ledger moved by the scores
    verdict = record["verdict"]
    assert verdict["finished"] and sum(verdict["scores"]) == 0
    assert svc.ledger_list() == verdict["scores"]
    refused = [i for i, ev in enumerate(record["events"])
               if any(v["event"] == i and v["severity"] == "error" for v in verdict["violations"])]
    assert all(record["events"][i]["seat"] == 0 for i in refused)  # only the human tried illegal plays


def test_counts_are_announced_into_the_record_and_the_display(service):
    for _ in range(6):  # a hand where the winner goes out from 4 or more and nobody else gets low is rare
        rnd = service.start_round(game="hongsi", first_seat=0, bots="all")
        wait_for(lambda r=rnd: r.phase == "finished", timeout=30)
        rec = rnd.record()
        announces = [e for e in rec["events"] if e["action"] == "announce"]
        if announces:
            break
    assert announces and all(1 <= e["count"] <= 3 for e in announces)
    verdict = rnd.result()
    assert not [v for v in verdict["violations"] if v["rule"] == "count"]  # the service announced each in time
    wait_for(lambda: any("本局结束" in e["text_zh"] for e in service.voice.said))
    said = [e["text_zh"] for e in service.voice.said]
    assert any("剩" in t for t in said) and any("先出" in t for t in said) and any("本局结束" in t for t in said)


def test_estop_pauses_the_round_and_clear_resumes(service):
    from fastapi.testclient import TestClient

    from controller.service.app import create_app

    op = {"Authorization": f"Bearer {service.tokens.operator_token()}"}
    tok = {"Authorization": f"Bearer {service.tokens.new_seat_token(0)}"}
    with TestClient(create_app(service)) as client:
        rnd = service.start_round(game="hongsi", first_seat=0, bots=[1, 2, 3])
        wait_for(lambda: rnd.phase == "playing")
        assert client.post("/api/estop", headers=op).json()["estop"] is True
        assert client.get(f"/api/rounds/{rnd.id}").json()["paused"] is True
        before = len(rnd.events)
        resp = client.post(f"/api/rounds/{rnd.id}/events", json={"seat": 0, "action": "pass"}, headers=tok)
        assert resp.status_code == 409 and "paused" in resp.json()["detail"]
        time.sleep(0.2)
        assert len(rnd.events) == before  # bots wait too
        assert client.post("/api/rounds", json={}, headers=op).status_code == 409
        client.post("/api/clear", headers=op)
        assert client.get(f"/api/rounds/{rnd.id}").json()["paused"] is False


def test_estop_during_the_deal_interrupts_it_then_resume_or_void(tmp_path):
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import ServiceError, TableService

    svc = TableService(tmp_path, SoftwareDealSource(card_delay=0.01, seed=1), bot_delay=0)
    try:
        rnd = svc.start_round(bots=[])
        wait_for(lambda: rnd.dealt >= 5)
        svc.estop()
        wait_for(lambda: rnd.phase == "interrupted")
        dealt = rnd.dealt
        time.sleep(0.1)
        assert rnd.dealt == dealt < 52  # motors off: no more cards
        with pytest.raises(ServiceError):
            svc.resume(rnd.id)  # the e-stop must be cleared first
        svc.clear_fault()
        svc.resume(rnd.id)
        wait_for(lambda: rnd.phase == "playing")
        assert sorted(len(h) for h in rnd.hands) == [13, 13, 13, 13]
        # a second deal, voided while interrupted
        svc.void(rnd.id)
        r2 = svc.start_round(bots=[])
        wait_for(lambda: r2.dealt >= 3)
        svc.estop()
        wait_for(lambda: r2.phase == "interrupted")
        svc.clear_fault()
        svc.void(r2.id)
        wait_for(lambda: r2.phase == "void")
        wait_for(lambda: svc.journal.status(r2.id) == "void")
        assert svc.start_round(bots=[]).id == r2.id + 1
    finally:
        svc.close()


def test_a_resume_given_the_moment_the_deal_pauses_is_not_lost(tmp_path):
    """The operator (or a script) resumes as soon as the ``paused`` event arrives, before the deal's
    thread has begun to wait: the one paused deal goes on; no second deal is started beside it."""
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService

    source = SoftwareDealSource(card_delay=0.005, seed=2)
    svc = TableService(tmp_path, source, bot_delay=0)
    seen = []

    def resume_at_once(ev):  # runs in the deal's own thread, inside the paused event
        if ev.get("type") == "deal_status" and ev.get("stage") == "paused":
            seen.append(source.waiting)
            svc.clear_fault()
            svc.resume(ev["round"])

    try:
        svc.hub.add_listener(resume_at_once)
        rnd = svc.start_round(bots=[])
        wait_for(lambda: rnd.dealt >= 5)
        svc.estop()
        wait_for(lambda: rnd.phase == "playing", timeout=30)
        assert seen == [True]  # waiting already when the pause was announced
        deals = [t for t in svc._threads if t.name.startswith("hongsi-deal-")]  # this service's deal threads
        wait_for(lambda: not any(t.is_alive() for t in deals), timeout=10)  # none is left waiting
        assert not source.waiting
        cards = [str(c) for h in rnd.hands for c in h]
        assert len(cards) == len(set(cards)) == 52
    finally:
        svc.close()


def test_other_games_run_generically_through_the_service(service):
    from engine.registry import get_game

    try:
        get_game("wakeng")
    except ImportError:
        pytest.skip("wakeng engine not installed")
    rnd = service.start_round(game="wakeng", first_seat=0, bots="all")
    wait_for(lambda: rnd.phase in ("finished", "interrupted"), timeout=30)
    assert rnd.phase == "finished", rnd.message
    assert rnd.plan.seats == 3 and sum(rnd.result()["scores"]) == 0


def test_a_deal_interrupted_by_a_crash_is_offered_for_resume_or_void(tmp_path):
    """The journal shows a deal whose process died: the restarted service makes it the current round,
    interrupted; resuming deals it, voiding ends it in the journal."""
    import os

    from controller.journal import Journal
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService

    dead_pid = 4194305  # above Linux's largest pid: no such process
    with Journal(tmp_path / "journal.db") as j:
        for rid in (1, 2):
            j.append(rid, "round_start", {"game": "hongsi", "first_seat": 2, "fair_deal": False,
                                          "pid": dead_pid, "host": os.uname().nodename})
    svc = TableService(tmp_path, SoftwareDealSource(seed=3), bot_delay=0)
    try:
        rnd = svc.current
        assert rnd is not None and rnd.id == 2 and rnd.phase == "interrupted" and rnd.first_seat == 2
        with pytest.raises(Exception, match="resume or void"):
            svc.start_round(bots=[])
        svc.void(2)
        assert svc.journal.status(2) == "void"
    finally:
        svc.close()
    svc = TableService(tmp_path, SoftwareDealSource(seed=3), bot_delay=0)
    try:
        rnd = svc.current
        assert rnd.id == 1 and rnd.phase == "interrupted"
        svc.resume(1)
        wait_for(lambda: rnd.phase == "playing")
        assert sorted(len(h) for h in rnd.hands) == [13, 13, 13, 13]
    finally:
        svc.close()


def test_a_new_deal_voids_the_unfinished_hand(service):
    first = service.start_round(bots=[])
    wait_for(lambda: first.phase == "playing")
    second = service.start_round(bots=[])
    assert first.phase == "void" and service.current is second
    assert service.journal.status(first.id) == "void"
    wait_for(lambda: second.phase == "playing")
    from controller.service.table import ServiceError

    with pytest.raises(ServiceError) as err:
        service.act(first.id, {"seat": first.turn() or 0, "action": "pass"})
    assert err.value.status == 409


def test_the_ledger_lists_the_seats_that_played(tmp_path):
    """挖坑 is dealt to 3 of the table's 4 seats: its ledger has 3 totals, not a fourth seat at 0."""
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService

    svc = TableService(tmp_path, SoftwareDealSource(seed=2), bot_delay=0, seed=2)
    try:
        assert svc.ledger_list() == [0, 0, 0, 0]  # before any hand: the table's seats
        rnd = svc.start_round(game="wakeng", bots="all")
        # the ledger is settled just after the last play is judged (the round is "finished" first)
        wait_for(lambda: rnd.phase == "finished" and len(svc.ledger_list()) == 3)
        scores = rnd.result()["scores"]
        assert len(scores) == 3 and svc.ledger_list() == scores
    finally:
        svc.close()


def test_the_chip_ledger_runs_across_hands_and_restarts(tmp_path):
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService

    totals = [0, 0, 0, 0]
    for run in range(2):
        svc = TableService(tmp_path, SoftwareDealSource(seed=run), bot_delay=0, seed=run)
        try:
            assert svc.ledger_list() == totals  # what the journal says after a restart
            for _ in range(2):
                rnd = svc.start_round(bots="all")
                wait_for(lambda r=rnd: r.phase == "finished")
                wait_for(lambda r=rnd, s=svc: s.journal.status(r.id) == "done")
                scores = rnd.result()["scores"]
                assert any(scores)  # every hand of 红桃四 moves chips
                totals = [t + s for t, s in zip(totals, scores, strict=True)]
                assert svc.ledger_list() == totals and sum(totals) == 0
        finally:
            svc.close()


@pytest.mark.parametrize("game", ["shengji", "zhuohonga"])
def test_secret_and_face_down_cards_of_other_games_stay_hidden(service, game):
    """升级's buried bottom and 捉红A's face-down aces: the table sees '?' until the hand is over."""
    from engine.registry import get_game

    try:
        get_game(game)
    except ImportError:
        pytest.skip(f"{game} engine not installed")
    events: list[dict] = []
    service.hub.add_listener(events.append)
    secret, revealed = 0, False
    for _ in range(5):  # until a secret card went by (an ace played, the bottom buried)
        events.clear()
        rnd = service.start_round(game=game, bots="all")
        wait_for(lambda r=rnd: r.phase == "finished", timeout=60)
        wait_for(lambda: any(e["type"] == "finished" for e in events))
        record = rnd.record()
        revealed = revealed or bool(getattr(rnd.state, "xuan_ok", False))  # a successful 宣红A shows the aces
        public_actions = [e for e in events if e["type"] == "action"]
        assert len(public_actions) == len(record["events"])
        last = len(record["events"]) - 1  # the play that ends the hand: the hand is over, all may be seen
        for i, (pub, ev) in enumerate(zip(public_actions, record["events"], strict=True)):
            cards = ev.get("cards") or []
            if game == "shengji" and ev["action"] == "bury":
                assert pub["cards"] == ["?"] * len(cards)
                secret += len(cards)
            elif game == "zhuohonga" and ev["action"] == "play" and pub["applied"]:
                for real, shown in zip(cards, pub["cards"], strict=True):
                    if real[1:] == "A" and real[0] in "SHDC":  # an ace goes down face down: its suit is secret
                        assert shown == "?" or (shown == real and (i == last or getattr(rnd.state, "xuan_ok", False)))
                        secret += shown == "?"
                    else:
                        assert shown == real
        if secret:
            break
    assert secret > 0 or revealed


def test_two_deck_gongzhu_deals_104_cards_and_is_refereed(service):
    """拱双猪 (gongzhu preset ``shuangzhu``): the service deals two decks, two copies of every card and 26
    cards a seat, and the bots' hand is refereed to the end without a violation."""
    rnd = service.start_round(game="gongzhu", preset="shuangzhu", first_seat=0, bots="all")
    wait_for(lambda: rnd.phase in ("finished", "interrupted"), timeout=60)
    assert rnd.phase == "finished", rnd.message
    assert rnd.plan.deck.size == 104 and [len(h) for h in rnd.hands] == [26] * 4
    dealt = [str(c) for h in rnd.hands for c in h]
    assert len(set(dealt)) == 52 and all(dealt.count(c) == 2 for c in set(dealt))
    result = rnd.result()
    assert result["violations"] == [] and len(result["scores"]) == 4


@pytest.mark.parametrize(("game", "preset"), [("shengji", None), ("gongzhu", None), ("gongzhu", "shuangzhu")])
def test_the_tables_trick_in_trick_taking_games_is_the_current_one(service, game, preset):
    """升级 and 拱猪: the trick the table shows is one play from each seat at most, the last trick stays up
    until the next lead, and nobody is flagged as nearly out (every seat holds as many cards as the
    others)."""
    events: list[dict] = []
    service.hub.add_listener(events.append)
    rnd = service.start_round(game=game, preset=preset, first_seat=1, bots="all")
    wait_for(lambda: rnd.phase == "finished", timeout=60)
    wait_for(lambda: any(e["type"] == "finished" for e in events))
    plays = [(e["seat"], e["cards"]) for e in events if e["type"] == "action" and e["action"] == "play" and e["applied"]]
    shown = [[(t["seat"], t["cards"]) for t in e["trick"]] for e in events
             if e["type"] == "action" and e["action"] == "play" and e["applied"]]
    assert len(plays) == len(shown) and len(plays) % 4 == 0 and len(plays) >= 4 * 13
    for k, trick in enumerate(shown):
        start = k - k % 4  # the tricks are the plays taken four at a time
        assert trick == plays[start:k + 1], (k, trick)
    assert rnd.announce_at() == 0 and not [e for e in events if e["type"] == "count"]


def _plays(rnd) -> int:
    with rnd.lock:
        return sum(1 for ev, ok in zip(rnd.events, rnd.applied, strict=True) if ok and ev["action"] == "play")


@pytest.mark.parametrize("game", ["gongzhu", "hongsi", "zhuohonga"])
def test_bots_wait_for_people_to_declare_until_they_say_ready(tmp_path, game):
    """Before the first play any seat may declare (拱猪's 亮牌, 红桃四's 挑, 捉红A's 宣): the bots wait for the
    person at the table until they say they are ready, and the table is told whom it waits for, the same
    whatever that person holds."""
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService

    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=7), bot_delay=0.01, seed=3,
                       declare_window=60.0)
    events: list[dict] = []
    svc.hub.add_listener(events.append)
    try:
        for seat in (0, 2):  # the person sits at seat 0, then at seat 2: nobody's cards change the wait
            rnd = svc.start_round(game=game, bots=[s for s in range(4) if s != seat])
            wait_for(lambda r=rnd: r.phase == "playing")
            time.sleep(0.6)  # 60 bot delays: the bots would have played by now
            assert _plays(rnd) == 0 and rnd.public()["undecided"] == [seat]
            assert svc.get_round(rnd.id).seat_view(seat)["undecided"] is True
            if rnd.turn() == seat:  # the person leads: nobody waits for anyone else
                continue
            svc.ready(rnd.id, seat)
            wait_for(lambda r=rnd: _plays(r) > 0, timeout=5)
            assert rnd.public()["undecided"] == [] and [e for e in events if e["type"] == "ready"][-1]["seat"] == seat
    finally:
        svc.close()


def test_the_declaring_window_closes_by_itself(tmp_path):
    from controller.service.deal import SoftwareDealSource
    from controller.service.table import TableService

    svc = TableService(tmp_path / "data", SoftwareDealSource(card_delay=0.0, seed=7), bot_delay=0.01, seed=3,
                       declare_window=0.5)
    played: dict[int, float] = {}  # round id -> when its first play was published
    svc.hub.add_listener(
        lambda ev: played.setdefault(ev["round"], time.monotonic()) if ev.get("action") == "play" else None)
    try:
        for seat in range(4):  # a person who does not lead (the ♣2's holder leads 拱猪)
            rnd = svc.start_round(game="gongzhu", bots=[s for s in range(4) if s != seat])
            wait_for(lambda r=rnd: r.phase == "playing")
            with rnd.lock:  # the leader, read before any play (a loaded machine may notice play began late)
                leader = rnd.turn() if _plays(rnd) == 0 else next(e for e in rnd.events if e["action"] == "play")["seat"]
            if leader != seat:
                break
        assert leader != seat
        wait_for(lambda: rnd.id in played, timeout=5)
        assert played[rnd.id] - rnd.play_since >= 0.5  # not at once: the window ran out first
        assert seat not in rnd.ready  # nobody said ready: the window closed by itself
    finally:
        svc.close()


def test_trick_taking_hands_are_held_by_suit(service):
    """拱猪 and 升级 hands come to the seat page by suit (♠ ♥ ♣ ♦), low to high within each; 升级's trumps
    last once known (the module's examples too)."""
    import doctest

    import controller.service.rounds as rounds
    from engine.cards import NATURAL, parse_card

    assert doctest.testmod(rounds).failed == 0
    rnd = service.start_round(game="gongzhu", bots=[1, 2, 3])  # seat 0 is a person: play stops at its turn
    wait_for(lambda: rnd.phase == "playing")
    with rnd.lock:
        hand = rnd.seat_view(0)["hand"]
    assert len(hand) >= 12
    suits = [c[0] for c in hand]
    groups = [s for i, s in enumerate(suits) if i == 0 or suits[i - 1] != s]
    assert groups == [s for s in "SHCD" if s in suits]  # each suit once, in that order
    for s in groups:
        ranks = [NATURAL.key(parse_card(c)) for c in hand if c[0] == s]
        assert ranks == sorted(ranks)


def test_the_games_and_their_presets_are_listed(live):
    from engine.registry import game_names

    games = httpx.get(live.url + "/api/games").json()["games"]  # public: no token needed
    assert [g["name"] for g in games] == game_names()
    by_name = {g["name"]: g for g in games}
    assert "shuangzhu" in by_name["gongzhu"]["presets"] and by_name["wakeng"]["seats"] == 3
    assert all(g["default_preset"] in g["presets"] for g in games)
    assert by_name["shengji"]["decks"]["sijen"] == {"cards": 108, "text": "two decks with jokers",
                                                    "text_zh": "两副牌（带大小王）"}
    assert by_name["gongzhu"]["decks"]["shuangzhu"]["cards"] == 104


@pytest.mark.parametrize(("game", "said"), [("shengji", "为主"), ("wakeng", "挖坑，")])
def test_the_table_is_told_the_facts_an_action_makes_known(service, game, said):
    """升级's trump once the dealer takes the bottom, 挖坑's digger and bid: spoken and shown once, in both
    languages, and matching the engine's public view (the module's examples too)."""
    import doctest

    import controller.announce as announce

    assert doctest.testmod(announce).failed == 0
    events: list[dict] = []
    service.hub.add_listener(events.append)
    rnd = service.start_round(game=game, bots="all")
    wait_for(lambda: rnd.phase == "finished", timeout=60)
    news = [e for e in events if e["type"] == "voice" and said in e["text_zh"]]
    assert len(news) == 1 and news[0]["text"], [e["text_zh"] for e in events if e["type"] == "voice"]
    assert (news[0]["text_zh"], news[0]["text"]) == announce.table_news({"game": game}, rnd.facts())
