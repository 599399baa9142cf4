"""Benchmark the table service (prints figures; no assertions).

1. Latency from a card leaving the rig (the deal source reporting it dealt) to its event reaching an SSE
   client on loopback: median and p99 over every card of several deals. The deal runs on the virtual rig
   with the real dealer when the rig's parts are installed (``--rig``), else on the software deal.
2. Requests per second for the public state (``GET /api/rounds/{id}``) under a bounded loopback load
   (a fixed number of requests and a time cap, 127.0.0.1 only), with ``GET /api/health`` as the peer
   in the same run: the ratio says what building the public view costs.
3. SSE lag under writes: ``--sse-clients`` (12) clients read ``/api/events`` while writers POST actions
   at ``--rate`` (120) a second for ``--seconds``; the lag of an event is the moment a client reads it
   minus the moment the hub stamped it (``ts``). Clients and writers run in another process.

Run: ``.venv/bin/python benchmarks/service.py [--deals 3] [--requests 3000] [--clients 4] [--only sse]``.
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


def sse_load(url: str, rid: int, token: str, clients: int, rate: float, seconds: float) -> dict[str, Any]:
    """In the load process: ``clients`` SSE readers, and writers POSTing refused actions (each one a
    journal row and an ``action``, a ``refused`` and a ``voice`` event) at ``rate`` a second."""
    import json as _json

    lags: list[list[float]] = [[] for _ in range(clients)]
    reconnects = [0] * clients
    stop = threading.Event()
    ready = threading.Barrier(clients + 1)

    def reader(i: int) -> None:
        last: str | None = None
        first = True
        with httpx.Client(timeout=httpx.Timeout(5.0, read=30.0)) as client:
            while not stop.is_set():
                headers = {"Last-Event-ID": last} if last else {}
                with client.stream("GET", url + "/api/events", headers=headers) as resp:
                    if first:
                        ready.wait()
                        first = False
                    for line in resp.iter_lines():
                        if line.startswith("id: "):
                            last = line[4:]
                        elif line.startswith("data: "):
                            ev = _json.loads(line[6:])
                            if ev.get("type") != "bench_end":
                                lags[i].append((time.time() - ev["ts"]) * 1000)
                            elif stop.is_set():
                                return
                reconnects[i] += 1

    threads = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    ready.wait()
    writers, sent, errors = 4, [0] * 4, [0] * 4
    t0 = time.perf_counter()
    n_total = int(rate * seconds)

    def writer(w: int) -> None:
        with httpx.Client(base_url=url, timeout=10, headers={"Authorization": f"Bearer {token}"}) as client:
            for k in range(w, n_total, writers):
                delay = t0 + k / rate - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                r = client.post(f"/api/rounds/{rid}/events", json={"seat": 1 + k % 3, "action": "play",
                                                                    "cards": ["H4"]})
                sent[w] += 1
                errors[w] += r.status_code != 200

    ws = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in ws:
        t.start()
    for t in ws:
        t.join()
    took = time.perf_counter() - t0
    time.sleep(1.0)
    stop.set()
    for t in threads:   # the server's next bench_end event lets each reader see the stop
        t.join(timeout=5)
    return {"lags": [x for per in lags for x in per], "per_client": [len(x) for x in lags],
            "reconnects": sum(reconnects), "writes": sum(sent), "errors": sum(errors), "took": took}


def bench_sse(clients: int, rate: float, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        svc = TableService(Path(tmp), SoftwareDealSource(seed=2), bot_delay=0.0)
        srv = LiveServer(create_app(svc), svc).start()
        try:
            rnd = svc.start_round(game="hongsi", first_seat=0, bots=[])
            wait_for(lambda: rnd.phase == "playing")
            with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
                fut = pool.submit(sse_load, srv.url, rnd.id, svc.tokens.operator_token(), clients, rate,
                                  seconds)
                while not fut.done():                # lets the readers see the end once the writers are through
                    time.sleep(0.5)
                    svc.hub.publish({"type": "bench_end"})
                res = fut.result()
        finally:
            srv.stop()
            dropped = svc.hub.dropped
            svc.close()
    lags = res["lags"]
    print(f"SSE lag, {clients} clients, writes POSTed at {rate:.0f}/s for {seconds:.0f} s "
          f"({res['writes']} writes in {res['took']:.1f} s = {res['writes'] / res['took']:.0f}/s, "
          f"{res['errors']} not 200):")
    print(f"  {len(lags)} events read ({min(res['per_client'])}..{max(res['per_client'])} a client); "
          f"clients dropped {dropped}, reconnects {res['reconnects']}")
    print(f"  lag median {statistics.median(lags):.1f} ms   p99 {percentile(lags, 0.99):.1f} ms   "
          f"max {max(lags):.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--cap", type=float, default=15.0, help="seconds at most per load run")
    ap.add_argument("--rig", action=argparse.BooleanOptionalAction, default=True,
                    help="deal on the virtual rig with the real dealer (default) or in software")
    ap.add_argument("--sse-clients", type=int, default=12)
    ap.add_argument("--rate", type=float, default=120.0, help="writes a second, for the SSE lag")
    ap.add_argument("--seconds", type=float, default=10.0, help="how long the writes go on")
    ap.add_argument("--only", choices=["latency", "throughput", "sse"], default=None)
    args = ap.parse_args()
    if args.only in (None, "latency"):
        bench_latency(args.deals, args.rig)
    if args.only in (None, "throughput"):
        bench_throughput(args.requests, args.clients, args.cap)
    if args.only in (None, "sse"):
        bench_sse(args.sse_clients, args.rate, args.seconds)


if __name__ == "__main__":
    main()
