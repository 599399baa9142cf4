"""How many of the sampler's worlds the replay refuses, and why (issue 34).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/sampler.py --game shengji --deals 8 --samples 10
    PYTHONPATH=$PWD .venv/bin/python benchmarks/sampler.py --game shengji --deals 4 --bot-ms 200
    PYTHONPATH=$PWD .venv/bin/python benchmarks/sampler.py --game zhuohonga --preset hebei-tianxuan

With ``--samples``: greedy bots play each deal, and at every move of one seat (rotated deal by deal) the
sampler draws that many worlds for it, one try each (the same positions and draws on any machine). With
``--bot-ms``: the search bot plays that seat, and every sample it draws in its time is counted. Printed:
what became of the samples, kept or refused with the rule the replay broke.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.bots import determinize  # noqa: E402
from engine.bots.infoset import info_set  # noqa: E402
from engine.bots.table import deal, greedy_policy, run_hand, search_policy  # noqa: E402
from engine.registry import get_game  # noqa: E402

spent = [0.0, 0.0]  # the sampler's time on refused and on kept samples (--samples only)
drawn = [0, 0]


def sampling(samples: int) -> Any:
    """Greedy's move, after drawing ``samples`` worlds for the seat (with a random stream of their own: the
    greedy moves, and so the positions, are the same whatever the sampler draws)."""
    draws = random.Random(0)

    def policy(game: Any, state: Any, seat: int, rng: random.Random) -> Any:
        info = info_set(game, state, seat)
        for _ in range(samples):
            t = time.perf_counter()
            kept = determinize.determinize(game, info, draws, tries=1) is not None
            spent[kept] += time.perf_counter() - t
            drawn[kept] += 1
        return greedy_policy(game, state, seat, rng)

    return policy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="shengji")
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--samples", type=int, default=10, help="worlds drawn at each of the seat's moves")
    ap.add_argument("--bot-ms", type=float, help="the search bot in the seat instead, this long a move")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", help="the game's preset (default: its default preset)")
    args = ap.parse_args()
    game = get_game(args.game)
    settings = game.settings(args.preset)
    seats = game.deal_plan(settings).seats
    rng = random.Random(args.seed)
    watched = search_policy("careful", args.bot_ms) if args.bot_ms else sampling(args.samples)
    t0 = time.perf_counter()
    for d in range(args.deals):
        hands, bottom = deal(game, settings, rng)
        policies = [greedy_policy] * seats
        policies[d % seats] = watched
        run_hand(game, settings, hands, bottom, policies, random.Random(d))
    stats = getattr(determinize, "STATS", None) or Counter({"kept": drawn[1], "refused": drawn[0]})
    total = sum(stats.values())
    refused = total - stats["kept"]
    print(f"{args.game}: {args.deals} deals, {time.perf_counter() - t0:.0f} s")
    print(f"samples {total}, refused {refused} = {100 * refused / max(total, 1):.1f} %")
    for why, n in stats.most_common():
        print(f"  {n:7d} {100 * n / max(total, 1):5.1f} %  {why}")
    if drawn[1]:
        print(
            f"sampler time per kept world: {1000 * sum(spent) / drawn[1]:.2f} ms ({drawn[1]} kept of {sum(drawn)})"
        )


if __name__ == "__main__":
    main()
