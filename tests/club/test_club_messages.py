"""The wire format and its checks, on their own (no broker, no database)."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.club.messages import (
    Envelope,
    MessageError,
    Receipt,
    check_link,
    check_row,
    parse_topic,
    sign,
    verify_signature,
)
from controller.club.outbox import Outbox
from controller.club.plot import ledger_svg, running_totals
from controller.club.publisher import ClubLink, row_to_body
from controller.journal import Journal

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                        max_size=3), max_leaves=8)


@given(seq=st.integers(1, 2**40), body=st.dictionaries(st.text(max_size=6), json_values, max_size=4),
       sent=st.floats(0, 2e9))
def test_an_envelope_comes_back_as_it_went(seq, body, sent):
    env = Envelope("t1", seq, "event", body, sent)
    assert Envelope.from_bytes(env.to_bytes(), table="t1", kind="event") == env


@pytest.mark.parametrize("raw, why", [
    (b"not json", "not JSON"), (b"[1,2]", "not a JSON object"),
    (b'{"table":"t2","seq":1,"kind":"event","body":{},"sent":1}', "says table"),
    (b'{"table":"t1","seq":0,"kind":"event","body":{},"sent":1}', "seq"),
    (b'{"table":"t1","seq":true,"kind":"event","body":{},"sent":1}', "seq"),
    (b'{"table":"t1","seq":1,"kind":"rows","body":{},"sent":1}', "kind"),
    (b'{"table":"t1","seq":1,"kind":"event","body":[],"sent":1}', "body"),
])
def test_a_malformed_envelope_is_refused_with_its_reason(raw, why):
    with pytest.raises(MessageError, match=why):
        Envelope.from_bytes(raw, table="t1", kind="event")


@pytest.mark.parametrize("topic", ["hongsi/room1/t1", "other/room1/t1/event", "hongsi/Room/t1/event",
                                   "hongsi/room1/t1/secrets", "hongsi/room1/+/event"])
def test_a_topic_outside_the_scheme_is_refused(topic):
    with pytest.raises(MessageError):
        parse_topic(topic)


def test_a_signed_receipt_verifies_and_any_change_does_not():
    key = Ed25519PrivateKey.generate()
    good = sign(Receipt(3, 40, "deal_end", "a" * 64), key)
    assert verify_signature(good) is True
    assert verify_signature(Receipt(3, 40, "deal_end", "a" * 64)) is None   # unsigned
    for changed in (Receipt(3, 40, "deal_end", "b" * 64, good.signature, good.public_key),
                    Receipt(3, 41, "deal_end", "a" * 64, good.signature, good.public_key),
                    Receipt(3, 40, "deal_end", "a" * 64, good.signature,
                            sign(good, Ed25519PrivateKey.generate()).public_key)):
        assert verify_signature(changed) is False
    with pytest.raises(MessageError):
        Receipt.from_body({"round": 1, "row_seq": 2, "row_kind": "deal_end", "head": "xyz"})


def test_rows_check_out_and_every_change_is_caught(tmp_path):
    j = Journal(tmp_path / "j.db", durable=False)
    r = j.new_round({"game": "hongsi"})
    j.append(r, "card_read", {"index": 0, "label": "H4"}, image=b"jpeg")
    j.append(r, "round_end", {"status": "done", "scores": [1, -1, 0, 0]})
    rows = [row_to_body(x) for x in j.rows()]
    j.close()
    prev = None
    for row in rows:
        assert check_row(row) == [] and check_link(prev, row) == []
        prev = row["hash"]
    for field, value in (("data", {"index": 0, "label": "S5"}), ("t", rows[1]["t"] + 1), ("kind", "other"),
                         ("round", 9), ("image", None)):
        assert check_row({**rows[1], field: value}), field
    assert check_link(rows[0]["hash"], {**rows[1], "prev": "0" * 64})


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["put", "ack"]), max_size=30))
def test_the_outbox_keeps_order_and_forgets_only_what_was_acknowledged(tmp_path_factory, steps):
    box = Outbox(tmp_path_factory.mktemp("o") / "out.db")
    put: list[int] = []
    for step in steps:
        if step == "put":
            put.append(box.put("event", {"n": len(put)}))
        elif put:
            box.ack(put[len(put) // 2])
    pending = [seq for seq, *_ in box.pending(0, 1000)]
    assert pending == sorted(pending) == [s for s in put if s > box.acked]
    box.close()


def test_a_club_address_is_read_whole_or_refused():
    link = ClubLink.parse("mqtts://t1:p%40ss@club.local:8884/room1/t1?ca=/etc/ca.crt")
    assert (link.host, link.port, link.room, link.table, link.username, link.password, link.tls, link.ca_file) == \
        ("club.local", 8884, "room1", "t1", "t1", "p@ss", True, "/etc/ca.crt")
    assert ClubLink.parse("mqtt://h/room1", club=True).table == "club"
    for bad in ("http://h/room1/t1", "mqtt://h/room1", "mqtt://h/Room/t1", "mqtt://h/room1/t1/x"):
        with pytest.raises(MessageError):
            ClubLink.parse(bad)


def test_the_ledger_plot_draws_each_players_running_total():
    entries = [{"player": "A", "delta": 2}, {"player": "B", "delta": -2}, {"player": "A", "delta": 3}]
    assert running_totals(entries) == {"A": [0, 2, 5], "B": [0, -2]}
    svg = ledger_svg(entries)
    assert svg.count("<polyline") == 2 and "A: 5" in svg and "B: -2" in svg
