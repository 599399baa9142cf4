"""An unreadable card is left to deck-consistency decoding (the real vision.decode), and a deal rebuilt
from the journal alone gives the same hands: what `--resume` and a dispute rely on."""

import numpy as np

from controller.deal import Dealer, DealState
from controller.deal.problems import card_name
from controller.journal import Journal
from controller.plan import make_plan
from vision.labels import LABELS


def _probs(label, second=None, p=0.99):
    """The reader's distribution: ``label`` at ``p``; with ``second``, an unsure read that puts
    ``second`` first (0.45) and ``label`` second (0.35)."""
    v = np.full(len(LABELS), (1 - p) / (len(LABELS) - 1))
    if second is not None:
        v[:] = 0.2 / (len(LABELS) - 2)
        v[LABELS.index(second)] = 0.45
        v[LABELS.index(label)] = 0.35
        return v.tolist()
    v[LABELS.index(label)] = p
    return v.tolist()


def _journal_a_deal(tmp_path, unsure_at: dict[int, str], unseen_at: int | None = None):
    """Write a whole 红桃四 deal into a journal the way the dealer does (reads, ejects)."""
    rng = np.random.default_rng(3)
    deck = [str(c) for c in make_plan("hongsi", fair=False).deck.cards()]
    rng.shuffle(deck)
    plan = make_plan("hongsi", first_seat=1, fair=True, seed=b"\x07" * 32)
    j = Journal(tmp_path / "journal.db")
    r = j.new_round({"game": "hongsi"})
    j.append(r, "deal_plan", {"plan": plan.to_json(), "commitment": plan.commitment})
    j.append(r, "shuffle_done", {})
    for i, card in enumerate(deck):
        if i == unseen_at:
            data = {"index": i, "label": None, "confidence": 0.0, "unsure": True, "probs": None, "ghost": True}  # an older journal's word
        elif i in unsure_at:
            data = {"index": i, "label": None, "confidence": 0.45, "unsure": True,
                    "probs": _probs(card, second=unsure_at[i])}   # the truth only second best
        else:
            data = {"index": i, "label": card, "confidence": 0.99, "unsure": False, "probs": _probs(card)}
        j.append(r, "card_read", data)
        j.append(r, "eject_intent", {"index": i, "seat": plan.order[i], "label": data["label"]})
        j.append(r, "eject_done", {"index": i, "seat": plan.order[i], "pulse_ms": 73.0})
    hands = [[] for _ in range(4)]
    for i, card in enumerate(deck):
        hands[plan.order[i]].append(card)
    return j, r, hands


def test_unsure_reads_are_corrected_by_decoding(tmp_path):
    j, r, hands = _journal_a_deal(tmp_path, unsure_at={3: "S9", 20: "H4", 40: "CA"})
    state = DealState.from_journal(j, r)
    assert [state.reads[i]["unsure"] for i in (3, 20, 40)] == [True, True, True]
    result = Dealer(None, None, None, j)._finish(state)
    assert result.status == "done", result.problems
    assert [sorted(h) for h in result.record["hands"]] == [sorted(h) for h in hands]
    decoded = next(row for row in j.rows(r) if row.kind == "decoded").data
    assert set(decoded["corrected"]) >= {3, 20, 40} or set(decoded["unsure"]) >= {3, 20, 40}


def test_an_unread_card_from_a_double_feed_is_named_by_decoding(tmp_path):
    j, r, hands = _journal_a_deal(tmp_path, unsure_at={}, unseen_at=17)
    result = Dealer(None, None, None, j)._finish(DealState.from_journal(j, r))
    assert result.status == "done"
    assert [sorted(h) for h in result.record["hands"]] == [sorted(h) for h in hands]


def test_a_journal_deal_with_a_card_read_twice_is_stopped(tmp_path):
    j, r, hands = _journal_a_deal(tmp_path, unsure_at={})
    state = DealState.from_journal(j, r)
    first, other = state.reads[0]["label"], state.reads[1]["label"]
    for i in (0, 1):              # both read with strong evidence: a real duplicate, not a misread
        state.reads[i] = {**state.reads[i], "label": first, "probs": _probs(first, p=1 - 1e-9)}
    result = Dealer(None, None, None, j)._finish(state)
    assert result.status == "stopped"
    assert any(card_name(first, "en") in p and "twice" in p for p in result.problems)
    assert any(card_name(other, "en") in p and "missing" in p for p in result.problems)
    assert card_name(first, "zh") in result.message_zh and card_name(other, "zh") in result.message_zh
