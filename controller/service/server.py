"""``hongsi serve`` and ``hongsi token``: build the parts, print the links, run uvicorn.

``hongsi serve --sim`` starts the virtual rig (``firmware_bridge.sim.VirtualRig``) in this process and
deals on it through the real serial link, camera stream and card reader. Without ``--sim`` it talks to
the rig of the configuration (``serial_port``/``camera_url``; ``sim`` there means the virtual rig too).
When the rig's parts are not installed, it says so and deals in software (``--no-rig`` forces that).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from controller.service.deal import DealSource, SoftwareDealSource


def build_deal_source(cfg: Any, journal: Any, *, sim: bool, no_rig: bool = False, speed: float = 8.0,
                      card_delay: float = 0.12, say: Any = print) -> tuple[DealSource, Any]:
    """The deal source for ``cfg`` and the virtual rig it started (or None)."""
    if no_rig:
        return SoftwareDealSource(card_delay=card_delay), None
    from controller.service.deal import RigDealSource

    virtual = None
    serial, camera = cfg.serial_port, cfg.camera_url
    try:
        if sim or serial == "sim":
            from firmware_bridge.sim import VirtualRig

            virtual = VirtualRig(speed=speed)
            ends = virtual.start()
            serial, camera = ends["serial"], ends["camera"]
            say(f"virtual rig: serial {serial}")  # not the camera's URL: its frames show the cards
        load_deck = virtual.board.load_deck if virtual is not None else None  # the virtual operator's hands
        return RigDealSource.open(serial=serial, camera_url=camera, journal=journal, config=cfg,
                                  load_deck=load_deck, virtual_board=virtual.board if virtual else None), virtual
    except Exception as exc:  # a part not installed (or no model yet): the table still works, in software
        if virtual is not None:
            virtual.stop()
        if not (sim or serial == "sim"):
            raise ValueError(f"cannot reach the rig (serial {serial}, camera {camera}): {exc}; "
                             "check the cables and the configuration, or run with --sim or --no-rig") from None
        say(f"note: the virtual rig cannot run here ({type(exc).__name__}: {exc}); dealing in software instead")
        return SoftwareDealSource(card_delay=card_delay), None


def serve(*, sim: bool, host: str | None = None, port: int | None = None, no_rig: bool = False,
          config: Path | None = None, bot_delay: float = 0.8, club: str | None = None,
          table_camera: bool = False) -> None:
    """Run the table service on ``host``:``port`` (default: the config's) until SIGINT or SIGTERM.
    Raise ``PortInUse`` (a ValueError) before anything starts when that address cannot be listened on."""
    import uvicorn

    from controller.config import load_config
    from controller.journal import Journal, private_dir
    from controller.service.app import create_app
    from controller.service.table import TableService
    from controller.service.voice import Announcer

    cfg = load_config(config)
    host = cfg.host if host is None else host
    port = cfg.port if port is None else port
    check_port(host, port)  # before the rig starts and the links are printed
    data_dir = Path(cfg.data_dir).expanduser()
    private_dir(data_dir)
    journal = Journal(data_dir / "journal.db")
    source, virtual = build_deal_source(cfg, journal, sim=sim, no_rig=no_rig,
                                        say=lambda t: sys.stderr.write(t + "\n"))
    svc = TableService(data_dir, source, voice=Announcer(speak=cfg.voice), bot_delay=bot_delay,
                       seats=cfg.seats, journal=journal)
    watcher = table = None
    if table_camera or cfg.table_camera.source:  # the table camera referees the plays (issue 29)
        from controller.table_camera.attach import attach_table_camera

        watcher, table = attach_table_camera(svc, cfg, sim=sim or virtual is not None, virtual_rig=virtual,
                                             say=lambda t: sys.stderr.write(t + "\n"))
    base = table_address(host, port)
    # listening on every interface: the seat links and QR codes name this machine's LAN address, not
    # the address the operator's own browser happened to use (often 127.0.0.1)
    app = create_app(svc, base_url=base if host in ANY_HOST else None)
    from controller.club.publisher import attach_publisher

    publisher = attach_publisher(svc, cfg, url=club)  # the card room of --club or [club], if any
    from controller.service.panel import open_panel

    panel = open_panel(svc, cfg)  # the seat LEDs, deal button, e-stop and buzzer on a Pi
    running = data_dir / RUNNING_FILE  # where `hongsi token --seat N` finds the links' address and port
    running.write_text(json.dumps({"url": base, "pid": os.getpid()}))
    # the operator's link carries the token: shown on a terminal, never written to a service log
    operator = (f"{base}/operator#t={svc.tokens.operator_token()}" if sys.stderr.isatty()
                else f"{base}/operator (the token: hongsi token)")
    sys.stderr.write(f"table display  {base}/\n"
                     f"operator page  {operator}\n"
                     f"seat links     hongsi token --seat N (or the operator page)\n")
    # uvicorn re-raises SIGINT/SIGTERM once it has shut down; these handlers take them, so that the
    # rig, the voice and the journal are closed below and the command exits 0.
    stops: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, _frame: stops.append(signum))
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
    finally:
        running.unlink(missing_ok=True)
        if publisher is not None:
            publisher.close()
        if panel is not None:
            panel.close()
        if watcher is not None:
            watcher.close()
        if table is not None:
            table.stop()
        svc.close()
        if virtual is not None:
            virtual.stop()


def token(seat: int | None, *, config: Path | None = None) -> str:
    """``hongsi token``: the operator token; with ``seat``, a new seat token, its link and a QR code."""
    from controller.config import load_config
    from controller.service.app import qr_terminal, seat_url
    from controller.service.tokens import TokenStore

    cfg = load_config(config)
    store = TokenStore(Path(cfg.data_dir))
    if seat is None:
        return store.operator_token() + "\n"
    if not 0 <= seat < cfg.seats:
        raise ValueError(f"seat {seat}: this table has seats 0..{cfg.seats - 1}")
    tok = store.new_seat_token(seat)
    url = seat_url(running_address(Path(cfg.data_dir).expanduser()) or table_address(cfg.host, cfg.port), tok)
    return f"{tok}\n{url}\n{qr_terminal(url)}"


RUNNING_FILE = "service.json"
ANY_HOST = ("0.0.0.0", "::", "")


class PortInUse(ValueError):
    """The service cannot listen on its address (taken by another program, or not this machine's)."""


def check_port(host: str, port: int) -> None:
    """Listen on ``host``:``port`` for a moment, as uvicorn will (SO_REUSEADDR), then let go."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise PortInUse(f"cannot listen on {host}:{port}: {host!r} is not an address of this machine "
                        f"({exc.strerror})") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
            sock.listen(1)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(f"port {port} is already in use on {host} (another hongsi serve?); "
                                f"stop that program or choose another port: PORT={port + 1} make run, "
                                f"or hongsi serve --port {port + 1}") from None
            why = {errno.EADDRNOTAVAIL: f"{host} is not an address of this machine (0.0.0.0: every one)",
                   errno.EACCES: f"port {port} needs root; use a port from 1024 up"}.get(exc.errno, exc.strerror)
            raise PortInUse(f"cannot listen on {host}:{port}: {why}") from None


def table_address(host: str, port: int) -> str:
    """The service's address as a phone at the table reaches it: for a service listening on every
    interface (``0.0.0.0``), this machine's address on its local network."""
    if host in ANY_HOST:
        import socket

        try:  # no packet is sent: connecting a UDP socket only picks the interface of the default route
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.connect(("10.255.255.255", 1))
                host = sock.getsockname()[0]
        except OSError:
            host = "127.0.0.1"
    return f"http://{host}:{port}"


def running_address(data_dir: Path) -> str | None:
    """The address of the service running on ``data_dir`` now (None when none runs)."""
    try:
        info = json.loads((data_dir / RUNNING_FILE).read_text())
        os.kill(int(info["pid"]), 0)
        return str(info["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
