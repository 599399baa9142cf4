"""A cap on request bodies, before anything reads or parses them (pure ASGI middleware).

Without it an unauthenticated 50 MB POST is read whole and parsed as JSON before the route even asks
for a token, and the process keeps the memory. Every body this API takes is a few kilobytes, so: a
``Content-Length`` over the cap is refused at once (413, nothing read); a body without one (chunked)
is counted as it streams and refused as soon as it passes the cap.

>>> app.add_middleware(BodyLimit, limit=MAX_BODY)      # doctest: +SKIP
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException

MAX_BODY = 64 * 1024  # the largest real body (a seat's action, a new round with its rules) is under 2 KB


def too_large_detail(limit: int) -> dict[str, str]:
    return {"detail": f"the request body is larger than {limit // 1024} KB: this API takes small JSON bodies",
            "detail_zh": f"请求体超过 {limit // 1024} KB"}


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a streamed body passes the cap. An HTTPException, so that FastAPI's
    body parsing passes it on as it is (it turns any other error into a 400)."""

    def __init__(self, limit: int):
        super().__init__(413, detail=too_large_detail(limit)["detail"])


class BodyLimit:
    """ASGI middleware: 413 for a request body over ``limit`` bytes, declared or streamed."""

    def __init__(self, app: Any, limit: int = MAX_BODY):
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await self._refuse(send)
            return
        seen = 0
        started = False

        async def counted() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def watched(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(send)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps(too_large_detail(self.limit), ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def _content_length(scope: dict[str, Any]) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
