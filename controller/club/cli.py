"""``hongsi club …``: the club server, its staff accounts, and the local services of ``make club``."""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

club_app = typer.Typer(help="The card room: many tables publish to one club server (MQTT + PostgreSQL).",
                       no_args_is_help=True)
staff_app = typer.Typer(help="The room page's staff accounts.", no_args_is_help=True)
club_app.add_typer(staff_app, name="staff")

Broker = Annotated[str, typer.Option(envvar="HONGSI_CLUB_BROKER",
                                     help="the club's broker: mqtts://club:<password>@host:port/<room>?ca=<ca file>")]
Database = Annotated[str, typer.Option("--db", envvar="HONGSI_CLUB_DATABASE", help="postgresql://… of the archive")]


def _fail(message: str) -> typer.Exit:
    sys.stderr.write(f"hongsi: {' '.join(message.split())}\n")
    return typer.Exit(2)


def _club_errors() -> tuple[type[BaseException], ...]:
    import psycopg
    import sqlalchemy.exc

    from controller.club.accounts import AccountError
    from controller.club.local import ServiceError
    from controller.club.messages import MessageError

    return (MessageError, AccountError, ServiceError, psycopg.OperationalError, sqlalchemy.exc.OperationalError)


def _say(exc: BaseException) -> str:
    """One line for a club error; a database that cannot be reached says so."""
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    if "OperationalError" in type(exc).__name__:
        return f"cannot reach the club's PostgreSQL: {text}"
    return text


def _db_default(db: str) -> str:
    from controller.config import load_config

    return db or load_config().club.database


@club_app.command("serve")
def serve(broker: Broker = "", db: Database = "",
          host: Annotated[str, typer.Option(help="the room page's address")] = "127.0.0.1",
          port: Annotated[int, typer.Option(help="the room page's port")] = 8100) -> None:
    """Subscribe to the room's tables, store in PostgreSQL, serve the room page."""
    from controller.club.publisher import ClubLink
    from controller.club.server import serve as run

    try:
        db = _db_default(db)
        if not broker or not db:
            raise _fail("give the club's --broker and --db (or HONGSI_CLUB_BROKER / HONGSI_CLUB_DATABASE)")
        link = ClubLink.parse(broker, club=True, password=os.environ.get("HONGSI_CLUB_PASSWORD"))
        sys.stderr.write(f"room page  http://{host}:{port}/  (room {link.room})\n")
        run(db, link, host=host, port=port)
    except _club_errors() as exc:
        raise _fail(_say(exc)) from None


@staff_app.command("add")
def staff_add(name: str, db: Database = "") -> None:
    """Add a staff account (or set its password): the password from $HONGSI_STAFF_PASSWORD or a prompt."""
    from controller.club.accounts import add_staff
    from controller.club.store import migrate

    password = os.environ.get("HONGSI_STAFF_PASSWORD") or typer.prompt("password", hide_input=True,
                                                                       confirmation_prompt=True)
    try:
        db = _db_default(db)
        if not db:
            raise _fail("give --db (or HONGSI_CLUB_DATABASE)")
        migrate(db)
        add_staff(db, name, password)
    except _club_errors() as exc:
        raise _fail(_say(exc)) from None
    sys.stdout.write(f"staff {name}: saved\n")


@club_app.command("up")
def up(folder: Annotated[Path, typer.Argument(help="where the services keep their data")] = Path(".club"),
       room: str = "room1", tables: Annotated[int, typer.Option(min=1, max=100)] = 3,
       mqtt_port: int = 8883, pg_port: int = 5433, port: int = 8100) -> None:
    """Start mosquitto and PostgreSQL (Debian's) in FOLDER with the project's config, then the club."""
    from controller.club.accounts import add_staff
    from controller.club.local import LocalBroker, LocalPostgres
    from controller.club.messages import check_name
    from controller.club.publisher import ClubLink
    from controller.club.server import serve as run
    from controller.club.store import migrate

    try:
        check_name("room", room)
        folder = folder.resolve()
        folder.mkdir(parents=True, exist_ok=True, mode=0o755)
        users = _users(folder / "users.json", ["club", *[f"t{i}" for i in range(1, tables + 1)]])
        pg = LocalPostgres(folder / "postgres", pg_port).start()
    except _club_errors() as exc:
        raise _fail(_say(exc)) from None
    try:
        broker = LocalBroker(folder / "mosquitto", room, users, mqtt_port).start()
    except _club_errors() as exc:
        pg.stop()
        raise _fail(_say(exc)) from None
    # uvicorn re-raises SIGINT/SIGTERM once it has stopped; taken here, so the services stop below
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)
    try:
        migrate(pg.dsn)
        if not (folder / "staff.txt").exists():
            password = secrets.token_urlsafe(9)
            add_staff(pg.dsn, "admin", password)
            (folder / "staff.txt").write_text(f"admin {password}\n")
            (folder / "staff.txt").chmod(0o600)
        sys.stderr.write(f"PostgreSQL  {pg.dsn.split('@')[1]}   mosquitto  mqtts://127.0.0.1:{mqtt_port}\n"
                         f"staff log-in: see {folder / 'staff.txt'}\n"
                         "tables join with:\n")
        for name in users:
            if name != "club":
                sys.stderr.write(f"  hongsi serve --sim --port <port> --club '{broker.url(name)}'\n")
        run(pg.dsn, ClubLink.parse(broker.url("club")), port=port)
    finally:
        broker.stop()
        pg.stop()


def _users(path: Path, names: list[str]) -> dict[str, str]:
    """The broker users' passwords, made once and kept (owner-only) in ``path``."""
    users = json.loads(path.read_text()) if path.exists() else {}
    for name in names:
        users.setdefault(name, secrets.token_urlsafe(12))
    path.write_text(json.dumps(users, indent=1))
    path.chmod(0o600)
    return users
