"""The table camera's plays read offline: real hands of each game, played by the greedy bots, each play
thrown onto the virtual table (``firmware_bridge.sim.table_camera``) and read from two settled pictures
(JPEG as the stream sends them) against the seat's legal plays, without the service's threads. Fast and
repeatable (seeded), for tuning the play reader; benchmarks/table_camera.py is the end-to-end figure.

Per design and game: plays read right, asked (None), wrong (target: none), and the hands with no play
asked (an estimate of issue 29's "record = truth with nobody asked").

    .venv/bin/python benchmarks/table_camera_plays.py --hands 2 [--game wakeng] [--design paris] [--refs] [--blobs]

``--blobs``: the new cards' indices are found as ink blobs (the reader before the corner detector), the
peer on the same plays. ``--refs``: each play is read a second time with its seat's hand as dealt (``vision.hand_refs``: one dealer
window frame per card, rendered as the virtual rig renders them); the ``refs`` rows count those readings.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.bots.greedy import greedy_action  # noqa: E402
from engine.registry import game_names, get_game  # noqa: E402
from firmware_bridge.sim.table_camera import NUDGE, VirtualTable  # noqa: E402
from vision import play_corners, play_read, play_weigh  # noqa: E402
from vision.card_art import HELD_OUT, cached_designs  # noqa: E402
from vision.pile import PLAY_MEMBER_MODEL, PileReader  # noqa: E402

READERS = {"read": play_read.read_play, "weigh": lambda *a, card=None, **k: play_weigh.read_play(*a, **k)}
READER = "read"
SEAT_REFS = False  # --seat-refs
NUDGE_RATE = NUDGE  # --nudge: how often a throw pushes a card of the last play
DUMP: Path | None = None  # --dump: where the pictures of asked and wrong plays go


def shot(vt: VirtualTable) -> np.ndarray:
    """A settled picture as the service gets it: through the stream's JPEG."""
    jpg = cv2.imencode(".jpg", vt.picture(), [cv2.IMWRITE_JPEG_QUALITY, 88])[1]
    return cv2.imdecode(jpg, cv2.IMREAD_COLOR)


def plays_of_a_hand(game_name: str, seed: int):
    """(seat, cards, legal plays) of every play of one hand played by the greedy bots."""
    game = get_game(game_name)
    rules = game.settings()
    plan = game.deal_plan(rules)
    rng = random.Random(seed)
    cards = plan.deck.names()
    rng.shuffle(cards)
    hands, at = [], 0
    for n in plan.cards_per_seat:
        hands.append(cards[at : at + n])
        at += n
    from engine.cards import parse_cards

    state = game.new_state([parse_cards(h) for h in hands], parse_cards(cards[at:]), rules)
    out = []
    for _ in range(2000):
        if state.is_terminal():
            break
        seat = state.current_player()
        if seat is None:
            break
        legal = state.legal_actions(seat)
        action = greedy_action(state, seat, rng)
        if action.get("action") == "play" and action.get("cards"):
            out.append(
                (
                    seat,
                    list(action["cards"]),
                    [list(a["cards"]) for a in legal if a.get("action") == "play" and a.get("cards")],
                )
            )
        state.apply(action)
    return out, game.info.trick_taking, plan.seats, [[str(c) for c in h] for h in hands], cards[at:]


def seat_refs(hands: list[list[str]], bottom: list[str], design: str, seed: int, reader: PileReader) -> list:
    """Each seat's hand as the dealer camera saw it (one window frame per card), likened as the service does:
    to every card dealt at the table, the seat's own being its hand and the bottom. ``SEAT_REFS``: to the
    seat's hand alone (the reader before the whole table's pictures, the peer)."""
    from vision.hand_refs import HandRefs
    from vision.render import face_for, render_window_frame

    rng = np.random.default_rng([seed, 29])
    seats = [HandRefs.from_window_frames([render_window_frame(c, rng, design=design, face=face_for(c, rng, design))
                                          for c in hand], hand, reader) for hand in hands]
    if SEAT_REFS:
        return seats
    if bottom:
        seats.append(HandRefs.from_window_frames([render_window_frame(c, rng, design=design,
                                                                      face=face_for(c, rng, design))
                                                  for c in bottom], bottom, reader))
    table = HandRefs.table(seats)
    return [table.for_seat(hand + bottom) for hand in hands]


def one_hand(game: str, design: str, seed: int, reader: PileReader, log=None, refs: bool = False) -> Counter:
    plays, tricks, seats, hands, bottom = plays_of_a_hand(game, seed)
    dealt = seat_refs(hands, bottom, design, seed, reader) if refs else None
    vt = VirtualTable(seed=seed, design=design, hand_rate=0.0, nudge=NUDGE_RATE)
    vt.noise = np.random.default_rng([seed, 7])  # the sensor noise too: a run repeats exactly
    out = Counter(hands=1)
    try:
        before = shot(vt)
        in_trick = 0
        size = play_read.CardSize()
        for seat, cards, options in plays:
            with vt.lock:
                vt.land(cards)  # now and then it pushes a card of the last play (NUDGE)
            after = shot(vt)
            t = time.process_time()
            got = READERS[READER](before, after, options, reader=reader, card=size.card)
            out["ms"] += 1000 * (time.process_time() - t)
            verdict = (
                "asked" if got.labels is None else "right" if sorted(got.labels) == sorted(cards) else "wrong"
            )
            out[verdict] += 1
            out["plays"] += 1
            if DUMP is not None and verdict != "right":
                stem = DUMP / f"{game}-{design}-{seed}-{out['plays']:03d}-{verdict}"
                cv2.imwrite(f"{stem}-before.png", before)
                cv2.imwrite(f"{stem}-after.png", after)
            got2 = None
            if dealt is not None:
                got2 = READERS[READER](before, after, options, reader=reader, card=size.card, refs=dealt[seat])
                out["refs_" + ("asked" if got2.labels is None else
                               "right" if sorted(got2.labels) == sorted(cards) else "wrong")] += 1
            if log is not None:
                log.write(
                    json.dumps(
                        {
                            "game": game,
                            "design": design,
                            "seed": seed,
                            "cards": cards,
                            "read": got.labels,
                            "n_options": len(options),
                            "verdict": verdict,
                            "why": getattr(got, "why", ""),
                            **({} if got2 is None else {"refs_read": got2.labels, "refs_why": got2.why}),
                        }
                    )
                    + "\n"
                )
            # read or tapped, the play is known (as the service's watcher learns it)
            size.learn(getattr(got, "change", None), [got.labels if got.labels is not None else cards])
            before = after
            in_trick += 1
            if tricks and in_trick == seats:
                vt.base = vt.cloth.copy()
                vt.lying = []
                before, in_trick = shot(vt), 0
    finally:
        vt.stop()
    out["alone"] += out["asked"] == 0 and out["wrong"] == 0
    out["refs_alone"] += refs and out["refs_asked"] == 0 and out["refs_wrong"] == 0
    return out


def _figures(got: Counter, p: str = "") -> list[str]:
    n = max(got["plays"], 1)
    right = f"{got[p + 'right']} ({100 * got[p + 'right'] / n:.1f} %)"
    return [str(got[k]) for k in ("hands", p + "alone", "plays")] + [
        right,
        str(got[p + "asked"]),
        str(got[p + "wrong"]),
        f"{got['ms'] / n:.0f}",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1, help="hands per game and design")
    ap.add_argument("--game", action="append", help="a game (default: every game)")
    ap.add_argument("--design", action="append", help="a deck design (default: the held-out ones cached)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", type=Path, help="write each play's reading as a JSON line")
    ap.add_argument("--reader", choices=sorted(READERS), default="read", help="which play reader")
    ap.add_argument("--refs", action="store_true", help="also read each play with its seat's hand as dealt")
    ap.add_argument("--seat-refs", action="store_true",
                    help="with --refs: liken the indices to the seat's hand alone, not to every card dealt (the peer)")
    ap.add_argument("--nudge", type=float, default=NUDGE, help="how often a throw pushes a card of the last play")
    ap.add_argument("--blobs", action="store_true", help="find the new indices as ink blobs, not with the corner detector (the peer)")
    ap.add_argument("--dump", type=Path, help="write the pictures before and after each play not read right here")
    ap.add_argument("--member", type=Path, default=PLAY_MEMBER_MODEL, help="the member pooled on a play's new indices")
    ap.add_argument("--with-member", choices=("yes", "no"), default=None,
                    help="pool that member with the five on the new indices (default: as vision.play_corners says)")
    args = ap.parse_args()
    if args.with_member is not None:
        play_corners.WITH_MEMBER = args.with_member == "yes"
    global READER, NUDGE_RATE, SEAT_REFS, DUMP
    READER, NUDGE_RATE, SEAT_REFS, DUMP = args.reader, args.nudge, args.seat_refs, args.dump
    if DUMP is not None:
        DUMP.mkdir(parents=True, exist_ok=True)
    games = args.game or game_names()
    designs = args.design or [d for d in HELD_OUT if d in cached_designs()] or ["poker"]
    reader = PileReader(threads=1, detector=None) if args.blobs else PileReader(threads=1, play_member=args.member)
    how = "ink blobs" if args.blobs else "the corner detector"
    how += ", the play member pooled" if play_corners.WITH_MEMBER else ""
    table = Table(title=f"plays of real hands read from the virtual table (offline), indices found by {how}")
    for col in ("design", "game", "hands", "no play asked", "plays", "right", "asked", "wrong", "ms / read"):
        table.add_column(col, justify="right")
    total = Counter()
    log = open(args.log, "w") if args.log else None
    for design in designs:
        for game in games:
            got = Counter()
            for i in range(args.hands):
                got.update(one_hand(game, design, args.seed + i, reader, log, args.refs))
            total.update(got)
            table.add_row(design, game, *_figures(got))
            if args.refs:
                table.add_row(design, game + " refs", *_figures(got, "refs_"))
    table.add_row("all", "", *_figures(total))
    if args.refs:
        table.add_row("all", "refs", *_figures(total, "refs_"))
    Console(width=150).print(table)


if __name__ == "__main__":
    main()
