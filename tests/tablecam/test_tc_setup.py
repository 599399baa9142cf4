"""Ready for a real table: the play area found in a picture and saved, and the self-test's row."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.config import ConfigError, load_config
from controller.selftest import _Run
from controller.table_camera.setup import check_table_camera, find_play_area, save_play_area


def _table(quad: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(2)
    img = np.full((480, 640, 3), (70, 110, 150), np.uint8)  # a wooden table
    img = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    cv2.fillConvexPoly(img, quad.astype(np.int32), (40, 110, 30))  # a green felt mat, seen at a slant
    return cv2.GaussianBlur(img, (3, 3), 0)


@pytest.mark.parametrize("quad", [[[120, 80], [530, 95], [560, 420], [90, 400]],
                                  [[200, 60], [600, 150], [480, 460], [60, 330]]])
def test_the_play_area_is_the_mat_that_stands_out(quad):
    quad = np.array(quad, np.float32)
    found = find_play_area(_table(quad))
    assert found is not None
    assert np.abs(np.array(found) - quad).max() < 8  # clockwise from the top left, within a few pixels


def test_no_mat_no_play_area():
    rng = np.random.default_rng(3)
    plain = np.clip(np.full((480, 640, 3), 120.0) + rng.normal(0, 4, (480, 640, 3)), 0, 255).astype(np.uint8)
    assert find_play_area(plain) is None


def test_the_corners_are_saved_under_their_section_and_the_rest_kept(tmp_path):
    path = tmp_path / "hongsi.toml"
    path.write_text('seats = 4  # the table\n\n[table_camera]\nsource = "sim"\ncorners = [[0, 0], [1, 0], '
                    '[1, 1], [0, 1]]\n\n[club]\npage_port = 8101\n')
    save_play_area(path, [[10.0, 20.0], [600.0, 22.0], [610.0, 470.0], [5.0, 460.0]])
    cfg = load_config(path, env={})
    assert cfg.table_camera.corners == [[10.0, 20.0], [600.0, 22.0], [610.0, 470.0], [5.0, 460.0]]
    assert cfg.table_camera.source == "sim" and cfg.club.page_port == 8101
    assert "# the table" in path.read_text()
    with pytest.raises(ConfigError, match="corners"):  # three corners are no play area: the file stays as it was
        save_play_area(path, [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    assert load_config(path, env={}).table_camera.corners[0] == [10.0, 20.0]


def test_the_self_test_checks_the_table_camera(tmp_path):
    path = tmp_path / "hongsi.toml"
    path.write_text('[table_camera]\nsource = "sim"\n')
    cfg = load_config(path, env={})
    run = _Run(cfg, lambda _s: None)
    check_table_camera(run, "sim", cfg)
    assert [r.status for r in run.rows] == ["pass"], run.rows
    run = _Run(cfg, lambda _s: None)
    check_table_camera(run, str(tmp_path / "no-such-camera"), cfg)
    assert run.rows[0].status == "fail" and run.rows[0].remedy
    cfg.table_camera.corners = [[0, 0], [9000, 0], [9000, 9000], [0, 9000]]
    run = _Run(cfg, lambda _s: None)
    check_table_camera(run, "sim", cfg)
    assert run.rows[0].status == "fail" and "calibrate" in run.rows[0].remedy
