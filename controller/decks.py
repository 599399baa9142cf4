"""Learning the table's own deck: ``hongsi vision enroll`` (labelled photos) and ``hongsi deck learn``
(the rig deals a deck of known order into one pile while the camera reads each card).

Both end in :meth:`vision.enroll.DeckRefs.save` under ``DATA_DIR/decks/NAME/``: the new references are
merged with those already there and written atomically, and only when every input was good, so a bad
CSV or a deal that stops half way loses nothing already enrolled.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from vision.enroll import DeckRefs, Embedder, EnrolError, deck_dir, enrol
from vision.labels import JOKERS, LABELS, parse

# The order a new deck leaves its box in (the common "new deck order": ♠A-K, ♦A-K, ♣K-A, ♥K-A), then
# the jokers; the rig deals it as it lies, the bottom card first.
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FACTORY_ORDER = (tuple("S" + r for r in _RANKS) + tuple("D" + r for r in _RANKS)
                 + tuple("C" + r for r in reversed(_RANKS)) + tuple("H" + r for r in reversed(_RANKS)))
KINDS = ("frame", "corner", "window")
# Cards the models read surely as another card than the order lists before deck learning stops: the
# models are almost never surely wrong on a dealer frame, so two such cards mean the hopper holds another
# order (the virtual rig's own deck, a shuffled deck), and learning on would save every card mislabelled.
MISMATCHES = 2


def read_labels_csv(path: Path) -> list[tuple[Path, str]]:
    """``file,label`` rows (paths relative to the CSV's folder); EnrolError on a missing file or an
    unknown label, naming the row."""
    if not path.is_file():
        raise EnrolError(f"{path}: {'not a file (a folder?)' if path.is_dir() else 'no such file'}")
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = [h.strip().lower() for h in next(reader, [])]  # "File, Label" from a spreadsheet too
            rows = [(reader.line_num, {h: row[i] if i < len(row) else None for i, h in enumerate(header)})
                    for row in reader if any(cell.strip() for cell in row)]
    except UnicodeDecodeError:  # a spreadsheet's local encoding (GBK in Chinese Excel)
        raise EnrolError(f"{path}: not UTF-8 text: save the CSV as \"CSV UTF-8\"") from None
    except (OSError, csv.Error) as exc:
        raise EnrolError(f"{path}: not a readable CSV ({exc})") from None
    if not {"file", "label"} <= set(header):
        found = f" (its first line: {','.join(header)!r})" if header else " (it is empty)"
        raise EnrolError(f"{path}: needs the columns file,label separated by commas{found}")
    if not rows:
        raise EnrolError(f"{path}: lists no photo (each row: file,label)")
    out: list[tuple[Path, str]] = []
    lines: dict[Path, int] = {}
    for n, row in rows:
        if row["label"] is None or row["file"] is None:  # a row with fewer fields than the header
            raise EnrolError(f"{path}, line {n}: no {'label' if row['file'] is not None else 'file'} "
                             "(each row: file,label)")
        label = parse(row["label"])
        file = path.parent / row["file"].strip()
        if label is None:
            raise EnrolError(f"{path}, line {n}: unknown card label {row['label']!r} (e.g. S10, HQ, 10H, ♥Q, BJ, RJ)")
        if not row["file"].strip() or not file.is_file():
            why = "a folder, not a file" if row["file"].strip() and file.is_dir() else "no such file"
            raise EnrolError(f"{path}, line {n}: {why} {row['file']!r}")
        if file.resolve() in lines:  # one photo cannot teach two cards, nor count twice
            raise EnrolError(f"{path}, line {n}: {row['file']!r} is already listed on line {lines[file.resolve()]}")
        lines[file.resolve()] = n
        out.append((file, label))
    return out


def read_order(path: Path | None) -> tuple[str, ...]:
    """The deck's order from a file (labels separated by commas, spaces or lines), or the factory order;
    EnrolError unless each of the 52 suit cards is there once (the jokers at most once each)."""
    if path is None:
        return FACTORY_ORDER
    try:
        words = path.read_text(encoding="utf-8").replace(",", " ").split()
    except (OSError, UnicodeDecodeError) as exc:
        raise EnrolError(f"{path}: cannot read the order ({exc})") from None
    parsed = [parse(w) for w in words]  # as people write them: S10, 10s, ♠10
    unknown = [w for w, label in zip(words, parsed, strict=True) if label is None]
    order = tuple(label for label in parsed if label is not None)
    if unknown:
        raise EnrolError(f"{path}: unknown card label {unknown[0]!r}")
    twice = sorted({w for w in order if order.count(w) > 1})
    if twice:
        raise EnrolError(f"{path}: {', '.join(twice)} listed twice")
    missing = [label for label in LABELS if label not in order and label not in JOKERS]
    if missing:
        raise EnrolError(f"{path}: the deck has no {', '.join(missing)}")
    return order


def _image(path: Path) -> np.ndarray:
    import cv2

    from controller.images import load

    got = load(path, cv2)
    if got.image is None:
        raise EnrolError(f"{path}: {got.why}")
    if got.warning:  # cut short or garbled: the deck would learn the damage
        raise EnrolError(f"{path}: {got.warning}; enrol a whole copy of it")
    return got.image


def enrol_csv(csv_path: Path, deck: str, data_dir: Path, kind: str, model: Path,
              replace: bool = False) -> tuple[DeckRefs, list[str], list[str], int]:
    """Enrol the photos a CSV lists into ``deck``; returns the deck's references, the suit cards still
    without one, the rows the models read surely as another card than their label (a typo in the CSV
    would teach the deck a wrong card; they are enrolled as labelled, and said), and how many references
    made with another model were dropped. ``replace``: the deck becomes these photos alone (a label
    mended). Nothing is written unless every row was good."""
    if kind not in KINDS:
        raise EnrolError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
    deck_dir(data_dir, deck)  # a bad name is said before minutes of photos, not after
    old = None if replace else _existing(data_dir, deck)  # a damaged deck too
    rows = read_labels_csv(csv_path)
    from vision.reader import MODEL_PATH, CardReader

    embedder = Embedder(model)
    # the same reader as `classify --deck`: a photo's corners are enrolled as they will be read
    reader = CardReader(threads=1) if Path(model) == MODEL_PATH else CardReader(model, threads=1)
    doubts: list[str] = []

    def items():  # one photo in memory at a time: 54 phone photos decoded at once took 1.6 GB
        for file, label in rows:
            image = _image(file)
            if (seen := reader.read(image, kind=kind).label) not in (None, label):
                doubts.append(f"{file}: labelled {label}, reads as {seen}")
            yield image, label, str(file)

    new = enrol(embedder, items(), kind, reader=reader if kind == "frame" else None)
    refs = new.merged(old)
    refs.save(data_dir, deck)
    return refs, refs.missing(), doubts, _dropped(old, new)


def _dropped(old: DeckRefs | None, new: DeckRefs) -> int:
    """How many of ``old``'s references :meth:`DeckRefs.merged` dropped: those another model made."""
    return 0 if old is None or old.model == new.model else len(old.labels)


def _existing(data_dir: Path, deck: str) -> DeckRefs | None:
    from vision.enroll import DeckNotFound

    try:
        return DeckRefs.load(data_dir, deck)
    except DeckNotFound:
        return None


def learn_deck(rig: Any, camera: Any, order: tuple[str, ...], deck: str, data_dir: Path, model: Path,
               frames: int = 3, progress: Any = None) -> tuple[DeckRefs, int]:
    """Deal a deck of known ``order`` into one pile (the turntable at its first seat), enrolling each
    card from ``frames`` camera frames taken before it leaves. Saves only when the whole deck was dealt
    and the hopper is then empty. Returns the deck's references and how many made with another model
    were dropped."""
    from vision.reader import CardReader

    embedder, reader = Embedder(model), CardReader(threads=1)  # the dealer's reader
    old = _existing(data_dir, deck)  # a damaged deck is said before the rig deals, not after
    rig.home()
    rig.rotate_to(0)
    items: list[tuple[Any, str, str]] = []  # enrolled together once the whole deck is dealt
    wrong: list[str] = []
    for i, label in enumerate(order):
        if rig.hopper_empty:
            raise EnrolError(f"the hopper ran out after {i} cards of {len(order)}: nothing was saved")
        images = [f.image for f in camera.grab(frames, timeout=5.0, skip=1)]
        seen = reader.read(images[0], kind="window").label
        if seen is not None and seen != label:
            wrong.append(f"card {i + 1} looks like {seen}, the order lists {label}")
            if len(wrong) >= MISMATCHES:
                raise EnrolError(f"the cards do not leave the hopper in the listed order ({'; '.join(wrong)}; "
                                 "give the order with --order): nothing was saved")
        items += [(img, label, f"card {i + 1} ({label})") for img in images]
        rig.eject()
        if progress is not None:
            progress(i + 1, len(order), label)
    if not rig.hopper_empty:
        raise EnrolError(f"cards are left in the hopper after the {len(order)} listed: nothing was saved")
    new = enrol(embedder, items, "window")
    refs = new.merged(old)
    refs.save(data_dir, deck)
    return refs, _dropped(old, new)
