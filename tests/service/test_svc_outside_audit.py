"""An outside attacker's audit of the bots, the beginner's hint and the table camera routes: each test here
failed on the code before its fix. The operator sees a live hand only openly (a referee view the table is
told of): not through the table camera's crops, not by replaying a round only the journal holds, and not
through the referee's reasons when acting for a seat."""

from __future__ import annotations

import cv2
import numpy as np
from fastapi.testclient import TestClient
from svc_helpers import card_strings, wait_for

from controller.service.app import create_app
from controller.service.table import TableService
from controller.table_camera.tracker import Change
from controller.table_camera.watcher import KIND, TableWatcher


def _jpeg(seed: int) -> bytes:
    picture = np.random.default_rng(seed).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    return cv2.imencode(".jpg", picture)[1].tobytes()


def _op(svc: TableService) -> dict[str, str]:
    return {"Authorization": f"Bearer {svc.tokens.operator_token()}"}


def _playing(svc: TableService, game: str = "hongsi"):
    rnd = svc.start_round(game=game, first_seat=0, bots=[])
    wait_for(lambda: rnd.phase == "playing")
    return rnd


def test_a_live_plays_camera_crops_stay_hidden_from_the_operator(service):
    """A hand hovering over the play area: the camera reads cards still in it and asks the seat. The
    picture and the crops go to the journal; while the hand is live the operator gets neither their
    digests (GET /api/journal) nor the images (GET /api/images), until the referee view is open."""
    rnd = _playing(service)
    watcher = TableWatcher(
        service, camera=None
    )  # the real watcher's asking and journalling, no camera thread
    service.table_camera = watcher
    seat = rnd.turn()
    held = [str(c) for c in rnd.hands[(seat + 1) % 4][:2]]  # another seat's cards, seen over the table
    frame, crop_jpeg = _jpeg(1), _jpeg(2)
    crop = service.journal.store_image(crop_jpeg)
    picture = cv2.imdecode(np.frombuffer(frame, np.uint8), cv2.IMREAD_COLOR)
    boxes = [{"label": c, "box": [4.0, 4.0, 20.0, 30.0], "confidence": 0.6} for c in held]
    watcher._ask(rnd, seat, "two_plays", Change("play", picture, picture), None, frame, [crop], boxes)
    asked = [r for r in service.journal.rows(rnd.id) if r.kind == KIND]
    assert len(asked) == 1 and asked[0].data["crops"] == [crop] and asked[0].image
    op = _op(service)
    with TestClient(create_app(service)) as client:
        shown = client.get(f"/api/journal?round={rnd.id}", headers=op).text
        assert crop not in shown and asked[0].image not in shown and not set(held) & card_strings(shown)
        assert client.get(f"/api/images/{crop}", headers=op).status_code == 409
        assert client.get(f"/api/images/{asked[0].image}", headers=op).status_code == 409
        everything = str([e for e in service.hub.since(0)])
        assert crop not in everything and not set(held) & card_strings(everything)
        # an image no journal row names is nobody's to fetch (a crop stored before its row is written)
        stray = service.journal.store_image(_jpeg(3))
        assert client.get(f"/api/images/{stray}", headers=op).status_code == 404
        # openly, in front of the table: now the operator sees them
        assert client.post(f"/api/rounds/{rnd.id}/referee_view", headers=op).json()["announced"]
        assert client.get(f"/api/images/{crop}", headers=op).content == crop_jpeg
        rows = client.get(f"/api/journal?round={rnd.id}", headers=op).json()["rows"]
        assert [r["data"]["crops"] for r in rows if r["kind"] == KIND] == [[crop]]
