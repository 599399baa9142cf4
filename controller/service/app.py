"""The table service's HTTP API and pages (FastAPI), as ``docs/interfaces.md`` fixes them.

>>> app = create_app(data_dir=Path("/tmp/hongsi"))     # doctest: +SKIP
>>> uvicorn.run(app, host="127.0.0.1", port=8000)      # doctest: +SKIP

Who may do what: anyone reads the display, the public state and the live events; a seat token reads
its own seat and acts for it; the operator token does everything. Without a needed token: 401; with
the wrong one: 403; bad input: 422 with a clear message (``detail``, and ``detail_zh`` in Chinese).
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from controller.plan import catalogue
from controller.redact import redact_rows
from controller.service import bots, referee
from controller.service.contribute import ContributionRefused
from controller.service.dispute import journal_replay, journal_rounds, replay
from controller.service.hub import public_receipts
from controller.service.limits import MAX_BODY, BodyLimit
from controller.service.rounds import public_violation
from controller.service.table import ServiceError, TableService
from controller.service.tokens import Identity
from controller.text import BOT_STYLES
from engine.cards import CardError, parse_card
from engine.registry import DEFAULT_GAME, game_names

log = logging.getLogger("hongsi.service")
STATIC = Path(__file__).with_name("static")
bearer = HTTPBearer(auto_error=False, description="the operator token or a seat token")
Creds = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
RoundId = Annotated[int, PathParam(ge=1, le=2**62, description="the round's number")]
Seat = Annotated[int, PathParam(ge=0, le=7, description="a seat, from 0 in play order")]
ESTOP_THREADS = ThreadPoolExecutor(2, "hongsi-estop")  # the e-stop's, apart from the routes' shared workers


# ---------------------------------------------------------------------------------- request bodies
class NewRound(BaseModel):
    """``POST /api/rounds``: shuffle and deal a new hand."""

    model_config = ConfigDict(extra="forbid", strict=True)  # "1" is not a seat: numbers are numbers
    game: str = Field(DEFAULT_GAME, max_length=32, description=", ".join(game_names()))
    first_seat: int | None = Field(None, ge=0, le=7, description=(
        "the first seat to receive a card; null: the first player out of the last hand (the rules' "
        "next_first_seat, also in GET /api/ledger), else 0"))
    fair_deal: bool = Field(True, description="a committed random seat assignment (see controller.fair_deal)")
    bots: list[Annotated[int, Field(ge=0, le=7)]] | Literal["all"] | None = Field(
        None, max_length=8, description="seats played by bots; 'all'; null = every seat without a token")
    preset: str | None = Field(None, max_length=64)
    rules: dict[str, bool | int | float | str | None] | None = Field(None, description="setting overrides")


EXTRA_NAME = re.compile(r"^[a-z][a-z_]{0,23}$")


def _plain_value(name: str, v: Any) -> Any:
    """A field of another game's action: a plain value, or a short list of plain values."""
    if isinstance(v, list):
        if len(v) > 60 or any(isinstance(x, list) for x in v):
            raise ValueError(f"{name}: a list of at most 60 plain values")
        for x in v:
            _plain_value(name, x)
        return v
    if v is None or isinstance(v, (bool, int)) or (isinstance(v, str) and len(v) <= 16):
        return v
    raise ValueError(f"{name}: a number, true/false, a short string or a list of them")


class Event(BaseModel):
    """``POST /api/rounds/{id}/events``: one action (a record event, ``game-record.md``).

    ``seat`` and ``action`` always; 红桃四's fields are typed here; another game's own fields (a bid's
    ``value``, …) pass through as plain values for its referee to judge."""

    model_config = ConfigDict(extra="allow", strict=True)
    seat: int = Field(ge=0, le=7)
    action: str = Field(min_length=1, max_length=32, pattern=r"^[a-z_]+$")
    cards: list[str] | None = Field(None, max_length=60)
    card: str | None = Field(None, max_length=4)
    target: int | None = Field(None, ge=0, le=7)
    count: int | None = Field(None, ge=0, le=60)

    @field_validator("cards")
    @classmethod
    def _cards(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else [_card(c) for c in v]

    @field_validator("card")
    @classmethod
    def _card1(cls, v: str | None) -> str | None:
        return None if v is None else _card(v)

    @model_validator(mode="after")
    def _extras(self) -> Event:
        extra = self.model_extra or {}
        if len(extra) > 8:
            raise ValueError("at most 8 fields besides seat, action, cards, card, target, count")
        for name, value in extra.items():
            if not EXTRA_NAME.match(name):
                raise ValueError(f"field {name!r}: names are lower-case letters and _")
            _plain_value(name, value)
        return self

    def to_action(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ErrorBody(BaseModel):
    """Every refusal: what is wrong, in English and in Chinese."""

    detail: str
    detail_zh: str | None = None


ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "a token is needed"},
    403: {"model": ErrorBody, "description": "this token may not do that"},
    404: {"model": ErrorBody, "description": "no such round, seat or image"},
    409: {"model": ErrorBody, "description": "not now (a deal in progress, the e-stop, a voided round)"},
    422: {"model": ErrorBody, "description": "bad input, with a clear message"},
}


class SeatName(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=16, description="what the table calls this seat's player ('' clears it)")

    @field_validator("name")
    @classmethod
    def _printable(cls, v: str) -> str:
        v = " ".join(v.split())
        if any(not ch.isprintable() or ch in "<>" for ch in v):
            raise ValueError("a name is plain text: no control characters, no < or >")
        return v


class RefereeView(BaseModel):
    """``POST /api/rounds/{id}/referee_view``: why the operator must see the live hand (the table hears it)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    reason: str = Field("a dispute", min_length=1, max_length=120)


class Contribution(BaseModel):
    """``POST /api/seats/{seat}/contribution``: a seat's random share of the next fair deal's seed."""

    model_config = ConfigDict(extra="forbid", strict=True)
    value: str = Field(min_length=32, max_length=128, description="16 to 64 random bytes, as hex")
    commitment: str = Field(pattern=r"^[0-9a-f]{64}$", description="the commitment of GET /api/deal/next")


class BotChoice(BaseModel):
    """``PUT /api/bots``: the empty seats' bot style and its time per move (operator)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    bot: str = Field(max_length=16, description="careful | bold | greedy")
    budget_ms: float | None = Field(None, gt=0, le=bots.MAX_BUDGET_MS, description="the search's time per move, ms")


class HintSwitch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    on: bool


class DeckChoice(BaseModel):
    """``PUT /api/deck``: the enrolled deck the card reader uses from the next deal (operator)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = Field(max_length=64, description="an enrolled deck's name, or null for the models alone")


class NewToken(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    seat: int = Field(ge=0, le=7)


def _card(text: str) -> str:
    try:
        return str(parse_card(text))
    except CardError as exc:
        raise ValueError(str(exc)) from None


# ---------------------------------------------------------------------------------- auth
def _identity(svc: TableService, creds: HTTPAuthorizationCredentials | None) -> Identity | None:
    if creds is None or not creds.credentials:
        return None
    return svc.tokens.identify(creds.credentials)


def _unauthorized(what: str) -> HTTPException:
    return HTTPException(401, detail=f"{what} (header 'Authorization: Bearer <token>')",
                         headers={"WWW-Authenticate": "Bearer"})


# what the pages show beside an HTTP error's English (the service's own refusals carry their own words)
HTTP_ZH = {401: "需要令牌（Authorization: Bearer <令牌>）", 403: "这个令牌无权这样做", 404: "没有找到",
           405: "不支持这种请求"}


def _check(svc: TableService, creds: HTTPAuthorizationCredentials | None, *, seat: int | None = None,
           what: str) -> Identity:
    """Operator always; a seat token only for ``seat``. 401 without a token, 403 with the wrong one."""
    if creds is None or not creds.credentials:
        who = "the operator token" + (" or that seat's token" if seat is not None else "")
        raise _unauthorized(f"to {what}, send {who}")
    ident = svc.tokens.identify(creds.credentials)
    if ident is not None and (ident.is_operator or (seat is not None and ident.seat == seat)):
        return ident
    raise HTTPException(403, detail=f"this token may not {what}")


def _seat_only(svc: TableService, creds: HTTPAuthorizationCredentials | None, seat: int, what: str) -> None:
    """That seat's token only: a hint is worked out from the seat's hand, which the operator does not see."""
    ident = _check(svc, creds, seat=seat, what=what)
    if ident.seat != seat:
        raise HTTPException(403, detail=f"only seat {seat}'s own token may {what}")


def _operator_in_the_dark(svc: TableService, ident: Identity, rid: int) -> bool:
    """Whether ``ident`` is the operator and round ``rid``'s hand is live, its referee view not open: then
    the operator, acting for a seat, hears of it only what the table hears."""
    return ident.is_operator and referee.is_live(svc, rid) and not referee.is_open(svc.journal, rid)


def _as_heard(svc: TableService, ident: Identity, rid: int, out: dict[str, Any]) -> dict[str, Any]:
    """An action's answer as ``ident`` may read it: the operator in the dark gets the refusal's public words
    (a reason may tell what the hand holds: "Seat 2 holds clubs")."""
    if _operator_in_the_dark(svc, ident, rid):
        out = {**out, "violations": [{"event": v.get("event"), **public_violation(v)} for v in out["violations"]]}
    return out


def _bots_json() -> dict[str, Any]:
    styles = [{"name": k, "text": en, "text_zh": zh} for k, (en, zh) in BOT_STYLES.items()]
    return {"bot": bots.SETTINGS.bot, "budget_ms": bots.SETTINGS.budget_ms, "styles": styles}


# ---------------------------------------------------------------------------------- the app
def create_app(service: TableService | None = None, *, data_dir: Path | None = None,
               base_url: str | None = None, **service_options: Any) -> FastAPI:
    """The FastAPI app on ``service`` (or a new :class:`TableService` in ``data_dir``)."""
    owned = service is None
    if service is None:
        service = TableService(Path(data_dir or "~/.local/share/hongsi"), **service_options)
    svc = service

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        if owned:
            svc.close()

    app = FastAPI(title="hongsi table service", version="1.0",
                  description="Display, seats, live refereeing and the operator's controls of a hongsi table.",
                  lifespan=lifespan, responses=ERRORS,
                  docs_url=None, redoc_url=None)  # their pages load scripts from a CDN: the table is offline
    app.state.service = svc
    app.add_middleware(BodyLimit, limit=MAX_BODY)  # before any body is read or parsed, even before the 401
    svc.hub.relay_receipts(svc.journal)           # each receipt the journal signs becomes a public event

    # ---------------------------------------------------------------- errors: clear, never a 500
    @app.exception_handler(RequestValidationError)
    async def _invalid(req: Request, exc: RequestValidationError) -> JSONResponse:
        if req.method not in ("GET", "HEAD") and req.url.path.startswith("/api/"):
            # every change needs a token: who may not act at all hears that first, not what was wrong
            creds = await bearer(req)
            if creds is None or not creds.credentials:
                exc401 = _unauthorized("this needs a token")
                return JSONResponse(status_code=401, headers=exc401.headers,
                                    content={"detail": exc401.detail, "detail_zh": HTTP_ZH[401]})
            if svc.tokens.identify(creds.credentials) is None:
                return JSONResponse(status_code=403, content={"detail": "this token may not do that",
                                                              "detail_zh": HTTP_ZH[403]})
        return JSONResponse(status_code=422, content={"detail": describe_errors(exc.errors()),
                                                      "detail_zh": "请求有误：" + describe_errors(exc.errors()),
                                                      "errors": _jsonable_errors(exc.errors())})

    @app.exception_handler(ServiceError)
    async def _refused(_req: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(status_code=exc.status, content={"detail": exc.message, "detail_zh": exc.message_zh})

    @app.exception_handler(StarletteHTTPException)
    async def _http(_req: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # a body that cannot even be parsed is bad input like any other
            return JSONResponse(status_code=422, content={"detail": f"body: {exc.detail} (send UTF-8 JSON)",
                                                          "detail_zh": "请求体不是有效的 UTF-8 JSON"})
        content = {"detail": exc.detail}
        if exc.status_code in HTTP_ZH:
            content["detail_zh"] = HTTP_ZH[exc.status_code]
        return JSONResponse(status_code=exc.status_code, content=content, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(_req: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return JSONResponse(status_code=500, content={"detail": f"internal error: {type(exc).__name__}"})

    # ---------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    def display() -> FileResponse:
        return FileResponse(STATIC / "display.html")

    @app.get("/seat", include_in_schema=False)
    def seat_page() -> FileResponse:
        return FileResponse(STATIC / "seat.html")

    @app.get("/operator", include_in_schema=False)
    def operator_page() -> FileResponse:
        return FileResponse(STATIC / "operator.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ---------------------------------------------------------------- public
    @app.get("/api/health", summary="the service's and the rig's state")
    def health() -> dict[str, Any]:
        return svc.status()

    @app.get("/api/games", summary="the games this table deals, with their presets (house rules)")
    def games() -> dict[str, Any]:
        return {"games": list(catalogue())}

    @app.get("/api/rounds", summary="the rounds of this session, newest first (public summaries)")
    def list_rounds() -> dict[str, Any]:
        held = [{"id": r.id, "game": r.game.name, "phase": r.phase} for r in svc.recent_rounds(50)]
        more = journal_rounds(svc.journal, {r["id"] for r in held} | set(svc.rounds))  # CLI deals, earlier runs
        return {"rounds": sorted(held + more, key=lambda r: -r["id"])[:50],
                "current": svc.current.id if svc.current else None}

    @app.get("/api/rounds/{rid}", summary="the public state of a round (never a hidden card)")
    def public_state(rid: RoundId) -> dict[str, Any]:
        rnd = svc.get_round(rid)
        with rnd.lock:
            return rnd.public()

    @app.get("/api/ledger", summary="the chip ledger: each seat's running total across hands")
    def ledger() -> dict[str, Any]:
        return {"ledger": svc.ledger_list(), "next_first_seat": svc.next_first_seat()}

    @app.get("/api/events", summary="live public events (server-sent events)",
             response_class=StreamingResponse)
    async def events(last_id: Annotated[int | None, Query(ge=0)] = None,
                     max_events: Annotated[int | None, Query(ge=1, le=100000)] = None,
                     last_event_id: Annotated[str | None, Header()] = None) -> StreamingResponse:
        if last_id is None and last_event_id and last_event_id.isdigit():
            last_id = int(last_event_id)
        return StreamingResponse(svc.hub.stream(last_id=last_id, max_events=max_events),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/api/receipts", summary="the journal's signed receipts (of a round, else the latest) and the rig's key")
    def list_receipts(round: Annotated[int | None, Query(ge=1, le=2**62)] = None,
                      limit: Annotated[int, Query(ge=1, le=500)] = 20) -> dict[str, Any]:
        return public_receipts(svc.journal, round, limit)

    @app.get("/api/announcements", summary="the table's latest spoken announcements (public), oldest first")
    def announcements(limit: Annotated[int, Query(ge=1, le=50)] = 5) -> dict[str, Any]:
        said = [e for e in svc.hub.since(0) if e.get("type") == "voice"]
        return {"announcements": said[-limit:]}

    @app.get("/api/receipts/{receipt}/qr.svg", summary="a receipt's QR code (the whole hash), for the pages")
    def receipt_qr(receipt: Annotated[str, PathParam(pattern="^[0-9a-f]{16,64}$")]) -> Response:
        return Response(qr_svg(receipt), media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    # ---------------------------------------------------------------- seats
    @app.get("/api/whoami", summary="who a token belongs to")
    def whoami(creds: Creds) -> dict[str, Any]:
        if creds is None or not creds.credentials:
            raise _unauthorized("whoami")
        ident = _identity(svc, creds)
        if ident is None:
            raise HTTPException(403, detail="unknown token")
        return {"role": ident.role, "seat": ident.seat, "round": svc.current.id if svc.current else None}

    @app.get("/api/rounds/{rid}/seats/{seat}", summary="a seat's own hand (that seat or the operator)")
    def seat_hand(rid: RoundId, seat: Seat, creds: Creds) -> dict[str, Any]:
        ident = _check(svc, creds, seat=seat, what=f"read seat {seat}'s hand")
        rnd = svc.get_round(rid)
        if seat >= rnd.plan.seats:
            raise ServiceError(404, f"{rnd.game.name} has seats 0..{rnd.plan.seats - 1}", "没有这个座位")
        if ident.is_operator:   # the operator looks at a live hand only openly
            referee.open_view(svc, rid, "reading a seat's hand", seat)
        with rnd.lock:
            return rnd.seat_view(seat)

    @app.post("/api/rounds/{rid}/events", summary="one action, refereed at once (that seat or the operator)")
    def post_event(rid: RoundId, event: Event, creds: Creds) -> dict[str, Any]:
        ident = _check(svc, creds, seat=event.seat, what=f"act for seat {event.seat}")
        return _as_heard(svc, ident, rid, svc.act(rid, event.to_action()))

    @app.get("/api/bots", summary="the empty seats' bot style and time per move, with each style's description")
    def get_bots() -> dict[str, Any]:
        return _bots_json()

    @app.put("/api/bots", summary="choose the empty seats' bot style and time per move (operator)")
    def put_bots(body: BotChoice, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="choose the bots")
        try:
            bots.configure(body.bot, body.budget_ms)
        except ValueError as exc:
            raise ServiceError(422, str(exc), "机器人风格有误（careful、bold、greedy）") from None
        return _bots_json()

    @app.get("/api/decks", summary="the enrolled decks and the one the card reader uses")
    def get_decks() -> dict[str, Any]:
        return svc.decks()

    @app.put("/api/deck", summary="read the next deals with an enrolled deck, or the models alone (operator)")
    def put_deck(body: DeckChoice, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="choose the table's deck")
        return svc.choose_deck(body.name)

    hint_busy = [threading.Lock() for _ in range(8)]  # by seat (0..7, the Seat path parameter)
    confirming = threading.Lock()  # one table camera confirmation at a time

    @app.put("/api/seats/{seat}/hint", summary="turn this seat's beginner's hint on or off (that seat only)")
    def put_hint(seat: Seat, body: HintSwitch, creds: Creds) -> dict[str, Any]:
        _seat_only(svc, creds, seat, "switch this seat's hint")
        return svc.set_hint(seat, body.on)

    @app.get("/api/rounds/{rid}/seats/{seat}/hint",
             summary="what the bot would do in this seat now, and why, from the seat's own view (that seat only)")
    def get_hint(rid: RoundId, seat: Seat, creds: Creds) -> dict[str, Any]:
        _seat_only(svc, creds, seat, "read this seat's hint")
        # one search a seat at a time: a burst of asks would each search a whole bot budget, holding the
        # server's worker threads (the e-stop's too) and the bots' CPU; the answer is cached for the rest
        if not hint_busy[seat].acquire(blocking=False):
            raise ServiceError(409, f"seat {seat}'s hint is being worked out: ask again in a moment",
                               "正在计算本座位的提示，请稍后再问")
        try:
            return svc.hint(rid, seat)
        finally:
            hint_busy[seat].release()

    @app.post("/api/rounds/{rid}/seats/{seat}/ready",
              summary="this seat will not declare (more) before the first play (that seat or the operator)")
    def seat_ready(rid: RoundId, seat: Seat, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, seat=seat, what=f"say seat {seat} is ready")
        return svc.ready(rid, seat)

    @app.get("/api/rounds/{rid}/seats/{seat}/table_camera",
             summary="what the table camera asks this seat about its play: the reading to confirm (that seat or operator)")
    def table_ask(rid: RoundId, seat: Seat, creds: Creds) -> dict[str, Any]:
        ident = _check(svc, creds, seat=seat, what=f"read what seat {seat} is asked")
        watcher = svc.table_camera
        ask = watcher.pending(rid, seat) if watcher is not None else None
        if ask is not None and _operator_in_the_dark(svc, ident, rid):
            ask = {**ask, "cards": None}  # a reading is one of the seat's plays: misread, it names its hidden cards
        return {"ask": ask}

    @app.post("/api/rounds/{rid}/seats/{seat}/table_camera/confirm",
              summary="confirm the table camera's reading of this seat's play, refereed as if tapped (that seat or operator)")
    def table_confirm(rid: RoundId, seat: Seat, creds: Creds) -> dict[str, Any]:
        ident = _check(svc, creds, seat=seat, what=f"confirm seat {seat}'s play")
        watcher = svc.table_camera
        try:
            if watcher is None:
                raise LookupError("this table has no table camera")
            with confirming:  # a confirmation sent twice: the second finds the ask answered, never refereed
                return _as_heard(svc, ident, rid, watcher.confirm(rid, seat))
        except LookupError as exc:
            raise ServiceError(409, str(exc), "没有待确认的出牌：请点选所出的牌") from None

    @app.get("/api/session", summary="the current session: a ledger per game, with each seat's running totals")
    def session() -> dict[str, Any]:
        return svc.session()

    @app.post("/api/session", summary="start a new session: the ledgers start again from 0 (operator; journaled)")
    def new_session(creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="start a new session")
        return svc.new_session()

    @app.get("/api/names", summary="the players' names, by seat (public: the table uses them)")
    def names() -> dict[str, Any]:
        return {"names": svc.seat_names()}

    @app.put("/api/seats/{seat}/name", summary="name this seat's player (that seat or the operator); journaled")
    def set_name(seat: Seat, body: SeatName, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, seat=seat, what=f"name seat {seat}")
        return {"names": svc.set_seat_name(seat, body.name)}

    @app.get("/api/deal/next", summary="the next fair deal's commitment and which seats contributed to it")
    def next_deal() -> dict[str, Any]:
        return svc.next_deal.public()

    @app.post("/api/seats/{seat}/contribution",
              summary="add this seat's random share to the next fair deal's seed (that seat or the operator)")
    def contribute(seat: Seat, body: Contribution, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, seat=seat, what=f"contribute for seat {seat}")
        try:
            got = svc.next_deal.contribute(seat, body.value, body.commitment)
        except ContributionRefused as exc:
            raise ServiceError(exc.status, exc.message, exc.message_zh) from None
        svc.hub.publish({"type": "contribution", "seat": seat, "commitment": got["commitment"]})
        return got

    # ---------------------------------------------------------------- operator / after the hand
    def finished_or_operator(rid: int, creds: HTTPAuthorizationCredentials | None, what: str) -> Any:
        """The round, if the hand is over (then anyone may see it) or the caller is the operator."""
        rnd = svc.get_round(rid)
        with rnd.lock:
            over = rnd.phase == "finished"
        if not over:
            _check(svc, creds, what=f"{what} before the hand is over")
            referee.open_view(svc, rid, what)          # the operator sees a live hand only openly
        return rnd

    @app.post("/api/rounds/{rid}/referee_view",
              summary="open the referee view of a live hand: the table is told, the journal records it (operator)")
    def referee_view(rid: RoundId, creds: Creds, body: RefereeView | None = None) -> dict[str, Any]:
        _check(svc, creds, what="open the referee view")
        return referee.open_view(svc, rid, (body or RefereeView()).reason)

    @app.get("/api/rounds/{rid}/record", summary="the game record with its verdict (operator; anyone after)")
    def record(rid: RoundId, creds: Creds) -> dict[str, Any]:
        rnd = finished_or_operator(rid, creds, "read the record")
        with rnd.lock:
            rec = rnd.record()
            rec["phase"] = rnd.phase
            rec["verdict"] = rnd.result() if rnd.phase == "finished" else _live_verdict(rnd)
        return rec

    @app.get("/api/rounds/{rid}/replay", summary="the dispute view: the record replayed step by step")
    def dispute(rid: RoundId, creds: Creds) -> dict[str, Any]:
        if rid not in svc.rounds:  # a round only the journal holds (a CLI deal, an earlier run)
            if not svc.journal.rows(rid):
                raise ServiceError(404, f"no round {rid}", f"没有第 {rid} 局")
            if referee.is_live(svc, rid):  # its hand may still be played: the operator sees it only openly
                _check(svc, creds, what="replay a hand before the hand is over")
                referee.open_view(svc, rid, "replay a hand")
            return journal_replay(svc.journal, rid)[1]
        rnd = finished_or_operator(rid, creds, "replay a hand")
        with rnd.lock:
            rec = rnd.record()
        return replay(rec, svc.journal, rid)

    @app.get("/api/rounds/{rid}/report", summary="the dispute report, one HTML page (operator; a finished hand)",
             response_class=HTMLResponse)
    def report(rid: RoundId, creds: Creds) -> HTMLResponse:
        _check(svc, creds, what="read the dispute report")
        from controller.report import ReportError, report_html

        if rid not in svc.rounds and not svc.journal.rows(rid):
            raise ServiceError(404, f"no round {rid}", f"没有第 {rid} 局")
        try:
            return HTMLResponse(report_html(svc.journal, rid))
        except ReportError as exc:
            raise ServiceError(409, str(exc), "本局还在进行或没有记录，不能出报告") from None

    @app.get("/api/images/{digest}", summary="a camera crop from the journal (operator)",
             response_class=Response)
    def image(digest: Annotated[str, PathParam(pattern=r"^[0-9a-f]{64}$")], creds: Creds) -> Response:
        _check(svc, creds, what="see camera crops")
        rounds = referee.image_rounds(svc.journal, digest)
        if not rounds:  # stored, but named by no row (yet): no round's openness vouches for it
            raise HTTPException(404, detail="no such image")
        if any(r and not referee.is_open(svc.journal, r) for r in rounds):
            raise ServiceError(409, "that crop is of a live hand: open the referee view first (the table is told)",
                               "这是进行中一局的牌面图像：请先打开裁判查看（全桌会被告知）")
        path = svc.journal.image_path(digest)
        if not path.exists():
            raise HTTPException(404, detail="no such image")
        return Response(path.read_bytes(), media_type="image/jpeg")

    @app.post("/api/rounds", summary="shuffle and deal a new hand (operator)")
    def new_round(body: NewRound, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="start a deal")
        first = body.first_seat if body.first_seat is not None else (svc.next_first_seat() or 0)
        rnd = svc.start_round(game=body.game, first_seat=first, fair_deal=body.fair_deal,
                              bots=body.bots, preset=body.preset, rules=body.rules)
        return {"id": rnd.id, "phase": rnd.phase, "bots": sorted(rnd.bots)}

    @app.post("/api/rounds/{rid}/resume", summary="resume an interrupted deal (operator)")
    def resume(rid: RoundId, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="resume a deal")
        rnd = svc.resume(rid)
        return {"id": rnd.id, "phase": rnd.phase}

    @app.post("/api/rounds/{rid}/void", summary="void a round (operator)")
    def void(rid: RoundId, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="void a round")
        rnd = svc.void(rid)
        return {"id": rnd.id, "phase": rnd.phase}

    @app.post("/api/estop", summary="emergency stop: motors off at once, the round paused (operator)")
    async def estop(creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="press the emergency stop")
        # a thread of its own: the shared workers may all be busy (searching hints, slow reads)
        return await asyncio.get_running_loop().run_in_executor(ESTOP_THREADS, svc.estop, "operator")

    @app.post("/api/clear", summary="clear the fault / e-stop and continue (operator)")
    def clear(creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="clear a fault")
        return svc.clear_fault()

    @app.post("/api/tokens", summary="make a seat token, with its link and QR code (operator)")
    def make_token(body: NewToken, request: Request, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="make seat tokens")
        token = svc.tokens.new_seat_token(body.seat)
        told = svc.seat_link_made(body.seat)
        url = seat_url(base_url or str(request.base_url), token)
        return {"seat": body.seat, "token": token, "url": url, "qr_svg": qr_svg(url), "table_told": told}

    @app.get("/api/tokens", summary="which seats have tokens (operator)")
    def list_tokens(creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="list seat tokens")
        return {"seats": {str(k): v for k, v in svc.tokens.seats_with_tokens().items()}}

    @app.delete("/api/tokens/{seat}", summary="revoke every token of a seat (operator)")
    def revoke_tokens(seat: Seat, creds: Creds) -> dict[str, Any]:
        _check(svc, creds, what="revoke seat tokens")
        return {"seat": seat, "revoked": svc.tokens.revoke_seat(seat)}

    @app.get("/api/journal", summary="the journal's rows (operator)")
    def journal(creds: Creds, round: Annotated[int | None, Query(ge=0, le=2**62)] = None,
                limit: Annotated[int, Query(ge=1, le=5000)] = 200) -> dict[str, Any]:
        _check(svc, creds, what="read the journal")
        rows = svc.journal.rows(round)[-limit:]
        # a live hand's hidden cards stay hidden from the operator too, until its referee view is open
        return {"rows": redact_rows(rows, svc.journal.rows),
                "verified": svc.journal.verify().ok if round is None else None}

    return app


def _live_verdict(rnd: Any) -> dict[str, Any] | None:
    if rnd.state is None:
        return None
    verdict = rnd.state.verdict()
    verdict["violations"] = [v for entry in rnd.violations for v in entry["list"]]
    return verdict


def seat_url(base: str, token: str) -> str:
    """The seat page's link: the token goes in the fragment, so it never reaches a server log."""
    return base.rstrip("/") + "/seat#t=" + token


def qr_svg(text: str) -> str:
    import qrcode
    import qrcode.image.svg

    q = qrcode.QRCode(border=2)
    q.add_data(text)
    q.make(fit=True)
    return q.make_image(image_factory=qrcode.image.svg.SvgPathImage).to_string(encoding="unicode")


def qr_terminal(text: str) -> str:
    import qrcode

    q = qrcode.QRCode(border=1)
    q.add_data(text)
    q.make(fit=True)
    out = io.StringIO()
    q.print_ascii(out=out, invert=True)
    return out.getvalue()


def describe_errors(errors: Any) -> str:
    """Pydantic's errors as one line: ``body.cards[0]: not a card: 'H11' (...)``."""
    parts = []
    for err in errors:
        loc = ""
        for p in err.get("loc", ()):
            loc += f"[{p}]" if isinstance(p, int) else (f".{p}" if loc else str(p))
        msg = re.sub(r"^Value error, ", "", str(err.get("msg", "invalid")))
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts) or "invalid request"


def _jsonable_errors(errors: Any) -> list[dict[str, Any]]:
    return [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
            for e in errors]
