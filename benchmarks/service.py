"""Benchmark the table service (prints figures; no assertions).

1. Latency from a card leaving the rig (the deal source reporting it dealt) to its event reaching an SSE
   client on loopback: median and p99 over every card of several deals. The deal runs on the virtual rig
   with the real dealer when the rig's parts are installed (``--rig``), else on the software deal.
2. Requests per second for the public state (``GET /api/rounds/{id}``) under a bounded loopback load
   (a fixed number of requests and a time cap, 127.0.0.1 only), with ``GET /api/health`` as the peer
   in the same run: the ratio says what building the public view costs.

Run: ``.venv/bin/python benchmarks/service.py [--deals 3] [--requests 3000] [--clients 4]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "service"))

from svc_helpers import LiveServer, SSECollector, wait_for  # noqa: E402

from controller.service.app import create_app  # noqa: E402
from controller.service.deal import SoftwareDealSource  # noqa: E402
from controller.service.table import TableService  # noqa: E402


class Stamped:
    """Wraps a deal source: notes the moment each card is reported dealt, before the service sees it."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.left: dict[tuple[int, int], float] = {}

    def deal(self, *, round_id: int, on_event: Any, **kw: Any) -> Any:
        def stamped(ev: dict[str, Any]) -> None:
            if ev.get("type") in ("card_dealt", "card"):
                self.left[(round_id, ev["index"])] = time.perf_counter()
            on_event(ev)

        return self.inner.deal(round_id=round_id, on_event=stamped, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[k]


def rig_source(data: Path) -> tuple[Any, Any, str]:
    from controller.config import load_config
    from controller.journal import Journal
    from controller.service.server import build_deal_source

    cfg = load_config(env={"HONGSI_SHUFFLE_PASSES": "1", "HONGSI_VOICE": "false"})
    journal = Journal(data / "journal.db")
    source, virtual = build_deal_source(cfg, journal, sim=True, speed=40.0, say=lambda t: None)
    kind = "virtual rig + dealer" if virtual is not None else "software deal (rig parts missing)"
    return source, (virtual, journal), kind


def bench_latency(deals: int, use_rig: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        extra: Any = (None, None)
        if use_rig:
            inner, extra, kind = rig_source(data)
        else:
            inner, kind = SoftwareDealSource(card_delay=0.004, seed=1), "software deal, 4 ms a card"
        source = Stamped(inner)
        svc = TableService(data, source, bot_delay=0.0, journal=extra[1])
        srv = LiveServer(create_app(svc), svc).start()
        sse = SSECollector(srv.url).start()
        try:
            for _ in range(deals):
                rnd = svc.start_round(game="hongsi", bots="all")
                wait_for(lambda r=rnd: r.phase in ("finished", "void", "interrupted"), timeout=600, step=0.05)
            wait_for(lambda: sum(1 for _t, e in sse.events if e["type"] == "finished") >= deals, timeout=30)
        finally:
            sse.stop(svc)
            srv.stop()
            svc.close()
            if extra[0] is not None:
                extra[0].stop()
        got = {(e["round"], e["index"]): t for t, e in sse.events if e["type"] == "deal" and "index" in e}
        lat = [(got[k] - t0) * 1000 for k, t0 in source.left.items() if k in got]
        print(f"card leaves the rig -> SSE client ({kind}; {len(lat)} cards over {deals} deals):")
        print(f"  median {statistics.median(lat):.2f} ms   p99 {percentile(lat, 0.99):.2f} ms   "
              f"max {max(lat):.2f} ms")


def load(url: str, path: str, total: int, clients: int, cap_s: float) -> tuple[int, float]:
    """``total`` GETs of ``path`` from ``clients`` keep-alive clients, at most ``cap_s`` seconds."""
    done = [0] * clients
    per = total // clients
    deadline = time.perf_counter() + cap_s

    def worker(i: int) -> None:
        with httpx.Client(base_url=url, timeout=10) as client:
            for _ in range(per):
                if time.perf_counter() > deadline:
                    return
                r = client.get(path)
                if r.status_code != 200:
                    raise RuntimeError(f"{path}: {r.status_code}")
                done[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done), time.perf_counter() - t0


def bench_throughput(requests: int, clients: int, cap_s: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        svc = TableService(Path(tmp), SoftwareDealSource(seed=2), bot_delay=0.0)
        srv = LiveServer(create_app(svc), svc).start()
        try:
            rnd = svc.start_round(game="hongsi", bots=[1, 2, 3])  # a hand in play, mid-trick
            wait_for(lambda: rnd.phase == "playing")
            # the clients run in a process of their own, so that they do not share the server's GIL
            with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
                pool.submit(load, srv.url, "/api/health", 200, clients, cap_s).result()  # warm up
                runs: dict[str, list[tuple[int, float]]] = {"pub": [], "peer": []}
                for _ in range(2):  # alternate, keep the best of each: less order bias
                    runs["pub"].append(pool.submit(load, srv.url, f"/api/rounds/{rnd.id}", requests, clients,
                                                   cap_s).result())
                    runs["peer"].append(pool.submit(load, srv.url, "/api/health", requests, clients,
                                                    cap_s).result())
            n_pub, t_pub = max(runs["pub"], key=lambda r: r[0] / r[1])
            n_peer, t_peer = max(runs["peer"], key=lambda r: r[0] / r[1])
        finally:
            srv.stop()
            svc.close()
    pub, peer = n_pub / t_pub, n_peer / t_peer
    print(f"loopback load from another process, {clients} keep-alive clients, up to {requests} requests / "
          f"{cap_s:.0f} s a run, best of 2:")
    print(f"  GET /api/rounds/{{id}} (public state): {pub:8.0f} req/s  ({n_pub} in {t_pub:.2f} s)")
    print(f"  GET /api/health (peer):               {peer:8.0f} req/s  ({n_peer} in {t_peer:.2f} s)")
    print(f"  public state / peer = {pub / peer:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--cap", type=float, default=15.0, help="seconds at most per load run")
    ap.add_argument("--rig", action=argparse.BooleanOptionalAction, default=True,
                    help="deal on the virtual rig with the real dealer (default) or in software")
    args = ap.parse_args()
    bench_latency(args.deals, args.rig)
    bench_throughput(args.requests, args.clients, args.cap)


if __name__ == "__main__":
    main()
