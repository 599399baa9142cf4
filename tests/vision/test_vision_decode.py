import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.decode import decode_deal, linear_assignment
from vision.labels import LABELS, index

DECK52 = Counter(LABELS[:52])
DECK54 = Counter(LABELS)
DECK108 = Counter({label: 2 for label in LABELS})


def confident(labels: list[str], p: float = 0.995) -> np.ndarray:
    probs = np.full((len(labels), 54), (1 - p) / 53)
    for i, label in enumerate(labels):
        probs[i, index(label)] = p
    return probs


def test_a_clean_deal_decodes_to_itself():
    rng = np.random.default_rng(0)
    truth = [LABELS[i] for i in rng.permutation(54)]
    r = decode_deal(confident(truth), DECK54)
    assert r.labels == truth and r.consistent
    assert r.corrected == [] and r.unsure == [] and r.missing == []


def test_fixes_reads_flipped_to_an_unsure_second_choice():
    rng = np.random.default_rng(1)
    truth = [LABELS[i] for i in rng.permutation(52)]
    probs = confident(truth)
    # card 5 was read as card 9's label with 0.55, its true label only 0.40
    probs[5] = 0.05 / 52
    probs[5, index(truth[9])] = 0.55
    probs[5, index(truth[5])] = 0.40
    # card 20: the reader declined (no information at all)
    probs[20] = 1 / 54
    r = decode_deal(probs, DECK52)
    assert r.labels == truth and r.consistent
    assert r.corrected == [5, 20] or sorted(r.corrected) == [5, 20]
    assert 20 in r.unsure and 5 not in r.unsure


def test_flags_a_confident_duplicate_and_the_missing_card_instead_of_fixing_it():
    truth = list(LABELS[:52])
    dealt = truth.copy()
    dealt[10] = "H4"  # the deck really has H4 twice and lacks truth[10]
    r = decode_deal(confident(dealt, 0.9999), DECK52)
    assert r.duplicated == ["H4"]
    assert r.missing == [truth[10]]
    assert not r.consistent
    assert r.labels.count("H4") == 2  # both cards keep what they are; nothing is silently renamed
    assert truth[10] not in r.labels


def test_reports_a_foreign_card_as_extra_and_a_short_deck_as_missing():
    dealt = list(LABELS[:52]) + ["RJ"]  # a joker in a 52-card deal
    r = decode_deal(confident(dealt), DECK52)
    assert r.extra == ["RJ"] and r.missing == [] and r.labels[-1] == "RJ"
    short = list(LABELS[:51])
    r = decode_deal(confident(short), DECK52)
    assert r.missing == [LABELS[51]] and r.labels == short


def test_two_decks_and_bad_input():
    rng = np.random.default_rng(3)
    truth = [LABELS[i % 54] for i in rng.permutation(108)]
    probs = confident(truth, 0.9)
    r = decode_deal(probs, DECK108)
    assert r.labels == truth and r.consistent
    with pytest.raises(ValueError):
        decode_deal(np.ones((3, 10)), DECK52)
    with pytest.raises(KeyError):
        decode_deal(confident(["H4"]), {"H44": 1})


def test_linear_assignment_is_optimal_on_small_matrices():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        m = int(rng.integers(n, 7))
        cost = rng.random((n, m)) * rng.choice([1, 100])
        cols = linear_assignment(cost)
        assert len(set(cols.tolist())) == n
        best = min(sum(cost[i, p[i]] for i in range(n)) for p in itertools.permutations(range(m), n))
        assert cost[np.arange(n), cols].sum() == pytest.approx(best)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_unsure=st.integers(0, 12), decks=st.sampled_from([DECK52, DECK54, DECK108]))
def test_random_deals_with_unsure_reads_decode_exactly(seed, n_unsure, decks):
    """Any deal whose misreads keep the truth as a plausible choice comes out exactly right, and the
    decoded labels always respect the deck's composition."""
    rng = np.random.default_rng(seed)
    deck = list(decks.elements())
    truth = [deck[i] for i in rng.permutation(len(deck))]
    probs = confident(truth, 0.98)
    unsure = rng.choice(len(truth), n_unsure, replace=False)
    # a misread names a card whose own copies were all read confidently (else two unsure reads could
    # swap and the truth would no longer be the most likely deal)
    taken = {truth[i] for i in unsure}
    for i in unsure:
        wrong = LABELS[int(rng.integers(54))]
        while wrong in taken:
            wrong = LABELS[int(rng.integers(54))]
        row = rng.dirichlet(np.ones(54)) * 0.1
        row[index(wrong)] += 0.55
        row[index(truth[i])] += 0.35
        probs[i] = row / row.sum()
    r = decode_deal(probs, decks)
    assert r.labels == truth
    assert r.consistent
    assert Counter(r.labels) == decks  # card conservation


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 60))
def test_decoding_never_invents_cards(seed, n):
    """Whatever the probabilities: deck labels are used at most as often as the deck holds them, and
    every card is either matched to the deck or reported (duplicated / extra)."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(54, 0.2), size=n)
    r = decode_deal(probs, DECK52)
    assert len(r.labels) == n
    in_deck = [lab for lab in r.labels if lab is not None]
    counts = Counter(in_deck)
    reported = len(r.duplicated) + len(r.extra)
    matched = n - reported
    assert matched + len(r.missing) == 52
    assert all(counts[lab] <= DECK52[lab] + r.duplicated.count(lab) for lab in counts)


def test_cards_that_could_swap_labels_are_unsure():
    truth = list(LABELS)
    probs = confident(truth)
    for label in ("BJ", "RJ"):  # both jokers seen only in greyscale: red or black, nobody can tell
        row = np.full(54, 0.002 / 52)
        row[index("BJ")] = row[index("RJ")] = 0.499
        probs[index(label)] = row
    r = decode_deal(probs, DECK54)
    assert r.consistent
    assert r.unsure == [index("BJ"), index("RJ")]
    assert sorted(r.labels[index("BJ")] + r.labels[index("RJ")]) == sorted("BJRJ")
