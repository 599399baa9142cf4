"""Properties of the service over random play (hypothesis): whatever seats send — legal or not — the
public view never shows a hidden card, cards are conserved, refused actions change nothing, and the
chip ledger stays zero-sum."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from svc_helpers import allowed_cards, card_strings, wait_for

from controller.service.deal import SoftwareDealSource
from controller.service.table import ServiceError, TableService

ACTIONS = ["play", "pass", "tiao", "baomen", "call", "pa", "pa_accept", "pa_refuse", "announce", "dance"]


def _random_action(rng: random.Random, rnd) -> dict:
    seat = rng.randrange(4)
    if rng.random() < 0.6:  # mostly legal moves, so hands get played out
        legal = rnd.state.legal_actions(rnd.turn()) if rnd.turn() is not None else []
        if legal:
            return rng.choice(legal)
    kind = rng.choice(ACTIONS)
    action: dict = {"seat": seat, "action": kind}
    pool = [str(c) for c in rnd.hands[rng.randrange(4)]]
    if kind == "play":
        action["cards"] = rng.sample(pool, rng.randint(1, 3))
    elif kind == "call":
        action["card"] = rng.choice(pool)
    elif kind == "pa":
        action["target"] = rng.randrange(4)
    elif kind == "announce":
        action["count"] = rng.randint(0, 13)
    return action


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(20, 400))
def test_random_play_keeps_every_secret_and_every_card(tmp_path_factory, seed, steps):
    rng = random.Random(seed)
    svc = TableService(tmp_path_factory.mktemp("p"), SoftwareDealSource(seed=seed), bot_delay=0, seed=seed)
    try:
        rnd = svc.start_round(game="hongsi", first_seat=seed % 4, bots=[])
        wait_for(lambda: rnd.phase == "playing")
        for _ in range(steps):
            if rnd.phase != "playing":
                break
            with rnd.lock:
                before = (len(rnd.state.public_view(None)["events"]), rnd.counts())
            action = _random_action(rng, rnd)
            try:
                result = svc.act(rnd.id, action)
            except ServiceError as exc:
                assert exc.status in (409, 422)
                continue
            with rnd.lock:
                public = rnd.public()
                counts = rnd.counts()
                played = [0, 0, 0, 0]
                for a in public["actions"]:
                    if a["applied"] and a["action"] == "play":
                        played[a["seat"]] += len(a["cards"])
            if public["phase"] == "playing":  # once the hand is over, the hands are public
                # no hidden card, ever, in data or in words (the ♥4 holder is told by the rules)
                told = {rnd.game.first_play(rnd.hands, rnd.bottom).card}
                assert card_strings(public) <= allowed_cards(public) | told
            assert [c + p for c, p in zip(counts, played, strict=True)] == [13, 13, 13, 13]  # conserved
            if not result["applied"]:
                assert rnd.counts() == before[1]  # a refused action changes nothing
                assert all(v["message"] and v["message_zh"] for v in result["violations"])
        if rnd.phase == "finished":
            wait_for(lambda: any("本局结束" in e["text_zh"] for e in svc.voice.said))  # (爆闷失败。)本局结束…
            assert sum(svc.ledger_list()) == 0
            assert svc.ledger_list() == rnd.result()["scores"]
    finally:
        svc.close()
