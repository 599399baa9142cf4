"""The operator's view of a live hand's journal rows: no field that names a card or places one survives,
at any depth, and a hand that is over (or whose referee view is open) is shown whole."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.redact import REFEREE_KIND, SECRET_KEYS, live_rounds, redact_row

KEYS = st.sampled_from(sorted(SECRET_KEYS) + ["index", "seat", "round", "pulse_ms", "plan", "x"])
DATA = st.recursive(st.one_of(st.integers(), st.text(max_size=4), st.none()),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
                    max_leaves=20)


def _keys(value):
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


# recursive data is slow to draw on a loaded CI box: the health check is about speed, not the property
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], deadline=None)
@given(st.dictionaries(KEYS, DATA, max_size=6), st.booleans())
def test_a_live_row_keeps_no_secret_field(data, image):
    row = {"kind": "card_read", "data": data, "image": "ab" * 32 if image else None}
    shown = redact_row(row, live=True)
    assert not _keys(shown["data"]) & (SECRET_KEYS - {"event"}) and shown["image"] is None and shown["redacted"]
    assert redact_row(row, live=False) is row


def test_which_hands_are_live():
    kinds = {1: ["round_start", "card_read", "round_end"], 2: ["round_start", "deal_end"],
             3: ["round_start", REFEREE_KIND], 4: ["round_start", "reveal"], 0: ["receipt"]}
    assert live_rounds(kinds) == {2}
