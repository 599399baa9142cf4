"""``hongsi simulate`` serves the table camera: its URL in the JSON line, throws and clears over HTTP,
frames with their times, and the truth file of every play that landed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

import cv2
import numpy as np


def _post(url: str, body: bytes) -> int:
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_simulate_serves_the_table_camera_and_writes_what_landed(tmp_path):
    truth = tmp_path / "plays.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "simulate", "--seed", "2", "--speed", "20",
                             "--design", "poker", "--table-truth", str(truth)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ends = json.loads(proc.stdout.readline())
        url = ends["table_camera"]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/stream.mjpg") and url != ends["camera"]
        base = url.rsplit("/", 1)[0]
        with urllib.request.urlopen(f"{base}/snapshot.jpg", timeout=5) as r:
            empty = cv2.imdecode(np.frombuffer(r.read(), np.uint8), cv2.IMREAD_COLOR)
            assert abs(float(r.headers["X-Frame-Time"]) - time.time()) < 5 and int(r.headers["X-Frame-Seq"]) >= 0
        assert _post(f"{base}/throw", json.dumps({"seat": 2, "cards": ["S3", "H3"]}).encode()) == 204
        assert _post(f"{base}/throw", b'{"seat": 2, "cards": "S3"}') == 422  # one line's worth of refusal
        assert _post(f"{base}/throw", b'{"seat": 2, "cards": ["ZZ"]}') == 422  # no such card: refused, not dropped
        assert _post(base.rsplit("/", 1)[0] + "/wrong-secret/throw", b'{"seat": 1, "cards": ["S4"]}') == 404
        end = time.monotonic() + 10
        while time.monotonic() < end and not (truth.exists() and truth.read_text().strip()):
            time.sleep(0.1)
        assert [json.loads(x)["cards"] for x in truth.read_text().splitlines()] == [["S3", "H3"]]
        time.sleep(1.0)  # the hand withdraws
        with urllib.request.urlopen(f"{base}/snapshot.jpg", timeout=5) as r:
            played = cv2.imdecode(np.frombuffer(r.read(), np.uint8), cv2.IMREAD_COLOR)
        assert float(cv2.absdiff(empty, played).mean()) > 3  # the cards lie there now
        assert _post(f"{base}/clear", b"") == 204
        end = time.monotonic() + 10
        while time.monotonic() < end and len(truth.read_text().splitlines()) < 2:
            time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert json.loads(truth.read_text().splitlines()[-1]).get("clear") is True
