"""Real card art, composing a face into the dealer's view, and enrolling a deck (issue 28).

The CLI tests run the real ``hongsi`` command in a subprocess with a temporary data directory."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.labels import LABELS
from vision.render import (
    named_style,
    render_face,
    render_table_frame,
    render_tight_photo,
    render_window_frame,
)

REPO = Path(__file__).resolve().parents[2]


def hongsi(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "empty.toml").write_text("")
    env = dict(os.environ, HONGSI_DATA_DIR=str(tmp_path / "data"), HONGSI_CONFIG=str(tmp_path / "empty.toml"))
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=300, env=env)


def _write_deck_photos(folder: Path, design: str, seed: int, labels=LABELS, render=render_window_frame) -> Path:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for label in labels:
        name = f"{label}.png"
        cv2.imwrite(str(folder / name), render(label, rng, design=design))
        rows.append({"file": name, "label": label})
    path = folder / "labels.csv"
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, ["file", "label"])
        w.writeheader()
        w.writerows(rows)
    return path


def test_element_ids_of_both_packages():
    from vision.card_art import element_ids

    assert element_ids("SQ", "gnome") == ["spade_queen"]
    assert element_ids("D10", "kde") == ["10_diamond"]
    assert element_ids("BJ", "gnome")[0] == "joker_black"


def test_held_out_families_are_never_training_designs():
    from vision.card_art import ART_DESIGNS, HELD_OUT, TRAIN_DESIGNS

    assert set(HELD_OUT) & set(TRAIN_DESIGNS) == set()
    assert {"anglo", "paris", "ornamental", "kde-paris"} <= set(HELD_OUT)
    fams = {ART_DESIGNS[d][2] for d in HELD_OUT}
    assert all(ART_DESIGNS[d][2] not in fams for d in TRAIN_DESIGNS)


def test_a_real_svg_card_is_rasterised_to_a_portrait_face(tmp_path):
    import shutil

    from vision.card_art import ART_DESIGNS, art_face, build_cache

    if shutil.which("rsvg-convert") is None or not ART_DESIGNS["simplistic"][0].exists():
        pytest.skip("gnome-cards-data / librsvg2-bin not installed (scripts/install-system.sh)")
    assert build_cache(tmp_path, ["simplistic"], progress=False) >= 52
    face = art_face("H7", "simplistic", tmp_path)
    h, w = face.bgr.shape[:2]
    assert w == 200 and 1.3 < h / w < 1.7
    x0, y0, x1, y1 = face.index_box
    assert x1 < 0.35 * w and y1 < 0.5 * w  # the index lies in the top-left corner
    red = face.bgr[y0:y1, x0:x1]
    assert (red[..., 2].astype(int) - red[..., 0] > 80).any()  # a heart's index is red


def test_face_from_image_turns_a_landscape_scan_upright():
    from vision.render import face_from_image

    scan = np.ascontiguousarray(np.rot90(render_face("S9", named_style("poker")).bgr))
    face = face_from_image(scan)
    assert face.bgr.shape[0] > face.bgr.shape[1]


def test_compose_then_classify_window_reads_the_card(tmp_path):
    face = render_face("D9", named_style("bridge")).bgr
    cv2.imwrite(str(tmp_path / "face.png"), face)
    proc = hongsi(tmp_path, "vision", "compose", "--kind", "window", "--seed", "3", "--out",
                  str(tmp_path / "frame.png"), str(tmp_path / "face.png"))
    assert proc.returncode == 0, proc.stderr
    frame = cv2.imread(str(tmp_path / "frame.png"))
    assert frame.shape == (240, 320, 3)
    proc = hongsi(tmp_path, "vision", "classify", "--kind", "window", str(tmp_path / "frame.png"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["label"] == "D9"


def test_compose_bad_face_is_one_line_exit_2(tmp_path):
    (tmp_path / "x.jpg").write_bytes(b"not a picture")
    proc = hongsi(tmp_path, "vision", "compose", "--out", str(tmp_path / "f.png"), str(tmp_path / "x.jpg"))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_enrol_then_classify_with_the_deck(tmp_path):
    """One rendered photo per card enrols the deck; other photos of it are read with the references."""
    csv_path = _write_deck_photos(tmp_path / "enrol", "bridge", seed=1)
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "club-red", "--labels", str(csv_path), "--kind", "window")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["cards"] == 54 and out["missing"] == []
    rng = np.random.default_rng(99)
    files, truth = [], []
    for label in LABELS[::6]:
        p = tmp_path / f"q_{label}.png"
        cv2.imwrite(str(p), render_window_frame(label, rng, design="bridge"))
        files.append(str(p))
        truth.append(label)
    proc = hongsi(tmp_path, "vision", "classify", "--kind", "window", "--deck", "club-red", *files)
    assert proc.returncode == 0, proc.stderr
    labels = [json.loads(ln)["label"] for ln in proc.stdout.splitlines()]
    assert sum(a == b for a, b in zip(labels, truth, strict=True)) >= len(truth) - 1
    assert all(a in (b, None) for a, b in zip(labels, truth, strict=True))


def test_a_deck_enrolled_from_face_photos_reads_other_photos_of_it(tmp_path):
    """Enrolled from one tight face photo per card (`--kind frame`, the default), the deck's references are
    the index corners the reader reads, not a printed frame's corners: other photos of the deck, on a
    table or tight, are read with no wrong card and hardly a decline (before: 12 wrong of 108 on bridge)."""
    csv_path = _write_deck_photos(tmp_path / "enrol", "bridge", seed=5, render=render_tight_photo)
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "faces", "--labels", str(csv_path))
    assert proc.returncode == 0, proc.stderr
    rng = np.random.default_rng(6)
    files, truth = [], []
    for i, label in enumerate(LABELS):
        p = tmp_path / f"q_{i}.png"
        cv2.imwrite(str(p), (render_table_frame if i % 2 else render_tight_photo)(label, rng, design="bridge"))
        files.append(str(p))
        truth.append(label)
    proc = hongsi(tmp_path, "vision", "classify", "--kind", "frame", "--deck", "faces", *files)
    assert proc.returncode == 0, proc.stderr
    labels = [json.loads(ln)["label"] for ln in proc.stdout.splitlines()]
    assert all(a in (b, None) for a, b in zip(labels, truth, strict=True))
    assert sum(a == b for a, b in zip(labels, truth, strict=True)) >= 0.9 * len(truth)


def test_a_photo_whose_label_looks_wrong_is_said(tmp_path):
    """Two photos' labels swapped in the CSV (a typo): enrolled as labelled, but both rows are named on
    stderr and under "doubtful", so the person can fix the CSV and enrol again."""
    csv_path = _write_deck_photos(tmp_path / "enrol", "bridge", seed=2)
    text = csv_path.read_text().replace("H4.png,H4", "H4.png,TMP").replace("S9.png,S9", "S9.png,H4")
    csv_path.write_text(text.replace("H4.png,TMP", "H4.png,S9"))
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "typo", "--labels", str(csv_path), "--kind", "window")
    assert proc.returncode == 0, proc.stderr
    doubts = json.loads(proc.stdout)["doubtful"]
    assert len(doubts) == 2 and any("labelled S9, reads as H4" in d for d in doubts), doubts
    assert any("labelled H4, reads as S9" in d for d in doubts) and "check the label" in proc.stderr


def test_bad_enrolment_input_is_one_line_and_loses_nothing(tmp_path):
    good = _write_deck_photos(tmp_path / "good", "poker", seed=2, labels=LABELS[:52])
    assert hongsi(tmp_path, "vision", "enroll", "--deck", "d1", "--labels", str(good), "--kind", "window").returncode == 0
    refs = tmp_path / "data" / "decks" / "d1" / "refs.npz"
    before = refs.read_bytes()
    bad = tmp_path / "bad"
    bad.mkdir()
    for text, why in (("file,label\nnope.png,H4\n", "no such file"),
                      ("file,label\nx.png,Z9\n", "unknown card label")):
        (bad / "x.png").write_bytes(cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
        (bad / "labels.csv").write_text(text)
        proc = hongsi(tmp_path, "vision", "enroll", "--deck", "d1", "--labels", str(bad / "labels.csv"))
        assert proc.returncode == 2, proc.stderr
        assert why in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        assert refs.read_bytes() == before
    # a blank picture (a grey sheet photographed by mistake) names no card, whatever the kind (an outside
    # audit found it enrolled as ♥5)
    cv2.imwrite(str(bad / "grey.png"), np.full((480, 640, 3), 128, np.uint8))
    (bad / "labels.csv").write_text("file,label\ngrey.png,H5\n")
    for kind in ("window", "frame", "corner"):
        proc = hongsi(tmp_path, "vision", "enroll", "--deck", "d1", "--labels", str(bad / "labels.csv"), "--kind", kind)
        assert proc.returncode == 2 and "no card found" in proc.stderr, (kind, proc.stderr)
        assert refs.read_bytes() == before
    proc = hongsi(tmp_path, "vision", "classify", "--deck", "nosuch", str(bad / "x.png"))
    assert proc.returncode == 2 and "no deck named 'nosuch'" in proc.stderr


def test_deck_order_file_checks(tmp_path):
    from controller.decks import FACTORY_ORDER, read_order
    from vision.enroll import EnrolError

    assert len(FACTORY_ORDER) == 52 and len(set(FACTORY_ORDER)) == 52
    p = tmp_path / "order.txt"
    p.write_text(" ".join(FACTORY_ORDER[:-1]))
    with pytest.raises(EnrolError, match="has no H" + FACTORY_ORDER[-1][1:]):
        read_order(p)
    p.write_text(" ".join(FACTORY_ORDER + ("SA",)))
    with pytest.raises(EnrolError, match="SA listed twice"):
        read_order(p)
    p.write_text(",".join(FACTORY_ORDER + ("RJ", "BJ")))
    assert read_order(p)[-2:] == ("RJ", "BJ")
    # written as people write them, as the enrolment CSV takes them
    p.write_text("\n".join(f"{lab[1:]}{lab[0].lower()}" if i % 2 else lab for i, lab in enumerate(FACTORY_ORDER)))
    assert read_order(p) == FACTORY_ORDER
    p.write_text(" ".join(FACTORY_ORDER[:-1] + ("H11",)))
    with pytest.raises(EnrolError, match="unknown card label 'H11'"):
        read_order(p)


def test_a_card_that_fills_the_picture_is_read(reader):
    """No outline to find: the reader takes the picture as the card (vision.enroll.whole_card_corners)."""
    from vision.render import render_tight_photo

    rng = np.random.default_rng(4)
    labels = ["H4", "SK", "D10", "C7"]
    got = [reader.read(render_tight_photo(lab, rng, design="poker"), kind="frame").label for lab in labels]
    assert sum(g == t for g, t in zip(got, labels, strict=True)) >= 3
    assert all(g in (t, None) for g, t in zip(got, labels, strict=True))


def test_the_virtual_camera_draws_a_named_design_and_refuses_an_unknown_one():
    from firmware_bridge.sim.camera import render_frame
    from vision.render import check_design

    a = render_frame("H4", np.random.default_rng(1), "dark")
    b = render_frame("H4", np.random.default_rng(1), "poker")
    assert a.shape == b.shape == (240, 320, 3) and np.abs(a.astype(int) - b).mean() > 10
    with pytest.raises(ValueError, match="unknown card design 'nosuch'"):
        check_design("nosuch")


def test_the_reader_reads_a_deal_with_an_enrolled_deck(reader, tmp_path):
    """The dealer's hook: CardReader.use_deck; probabilities that deck decoding can take."""
    from vision.enroll import DeckRefs, Embedder, enrol
    from vision.reader import CardReader

    rng = np.random.default_rng(11)
    embedder = Embedder(reader.paths[0])
    refs = enrol(embedder, [(render_window_frame(lab, rng, design="guandan"), lab, lab) for lab in LABELS], "window")
    refs.save(tmp_path, "g")
    r = CardReader(threads=1)
    r.use_deck(DeckRefs.load(tmp_path, "g"))
    for lab in ("S3", "HQ", "RJ"):
        got = r.read_votes([render_window_frame(lab, rng, design="guandan") for _ in range(2)])
        assert got.label == lab and got.probs.argmax() == LABELS.index(lab)
        assert abs(got.probs.sum() - 1) < 1e-6


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(0, len(LABELS) - 1), min_size=1, max_size=80), st.integers(0, 2**32 - 1))
def test_each_card_scores_its_nearest_reference_averaged_over_corners(corners, labels, seed):
    """card_scores (vectorised) is the plain definition: per corner, each card's best reference; -1 for a
    card with no reference; the mean over corners."""
    from vision.enroll import DeckRefs, card_scores

    rng = np.random.default_rng(seed)
    refs = DeckRefs(rng.normal(size=(len(labels), 8)).astype(np.float32), np.asarray(labels, np.int64), "m")
    emb = rng.normal(size=(corners, 8)).astype(np.float32)
    plain = np.full((corners, len(LABELS)), -1.0)
    for k in set(labels):
        plain[:, k] = (emb @ refs.embeddings[refs.labels == k].T).max(axis=1)
    assert np.allclose(card_scores(emb, refs), plain.mean(axis=0), atol=1e-5)


def test_the_deck_and_the_models_weighed_together():
    """combine: a clear nearest reference the models also favour is read; the deck's nearest card that the
    models put elsewhere is declined, as is a picture like no reference; the pooled probabilities sum to 1."""
    from vision.enroll import BASE_SIMILARITY, combine

    h4, s4 = LABELS.index("H4"), LABELS.index("S4")
    scores = np.full(len(LABELS), 0.3, np.float32)
    scores[h4], scores[s4] = 0.92, 0.85
    models = np.full(len(LABELS), 0.2 / (len(LABELS) - 1))
    models[h4] = 0.8
    reading, pooled = combine(scores, models)
    assert reading.label == "H4" and abs(pooled.sum() - 1) < 1e-5 and pooled.argmax() == h4
    against = models.copy()
    against[h4], against[s4] = 1e-6, 0.8
    assert combine(scores, against)[0].label is None  # the deck says H4, the models S4 by far: ask
    assert combine(np.full(len(LABELS), BASE_SIMILARITY - 0.2, np.float32), models)[0].label is None


def test_a_photo_needs_the_deck_and_the_models_to_name_the_same_card():
    """A dealer frame may let a clear nearest reference overrule the models' first choice; a photo from any
    camera may not (PHOTO_RULE): the deck's nearest card read wrongly in 3.4 % of photos that way."""
    from vision.enroll import combine

    h4, s4 = LABELS.index("H4"), LABELS.index("S4")
    scores = np.full(len(LABELS), 0.3, np.float32)
    scores[h4], scores[s4] = 0.95, 0.80
    models = np.full(len(LABELS), 0.4 / (len(LABELS) - 2))
    models[s4], models[h4] = 0.35, 0.25
    looks = np.zeros(len(LABELS))
    assert combine(scores, models, looks, "window")[0].label == "H4"
    assert combine(scores, models, looks, "frame")[0].label is None
    models[s4], models[h4] = 0.25, 0.35
    assert combine(scores, models, looks, "frame")[0].label == "H4"


def test_enrolling_the_same_photos_again_adds_no_reference(tmp_path):
    """Re-enrolment merges: the same photos twice leave the deck as it was; other photos of a card add to it."""
    csv_path = _write_deck_photos(tmp_path / "enrol", "bridge", seed=4, labels=LABELS[:6])
    args = ("vision", "enroll", "--deck", "again", "--labels", str(csv_path), "--kind", "window")
    first = json.loads(hongsi(tmp_path, *args).stdout)["references"]
    assert json.loads(hongsi(tmp_path, *args).stdout)["references"] == first
    more = _write_deck_photos(tmp_path / "more", "bridge", seed=5, labels=LABELS[:6])
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "again", "--labels", str(more), "--kind", "window")
    assert json.loads(proc.stdout)["references"] == 2 * first


def test_references_another_model_made_are_replaced_and_said(tmp_path):
    """After the models change, a deck's old references cannot be compared with new ones: enrolling drops
    them, and says how many (the operator enrols the deck's other photos again)."""
    from vision.enroll import DeckRefs

    DeckRefs(np.eye(3, 8, dtype=np.float32), np.array([0, 1, 2]), "an-older-model").save(tmp_path / "data", "d")
    csv_path = _write_deck_photos(tmp_path / "p", "bridge", seed=5, labels=["H4", "S9"])
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "d", "--labels", str(csv_path), "--kind", "window")
    assert proc.returncode == 0, proc.stderr
    assert "its 3 references made with another model were replaced" in proc.stderr
    refs = DeckRefs.load(tmp_path / "data", "d")
    assert refs.model != "an-older-model" and sorted({LABELS[int(i)] for i in refs.labels}) == ["H4", "S9"]
    again = hongsi(tmp_path, "vision", "enroll", "--deck", "d", "--labels", str(csv_path), "--kind", "window")
    assert again.returncode == 0 and "another model" not in again.stderr


def test_in_grey_a_deck_does_not_tell_the_jokers_apart_by_shade(tmp_path):
    """A greyscale photo shows a joker, not its colour (lighting fakes shade): read with a deck's corner
    references enrolled in colour, it is declined, as the models alone decline it; a coloured one is still
    read. (A whole-card look may still tell them apart where the two jokers' art differs: it is all edges.)"""
    from vision.enroll import DeckRefs, Embedder, enrol, read_with_deck
    from vision.reader import MODEL_PATH, CardReader

    embedder, reader = Embedder(MODEL_PATH), CardReader(threads=1)
    rng = np.random.default_rng(12)
    refs = enrol(embedder, [(render_window_frame(lab, rng, design="bridge"), lab, lab) for lab in LABELS], "window")
    refs = DeckRefs(refs.embeddings, refs.labels, refs.model)  # corners only, as from corner crops
    for joker in ("RJ", "BJ"):
        frame = render_window_frame(joker, rng, design="bridge")
        grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        assert read_with_deck(embedder, refs, grey, "window", reader).label is None
        assert read_with_deck(embedder, refs, frame, "window", reader).label == joker


def test_compose_refuses_what_is_no_face_and_never_overwrites_one(tmp_path):
    """(an outside audit: a 1 x 12,000 PNG of 7.6 KB, scaled to a face 200 px wide, took 5.7 GB)"""
    cv2.imwrite(str(tmp_path / "needle.png"), np.zeros((12_000, 1, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "strip.png"), np.zeros((10, 4000, 3), np.uint8))
    for name in ("needle.png", "strip.png"):
        proc = hongsi(tmp_path, "vision", "compose", "--kind", "pile", "--out", str(tmp_path / "o.png"),
                      str(tmp_path / name))
        assert proc.returncode == 2 and "face" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    face = tmp_path / "face.png"
    cv2.imwrite(str(face), np.full((140, 100, 3), 230, np.uint8))
    before = face.read_bytes()
    proc = hongsi(tmp_path, "vision", "compose", "--out", str(face), str(face))
    assert proc.returncode == 2 and "overwritten" in proc.stderr and face.read_bytes() == before


def test_a_full_standard_output_is_one_line_not_a_traceback(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), np.full((40, 40, 3), 128, np.uint8))
    (tmp_path / "empty.toml").write_text("")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "controller.cli", "vision", "classify", "--kind", "corner",
                               str(tmp_path / "a.png")], stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO,
                              timeout=120, env=dict(os.environ, HONGSI_CONFIG=str(tmp_path / "empty.toml")))
    assert proc.returncode == 1 and proc.stderr.strip() == "hongsi: No space left on device"


def test_a_damaged_deck_is_one_line_and_a_mended_label_replaces_the_deck(tmp_path):
    labels = ["H4", "S9", "DK", "CA"]
    good = _write_deck_photos(tmp_path / "p", "bridge", seed=5, labels=labels)
    typo = good.parent / "typo.csv"
    typo.write_text(good.read_text().replace("S9.png,S9", "S9.png,H10"))  # a wrong label, enrolled as given
    assert hongsi(tmp_path, "vision", "enroll", "--deck", "d", "--labels", str(typo), "--kind", "window").returncode == 0
    assert hongsi(tmp_path, "vision", "enroll", "--deck", "fresh", "--labels", str(good),
                  "--kind", "window").returncode == 0
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "d", "--labels", str(good), "--kind", "window", "--replace")
    assert proc.returncode == 0, proc.stderr
    refs = tmp_path / "data" / "decks"
    assert (refs / "d" / "refs.npz").read_bytes() == (refs / "fresh" / "refs.npz").read_bytes()  # no H10 left
    (refs / "d" / "refs.npz").write_bytes(b"")  # damaged (a disk that filled, a copy cut short)
    for args in (("classify", "--deck", "d", str(good.parent / "H4.png")),
                 ("enroll", "--deck", "d", "--labels", str(good), "--kind", "window")):
        proc = hongsi(tmp_path, "vision", *args)
        assert proc.returncode == 2 and "damaged" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        assert (refs / "d" / "refs.npz").read_bytes() == b""  # not overwritten: it may be mended by hand
    proc = hongsi(tmp_path, "vision", "enroll", "--deck", "d", "--labels", str(good), "--kind", "window", "--replace")
    assert proc.returncode == 0 and (refs / "d" / "refs.npz").read_bytes() == (refs / "fresh" / "refs.npz").read_bytes()


def test_a_failed_save_leaves_the_old_references_and_no_half_file(tmp_path, monkeypatch):
    import errno

    from vision.enroll import DeckRefs

    old = DeckRefs(np.eye(2, 8, dtype=np.float32), np.array([0, 1]), "m")
    path = old.save(tmp_path, "d")
    before = path.read_bytes()

    def full(file, **arrays):
        with open(file, "wb") as f:
            f.write(b"PK\x03\x04 half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    with pytest.raises(OSError):
        DeckRefs(np.eye(3, 8, dtype=np.float32), np.array([0, 1, 2]), "m").save(tmp_path, "d")
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) == ["refs.npz"]
