"""The deal: shuffle, read every card at the window, deal it, journal every step, decode the deck.

Using it (the table service and ``hongsi deal`` both do exactly this)::

    from controller.deal import Dealer, EventOperator
    dealer = Dealer(rig, camera, reader, journal, config=cfg, voice=voice, panel=lights,
                    operator=EventOperator())
    result = dealer.run(game="hongsi", first_seat=None, fair=True, on_event=callback)
    result.status          # "done" | "stopped" (bad deck: result.problems, .codes, .message, .message_zh) | "void"
    result.record          # the game record of game-record.md, events [] (hands, bottom, preset, deal)
    result.first_player    # announce.FirstPlayer (seat, card, rule, text_en, text_zh) or None
    dealer.resume(round_id, on_event=callback)   # after a crash / kill -9: re-read, check, continue
    void_round(journal, round_id)                # end an interrupted hand (for a re-shuffle); no rig needed
    dealer.reveal(round_id) -> proof dict        # after the hand: the fair-deal seed, for verify-deal
    dealer.estop()                               # from any thread: motors off, the deal pauses
    Dealer.open_round(journal) -> round id | None  # an interrupted (or still dealing) round

``run(..., round_=rid)`` deals into a round the caller already opened with ``journal.new_round``.

The modules, top to bottom: :mod:`~controller.deal.flow` (the dealer: the flow and the motion),
:mod:`~controller.deal.window` (reading the window), :mod:`~controller.deal.double_feed`,
:mod:`~controller.deal.recovery` (rig faults, getting back in step), :mod:`~controller.deal.decode`,
:mod:`~controller.deal.problems` (problems as data, and their one English/Chinese text table),
:mod:`~controller.deal.state` (the deal rebuilt from the journal, older journals included),
:mod:`~controller.deal.operators`, :mod:`~controller.deal.seams` (the rig, camera and reader, typed).

**Events** passed to ``on_event`` (plain dicts, public information only — never a card's identity,
hands are secret until the hand is over)::

    {"type": "deal_started", "round": r, "game": g, "total": n, "seats": k, "cards_per_seat": [...],
     "bottom": b, "first_seat": s, "fair": bool, "commitment": hex | None}
    {"type": "shuffling", "round": r, "passes": p}
    {"type": "homing", "round": r}
    {"type": "card_dealt", "round": r, "index": i, "seat": s | None (None = the bottom tray),
     "total": n, "counts": [cards per seat so far], "unsure": bool}
    {"type": "double_feed", "round": r, "index": i, "seat": s}       (two cards went to seat s)
    {"type": "fault", "round": r, "kind": "mcu" | "link", "message": en, "message_zh": zh}  (handled
     without a person: reconnect, re-home, resume from the journal)
    {"type": "paused", "round": r, "reason": "jam" | "camera" | "link" | "estop" | "fault" | "mismatch"
     | "double_feed", "message": en, "message_zh": zh}   (the problem's public words; waiting for
     ``operator.attend``, which gets the whole problem: reason, code, message, message_zh, details)
    {"type": "resumed", "round": r}
    {"type": "deal_stopped", "round": r, "message": en, "message_zh": zh, "problems": [...]}
    {"type": "first_player", "round": r, "seat": s, "seat_label": s + 1, "card": "H4" | None,
     "rule": ..., "text": en, "text_zh": zh}
    {"type": "deal_done", "round": r, "status": "done" | "stopped" | "void", "flags": [...]}

A double feed that carries the last card (or one so near the end that no later card can even the
counts out) to the wrong seat pauses (reason ``double_feed``) for the operator to hand that card, named
(read or known by elimination), to its seat; journaled as ``handed_over``, the record then holds every
card where it must end up. With an :class:`AutoOperator` (unattended) the instruction goes to its
``tell`` (``hongsi deal`` prints it) and the deal finishes, its flag saying nobody confirmed it.

**Journal rows**: the kinds are :data:`controller.journal.ROW_KINDS`. Every ``card_read`` row holds
the ``seat`` its card is dealt to (``-1`` the bottom, None past the plan); :func:`state.card_seats`
gives every read card's final seat from a round's rows (a double feed's unseen card, a hand-over). Each motion is journaled before
it starts (``*_intent``) and after (``*_done``); a good deal ends with ``deal_end`` (the record; the
round stays open for the play, whose end the service journals as ``round_end``), a stopped or voided
one with ``round_end`` (status ``stopped``/``void``).
"""

from __future__ import annotations

from typing import Any

_WHERE = {"Dealer": "flow", "DealResult": "flow", "void_round": "flow", "AutoOperator": "operators",
          "ConsoleOperator": "operators", "DealVoided": "operators", "EventOperator": "operators",
          "Operator": "operators", "Problem": "problems", "DealState": "state"}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:  # lazy: the operators need neither numpy nor the camera
    if name not in _WHERE:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(f"controller.deal.{_WHERE[name]}"), name)
