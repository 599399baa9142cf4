"""Ready for a real table: the self-test's table camera row and the calibration of the play area.

- :func:`check_table_camera` — ``hongsi selftest``: the camera gives fresh frames, they are still and
  neither too dark nor too bright, and the play area's corners lie in the picture.
- :func:`find_play_area` — ``hongsi calibrate``: the play area is the largest four-sided patch that
  stands out from the table around it (a mat or felt); its corners, clockwise from the top left.
- :func:`save_play_area` — writes ``[table_camera] corners`` into the config file, other lines kept.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.table_camera.settle import moved, small

MIN_AREA = 0.15  # the play area covers at least this share of the picture
DARK, BRIGHT = 35, 225  # a picture's mean grey level outside these is badly exposed


def find_play_area(image: np.ndarray) -> list[list[float]] | None:
    """The play area's four corners (clockwise from the top left), or None when no mat stands out."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (7, 7), 0)
    edges = cv2.dilate(cv2.Canny(grey, 30, 90), np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    H, W = grey.shape
    best = None
    for c in contours:
        hull = cv2.convexHull(c)
        quad = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
        area = cv2.contourArea(quad)
        if len(quad) == 4 and MIN_AREA * W * H <= area < 0.98 * W * H and (best is None or area > best[0]):
            best = (area, quad.reshape(4, 2).astype(np.float32))
    return None if best is None else clockwise(best[1])


def clockwise(pts: np.ndarray) -> list[list[float]]:
    """Four points ordered top-left, top-right, bottom-right, bottom-left."""
    s, d = pts.sum(axis=1), np.diff(pts, axis=1).ravel()
    ordered = [pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]]
    return [[round(float(x), 1), round(float(y), 1)] for x, y in ordered]


def save_play_area(path: Path, corners: list[list[float]]) -> None:
    """Set ``corners`` under ``[table_camera]`` in the TOML file at ``path`` (the section added if
    missing); the file is replaced only when the result is a valid config."""
    from controller.config import load_config

    text = path.read_text(encoding="utf-8") if path.exists() else ""
    line = f"corners = {corners!r}\n"
    head = re.search(r"^\[table_camera\]\s*$", text, re.M)
    if head is None:
        text = text.rstrip("\n") + ("\n\n" if text else "") + "[table_camera]\n" + line
    else:
        start = head.end() + 1
        nxt = re.search(r"^\[", text[start:], re.M)
        end = start + nxt.start() if nxt else len(text)
        body = re.sub(r"^corners\s*=.*\n?", "", text[start:end], flags=re.M)
        text = text[:start] + line + body + text[end:]
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(text, encoding="utf-8")
    try:
        load_config(tmp, env={})
    except Exception:
        tmp.unlink()
        raise
    tmp.replace(path)


def grab(source: str, cfg: Any, frames: int) -> list[np.ndarray]:
    """``frames`` fresh pictures of the table camera (``sim``: a virtual table started for the purpose)."""
    from controller.camera import open_camera

    virtual = None
    if source == "sim":
        from firmware_bridge.sim.table_camera import VirtualTable

        virtual = VirtualTable(seed=0)
        source = virtual.start()
    try:
        with open_camera(source, exposure_us=cfg.table_camera.exposure_us) as cam:
            return [f.image for f in cam.grab(frames, timeout=5.0)]
    finally:
        if virtual is not None:
            virtual.stop()


def play_area_step(wizard: Any, cfg: Any) -> list[list[float]] | None:
    """``hongsi calibrate``'s play-area step: find the mat in a picture; the operator keeps it or not."""
    from controller.camera import CameraError

    wizard.say("table camera: clear the play area, then press Enter / 桌面相机：清空出牌区后回车")
    wizard.ask("")
    try:
        image = grab(cfg.table_camera.source, cfg, 1)[0]
    except CameraError as exc:
        wizard.say(f"[yellow]table camera: {exc}; play area unchanged[/]")
        return None
    found = find_play_area(image)
    if found is None:
        H, W = image.shape[:2]
        wizard.say("no mat stands out: the play area is the whole picture / 未找到出牌垫，使用整幅画面")
        found = [[0.0, 0.0], [float(W), 0.0], [float(W), float(H)], [0.0, float(H)]]
    else:
        wizard.say(f"play area found: {found} / 找到出牌区")
    return found if wizard.yes("keep this play area? / 使用这个出牌区？") else None


def check_table_camera(run: Any, source: str, cfg: Any, frames: int = 4) -> None:
    """The self-test's ``table camera`` row (``run``: ``controller.selftest``'s run of rows)."""
    from controller.camera import CameraError

    try:
        images = grab(source, cfg, frames)
    except CameraError as exc:
        run.add("table camera", "fail", str(exc), f"check [table_camera] source = {source!r}: the cable, "
                "ls /dev/video*, the URL in a browser / 检查桌面相机")
        return
    H, W = images[0].shape[:2]
    mean = float(np.mean(cv2.cvtColor(images[-1], cv2.COLOR_BGR2GRAY)))
    still = all(not moved(small(a), small(b)) for a, b in zip(images, images[1:], strict=False))
    corners = cfg.table_camera.corners
    inside = all(0 <= x <= W and 0 <= y <= H for x, y in corners)
    problems = []
    if not DARK <= mean <= BRIGHT:
        problems.append((f"mean grey {mean:.0f}: {'too dark' if mean < DARK else 'too bright'}",
                         "set [table_camera] exposure_us, or light the table evenly / 调整曝光"))
    if not still:
        problems.append(("the picture moves with nothing on the table", "fix the camera's arm; keep hands away "
                         "while testing / 固定相机"))
    if not inside:
        problems.append((f"corners {corners} lie outside the {W}x{H} picture", "hongsi calibrate (the play area)"))
    detail = f"{len(images)} fresh frames {W}x{H}, mean grey {mean:.0f}, " + (
        "play area: its corners" if corners else "play area: the whole picture")
    if problems:
        run.add("table camera", "fail", f"{detail}; " + "; ".join(p for p, _ in problems),
                "; ".join(r for _, r in problems))
    else:
        run.add("table camera", "pass", detail)
