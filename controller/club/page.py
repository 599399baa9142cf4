"""The room page (FastAPI + plain JS), served by the club: every table's public live state, faults and
e-stops loud, players' ledgers with a plot, and a past hand's journal rows from the archive.
Staff log in with their account (``hongsi club staff add``); everything but the login needs it."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

import psycopg
from fastapi import Cookie, FastAPI, HTTPException, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, Field

from controller.club.accounts import Sessions
from controller.club.messages import NAME
from controller.club.plot import ledger_svg
from controller.club.store import read_ledger, read_round, read_tables

STATIC = Path(__file__).with_name("static")
COOKIE = "club_session"
Session = Annotated[str | None, Cookie(alias=COOKIE)]


class Login(BaseModel):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


def create_app(club: Any) -> FastAPI:
    """``club``: a running :class:`~controller.club.server.ClubServer` (its dsn, room and live hub)."""
    app = FastAPI(title="hongsi club room page", docs_url=None, redoc_url=None)
    sessions = Sessions()

    def staff(token: str | None) -> str:
        who = sessions.who(token)
        if who is None:
            raise HTTPException(401, "log in first 请先登录")
        return who

    def db() -> psycopg.Connection:
        try:
            return psycopg.connect(club.dsn, connect_timeout=3)
        except psycopg.OperationalError:
            raise HTTPException(503, "the archive (PostgreSQL) is not reachable now 数据库暂时无法连接") from None

    @app.exception_handler(HTTPException)
    async def _http(_r: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "room.html")

    @app.get("/room.js", include_in_schema=False)
    def script() -> FileResponse:
        return FileResponse(STATIC / "room.js", media_type="text/javascript")

    @app.post("/api/login")
    def login(body: Login) -> JSONResponse:
        token = sessions.login(club.dsn, body.name, body.password)
        if token is None:
            raise HTTPException(401, "wrong name or password 用户名或密码错误")
        resp = JSONResponse({"staff": body.name})
        resp.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=12 * 3600)
        return resp

    @app.get("/api/tables")
    def tables(session: Session = None) -> dict[str, Any]:
        who = staff(session)
        with db() as conn:
            return {"room": club.room, "staff": who, "tables": read_tables(conn, club.room),
                    "received": club.received, "stored": club.stored, "dropped": club.dropped}

    @app.get("/api/events")
    def events(request: Request, session: Session = None) -> StreamingResponse:
        staff(session)
        last = request.headers.get("last-event-id")
        last_id = int(last) if last and last.isdigit() else None
        return StreamingResponse(club.live.stream(last_id), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    @app.get("/api/ledger")
    def ledger(session: Session = None) -> dict[str, Any]:
        staff(session)
        with db() as conn:
            entries = read_ledger(conn, club.room)
        totals: dict[str, int] = defaultdict(int)
        by: dict[tuple[str, str, str], int] = defaultdict(int)
        for e in entries:
            totals[e["player"]] += e["delta"]
            by[(e["player"], e["table"], e["session"])] += e["delta"]
        return {"totals": dict(totals), "entries": len(entries),
                "by_table_session": [{"player": p, "table": t, "session": s, "total": v}
                                     for (p, t, s), v in sorted(by.items())]}

    @app.get("/api/ledger.svg")
    def ledger_plot(session: Session = None) -> Response:
        staff(session)
        with db() as conn:
            return Response(ledger_svg(read_ledger(conn, club.room)), media_type="image/svg+xml")

    @app.get("/api/tables/{table}/rounds/{rnd}")
    def past_round(table: Annotated[str, PathParam(max_length=32)], rnd: Annotated[int, PathParam(ge=1)],
                   session: Session = None) -> dict[str, Any]:
        staff(session)
        if not re.match(NAME, table):
            raise HTTPException(422, f"table {table!r}: not a table name 不是桌名")
        with db() as conn:
            found = read_round(conn, club.room, table, rnd)
        if not found["rows"]:
            raise HTTPException(404, f"no archived round {rnd} of table {table} 没有存档")
        return found

    return app
