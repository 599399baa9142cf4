"""The ``hongsi`` command. Each command is a thin wrapper; the work lives in the modules it calls.

The names, arguments and outputs of ``docs/interfaces.md`` are kept exactly (or as a superset).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from engine.registry import DEFAULT_GAME, game_names

app = typer.Typer(help="hongsi — the card-table rig: shuffle, deal, read every card, referee.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
vision_app = typer.Typer(help="Card recognition.", no_args_is_help=True)
config_app = typer.Typer(help="The rig's configuration.", no_args_is_help=True)
app.add_typer(vision_app, name="vision")
deck_app = typer.Typer(help="The table's own deck: learn it once, then deals read with it.", no_args_is_help=True)
app.add_typer(deck_app, name="deck")
app.add_typer(config_app, name="config")
log_app = typer.Typer(help="The journal: verify the hash chain and receipts, export a round, the rig's key.", no_args_is_help=True)
app.add_typer(log_app, name="log")
firmware_app = typer.Typer(help="The Pico's firmware: flash it, check what it runs.", no_args_is_help=True)
app.add_typer(firmware_app, name="firmware")
from controller.club.cli import club_app  # noqa: E402  (the card room: hongsi club …)

app.add_typer(club_app, name="club")

err = Console(stderr=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print one clear line on standard error; return the Exit to raise."""
    sys.stderr.write(f"hongsi: {' '.join(message.split())}\n")
    return typer.Exit(code)


# ---------------------------------------------------------------- referee / selfplay (engine)
@app.command()
def referee(record: Annotated[Path, typer.Argument(metavar="RECORD", help="a game record (JSON)")],
            strict: Annotated[bool, typer.Option("--strict", help="exit 1 when the verdict has a violation of "
                                                 "severity error (a warning keeps exit 0)")] = False) -> None:
    """Judge a game record and print the verdict JSON.

    Exit 0 once judged, whatever the verdict says (with --strict: 1 on any error-severity violation);
    exit 2 for a file that is not a game record.
    """
    from engine.record import RecordError
    from engine.referee import referee as judge

    try:
        obj = json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise fail(f"{record}: no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise fail(f"{record}: not valid JSON ({exc})") from None
    except RecursionError:
        raise fail(f"{record}: not a game record: JSON nested too deeply") from None
    except OSError as exc:
        raise fail(f"{record}: cannot read ({exc.strerror})") from None
    try:
        verdict = judge(obj)
    except RecursionError:
        raise fail(f"{record}: not a game record: nested too deeply") from None
    except RecordError as exc:
        raise fail(f"{record}: not a game record: {exc}") from None
    sys.stdout.write(json.dumps(verdict, ensure_ascii=False, indent=2) + "\n")
    errors = [v for v in verdict.get("violations") or [] if v.get("severity") == "error"]
    if strict and errors:
        sys.stderr.write(f"hongsi: {record}: {len(errors)} violation{'s' if len(errors) != 1 else ''} "
                         f"of severity error (--strict)\n")
        raise typer.Exit(1)


@app.command()
def selfplay(
    game: Annotated[str, typer.Option(help=", ".join(game_names()))] = DEFAULT_GAME,
    n: Annotated[int, typer.Option("-n", min=1, help="how many hands")] = 10,
    seed: Annotated[int | None, typer.Option(help="random seed (reproducible hands)")] = None,
    out: Annotated[Path, typer.Option(help="folder for the records NNNN.json")] = Path("selfplay"),
    bot: Annotated[str, typer.Option(help="greedy | random (quick) | careful: searches, declares only when "
                                          "it clearly pays | bold: searches, declares on good hopes")] = "greedy",
    bot_ms: Annotated[float, typer.Option(help="the search bots' time per move, ms")] = 200.0,
) -> None:
    """Play N hands with the built-in bots and write each as a game record DIR/NNNN.json.

    Standard error says where the records went.
    """
    from controller.selfplay import run_selfplay

    try:
        paths = run_selfplay(game=game, n=n, seed=seed, out=out, bot=bot, bot_ms=bot_ms)
    except ValueError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # a folder that cannot be made or written: one line, not a traceback
        where = exc.filename or out
        raise fail(f"--out {out}: cannot write the records ({where}: {exc.strerror or exc})") from None
    span = paths[0].name if len(paths) == 1 else f"{paths[0].name} … {paths[-1].name}"
    sys.stderr.write(f"hongsi: {len(paths)} {game} record{'s' if len(paths) != 1 else ''} in "
                     f"{out.resolve()}/ ({span})\n")


# ---------------------------------------------------------------- vision
@vision_app.command("classify")
def vision_classify(
    images: Annotated[list[Path], typer.Argument(help="image files", readable=False)],  # each said on its line
    kind: Annotated[str, typer.Option(help="frame (a card anywhere), corner (a corner-index crop), window "
                                      "(the dealer camera's view) or pile (every card on the play area)")] = "frame",
    deck: Annotated[str | None, typer.Option(help="read with this enrolled deck's references")] = None,
) -> None:
    """Read cards in image files; print one JSON object a line.

    A file that cannot be read as an image still gets its line, with ``"label": null``, ``"confidence": 0.0``
    and an ``"error"``; the other files are read, a note goes to standard error, and the exit code is 1.
    """
    import cv2

    from vision.reader import CardReader

    if kind not in ("frame", "corner", "window", "pile"):
        raise fail(f"--kind must be 'frame', 'corner', 'window' or 'pile', not {kind!r}")
    by_deck = _deck_reader(deck) if deck is not None else None  # '' is a bad name, not "no deck"
    if kind == "pile":
        if by_deck is not None:  # documented (docs/interfaces.md), but the pile reader has no deck step yet
            sys.stderr.write(f"hongsi: deck {deck!r} found; the pile reader reads with the models alone\n")
        return _classify_piles(images)
    reader = CardReader(threads=1)
    failed = 0
    for path in images:
        image, why, warning = _load_image(path, cv2)
        if image is None:
            failed += 1
            _unreadable(path, why, "label")
            continue
        reading = by_deck(image, kind) if by_deck else reader.read(image, kind=kind)
        line = {"file": str(path), "label": reading.label, "confidence": round(float(reading.confidence), 4)}
        if warning:
            line["warning"] = warning
            sys.stderr.write(f"hongsi: {path}: {warning}\n")
        print(json.dumps(line), flush=True)
    if failed:
        raise typer.Exit(1)


def _unreadable(path: Path, why: str, key: str) -> None:
    """A file that cannot be read as an image still gets its JSON line (``key`` null, with the error)."""
    print(json.dumps({"file": str(path), key: None, "confidence": 0.0, "error": why}), flush=True)
    sys.stderr.write(f"hongsi: {path}: {why}\n")


def _classify_piles(images: list[Path]) -> None:
    """``vision classify --kind pile``: every card in each picture of the play area, one JSON line each
    (``"labels": null`` when unsure); an unreadable file gets its line with an ``"error"``, exit 1."""
    import cv2

    from vision.pile import PileReader

    reader = PileReader(threads=1)
    failed = 0
    for path in images:
        image, why, warning = _load_image(path, cv2)
        if image is None:
            failed += 1
            _unreadable(path, why, "labels")
            continue
        try:
            reading = reader.read(image)
        except ValueError as exc:  # too small or too narrow to hold a card's index
            failed += 1
            _unreadable(path, str(exc), "labels")
            continue
        line = {"file": str(path), "labels": reading.labels, "confidence": round(float(reading.confidence), 4)}
        if warning:
            line["warning"] = warning
            sys.stderr.write(f"hongsi: {path}: {warning}\n")
        print(json.dumps(line), flush=True)
    if failed:
        raise typer.Exit(1)


def _data_dir() -> Path:
    from controller.config import ConfigError, load_config

    try:
        return Path(load_config().data_dir).expanduser()
    except ConfigError as exc:
        raise fail(str(exc)) from None


def _deck_reader(deck: str) -> Any:
    """read(image, kind) with an enrolled deck's references (vision.enroll); exit 2 if there is no such deck."""
    from vision.enroll import DeckRefs, Embedder, EnrolError, read_with_deck
    from vision.reader import MODEL_PATH, CardReader

    try:
        refs = DeckRefs.load(_data_dir(), deck)
        embedder = Embedder(MODEL_PATH)
        if refs.model != embedder.digest:
            raise EnrolError(f"deck {deck!r} was enrolled with another model: enrol it again")
    except EnrolError as exc:
        raise fail(str(exc)) from None
    reader = CardReader(threads=1)
    return lambda image, kind: read_with_deck(embedder, refs, image, kind, reader)


@vision_app.command("enroll")
def vision_enroll(
    deck: Annotated[str, typer.Option(help="the deck's name")],
    labels: Annotated[Path, typer.Option(help="a CSV with columns file,label (paths relative to it)",
                                         readable=False)],
    kind: Annotated[str, typer.Option(help="frame, corner or window")] = "frame",
    replace: Annotated[bool, typer.Option("--replace", help="the deck becomes these photos alone (to mend a "
                                          "wrong label), instead of adding to it")] = False,
) -> None:
    """Learn a deck from labelled photos: its references go under the data directory (merged with any
    already there). A missing file or an unknown label stops it before anything is written."""
    from controller.decks import enrol_csv
    from vision.enroll import EnrolError
    from vision.reader import MODEL_PATH

    try:
        refs, missing, doubts, dropped = enrol_csv(labels, deck, _data_dir(), kind, MODEL_PATH, replace)
    except EnrolError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:  # a data folder that cannot be written, a full disk: what was enrolled stays
        raise fail(f"deck {deck!r}: cannot write its references ({exc.strerror or exc}); nothing changed") from None
    _say_dropped(deck, dropped, "these photos'")
    sys.stdout.write(json.dumps({"deck": deck, "references": int(len(refs.labels)),
                                 "cards": len({int(i) for i in refs.labels}), "missing": missing,
                                 "doubtful": doubts}) + "\n")
    if missing:
        sys.stderr.write(f"hongsi: deck {deck!r} has no reference yet for {', '.join(missing)}\n")
    for doubt in doubts:
        sys.stderr.write(f"hongsi: check the label of {doubt} (enrolled as labelled)\n")


@vision_app.command("compose")
def vision_compose(
    faces: Annotated[list[Path], typer.Argument(help="upright photos or scans of card faces, cropped to the card "
                                                     "(one for --kind window)", readable=False)],
    out: Annotated[Path, typer.Option(help="the frame to write (PNG or JPEG)")],
    kind: Annotated[str, typer.Option(help="window: the dealer camera's view; pile: the faces thrown onto the "
                                      "play area")] = "window",
    seed: Annotated[int, typer.Option(min=0, help="random seed (pose, light, noise)")] = 0,
) -> None:
    """Put card faces into a camera's view: one into the dealer camera's, as the virtual rig draws it,
    or several into a pile on the play area, as players throw them (overlapping, turned, fanned, now and
    then under a hand)."""
    import cv2
    import numpy as np

    from vision.render import face_from_image, render_window_frame

    if kind not in ("window", "pile"):
        raise fail(f"--kind must be 'window' or 'pile', not {kind!r}")
    if kind == "window" and len(faces) != 1:
        raise fail(f"--kind window takes one face, not {len(faces)}")
    if kind == "pile" and len(faces) > 54:
        raise fail(f"a pile of at most 54 cards, not {len(faces)}")
    if any(face.resolve() == out.resolve() for face in faces):
        raise fail(f"--out {out} is one of the faces: it would be overwritten")
    loaded = []
    for face in faces:
        image, why, _ = _load_image(face, cv2, alpha=True)  # a face cut out on a transparent canvas
        if image is None:
            raise fail(f"{face}: {why}")
        if (shape := _not_a_face(image)) is not None:
            raise fail(f"{face}: {shape}")
        loaded.append(face_from_image(image))
    rng = np.random.default_rng(seed)
    if kind == "pile":
        from vision.pile_render import render_pile

        frame = render_pile(loaded, rng).image
    else:
        frame = render_window_frame("", rng, face=loaded[0])
    try:
        ok, buf = cv2.imencode(out.suffix.lower() or ".png", frame)
    except cv2.error:  # no encoder for that file name's ending
        ok = False
    if not ok:
        raise fail(f"{out}: cannot write that format (use .png or .jpg)")
    try:
        out.write_bytes(buf.tobytes())
    except OSError as exc:
        raise fail(f"{out}: cannot write it ({exc.strerror})") from None


FACE_SIDE = 40  # px: a face's shorter side at least (its index is a few percent of it)
FACE_SHAPE = 0.4  # its shorter side over its longer at least (cards are 0.55-0.72)


def _not_a_face(image: Any) -> str | None:
    """Why a picture cannot be one card's face (too small, or no card's shape), or None."""
    short, long = sorted(image.shape[:2])
    if short < FACE_SIDE:
        return f"{image.shape[1]} × {image.shape[0]} pixels is too small for a card's face (at least {FACE_SIDE} a side)"
    if short < FACE_SHAPE * long:
        return (f"{image.shape[1]} × {image.shape[0]} pixels is not a card's shape: crop the picture to the card "
                f"(its sides about 5:7)")
    return None


@deck_app.command("learn")
def deck_learn(
    serial: Annotated[str, typer.Option(help="the rig's serial port")],
    camera: Annotated[str, typer.Option(help="the camera URL")],
    deck: Annotated[str, typer.Option(help="the deck's name")],
    order: Annotated[Path | None, typer.Option(help="the order the cards leave the hopper (default: new-deck "
                                                    "order, ♠A-K ♦A-K ♣K-A ♥K-A)")] = None,
    frames: Annotated[int, typer.Option(min=1, max=15, help="camera frames enrolled per card")] = 3,
) -> None:
    """Deal a deck of known order into one pile while the camera enrols each card under the deck's name."""
    from controller.decks import learn_deck, read_order
    from vision.enroll import EnrolError, deck_dir
    from vision.reader import MODEL_PATH

    data_dir = _data_dir()
    try:
        deck_dir(data_dir, deck)
        cards = read_order(order)
    except EnrolError as exc:
        raise fail(str(exc)) from None
    from controller.camera import CameraError, open_camera
    from controller.config import load_config
    from firmware_bridge import Rig

    cfg = load_config()
    try:
        cam = open_camera(camera)
    except (CameraError, OSError, ValueError) as exc:
        raise fail(f"cannot open the camera {camera}: {exc}") from None
    try:
        rig = Rig(serial, angles=list(cfg.servo_angles), bottom_angle=cfg.bottom_angle)
        rig.connect()
    except Exception as exc:  # noqa: BLE001 - any failure to reach the rig is one clear line
        cam.close()
        raise fail(f"cannot reach the rig on {serial}: {exc}") from None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err) as bar:
            task = bar.add_task("learning 学牌", total=len(cards))
            refs, dropped = learn_deck(rig, cam, cards, deck, data_dir, MODEL_PATH, frames,
                                       progress=lambda i, n, label: bar.update(task, completed=i,
                                                                               description=f"learning 学牌 {label}"))
    except EnrolError as exc:
        raise fail(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - a rig or camera fault: one line, nothing saved
        raise fail(f"deck learning stopped, nothing was saved: {exc}") from None
    finally:
        rig.close()
        cam.close()
    _say_dropped(deck, dropped, "the rig's frames'")
    sys.stdout.write(json.dumps({"deck": deck, "references": int(len(refs.labels)),
                                 "cards": len({int(i) for i in refs.labels})}) + "\n")


def _say_dropped(deck: str, dropped: int, by: str) -> None:
    if dropped:  # the models changed since the deck was enrolled: its old references cannot be compared
        sys.stderr.write(f"hongsi: deck {deck!r}: its {dropped} references made with another model were "
                         f"replaced by {by} (enrol its other photos again)\n")


def _load_image(path: Path, cv2: Any, alpha: bool = False) -> tuple[Any, str | None, str | None]:
    """(image or None, why not, a warning) for one file (:func:`controller.images.load`). The bytes are
    read by Python and decoded by OpenCV (which turns a phone photo by its EXIF orientation):
    ``cv2.imread`` itself crashes the process on a file name that is not UTF-8."""
    from controller.images import load

    got = load(path, cv2, alpha)
    return got.image, got.why, got.warning


# ---------------------------------------------------------------- the rig
@app.command()
def simulate(
    seed: Annotated[int | None, typer.Option(help="random seed")] = None,
    speed: Annotated[float, typer.Option(help="mechanics run X times faster than real")] = 1.0,
    decks: Annotated[int, typer.Option(min=1, max=2)] = 1,
    jokers: Annotated[bool, typer.Option("--jokers", help="the deck has the two jokers")] = False,
    truth: Annotated[Path | None, typer.Option(help="write where each card really went")] = None,
    jam_rate: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.0,
    double_feed_rate: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.0,
    camera_dropout: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.0,
    mcu_reset_at: Annotated[int | None, typer.Option(help="reboot the MCU while dealing card K")] = None,
    missing: Annotated[list[str] | None, typer.Option(help="a card missing from the deck")] = None,
    extra: Annotated[list[str] | None, typer.Option(help="an extra card in the deck")] = None,
    design: Annotated[str | None, typer.Option(help="the deck's look: poker, bridge, guandan, dark or a real "
                                               "SVG design (python -m vision.card_art lists them)")] = None,
    table_truth: Annotated[Path | None, typer.Option(help="write every play that landed on the table camera's "
                                                     "play area (JSON lines)")] = None,
) -> None:
    """Start the virtual rig; print {"serial", "camera", "table_camera"} and run until stopped."""
    import signal
    import threading

    from controller.config import ConfigError, load_config
    from firmware_bridge.sim import VirtualRig

    try:
        cfg = load_config()
        vr = VirtualRig(seed=seed, speed=speed, decks=decks, jokers=jokers, jam_rate=jam_rate,
                        double_feed_rate=double_feed_rate, camera_dropout=camera_dropout,
                        mcu_reset_at=mcu_reset_at, missing=missing or (), extra=extra or (), truth_path=truth,
                        angles=cfg.servo_angles, bottom_angle=cfg.bottom_angle, design=design,
                        table_camera=True, table_truth_path=table_truth)
    except (ConfigError, ValueError) as exc:
        raise fail(str(exc)) from None
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    ends = vr.start()
    try:
        sys.stdout.write(json.dumps(ends) + "\n")
        sys.stdout.flush()
        while not stop.wait(0.2):
            pass
    finally:
        vr.stop()


@app.command()
def deal(
    serial: Annotated[str, typer.Option(help="the microcontroller's serial port")],
    camera: Annotated[str, typer.Option(help="the camera URL")],
    game: Annotated[str, typer.Option()] = DEFAULT_GAME,
    first_seat: Annotated[int | None, typer.Option(help="the first seat to receive a card")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the game record on standard output")] = False,
    resume: Annotated[bool, typer.Option("--resume", help="finish the interrupted hand")] = False,
    void: Annotated[bool, typer.Option("--void", help="end the interrupted hand (re-shuffle)")] = False,
    fair: Annotated[bool | None, typer.Option("--fair/--no-fair", help="seats from a CSPRNG (default: config)")
                    ] = None,
    journal: Annotated[Path | None, typer.Option(help="the journal (default: DATA_DIR/journal.db)")] = None,
    config: Annotated[Path | None, typer.Option(help="config file")] = None,
    unattended: Annotated[bool, typer.Option("--unattended", help="clear faults without asking")] = False,
    frames: Annotated[int, typer.Option(min=1, max=15, help="camera frames voted per card")] = 3,
    deck: Annotated[str | None, typer.Option(help="read with the table's own enrolled deck "
                                                  "(hongsi deck learn / vision enroll)")] = None,
) -> None:
    """One whole shuffle and deal on a rig (real or virtual)."""
    from controller.deal_command import CommandError, run_deal

    try:
        code = run_deal(serial=serial, camera=camera, game=game, first_seat=first_seat, as_json=as_json,
                        resume=resume, void=void, fair=fair, journal=journal, config=config,
                        unattended=unattended, frames=frames, deck=deck)
    except CommandError as exc:
        raise fail(str(exc), exc.code) from None
    raise typer.Exit(code)


@app.command("verify-deal")
def verify_deal(file: Annotated[Path, typer.Argument(help="a record with deal.proof (an export's record.json), "
                                                          "a proof, or an export folder")]) -> None:
    """Check a fair deal: its seed against the commitment made before it and, in an export, every hand
    against the seed, the seats and the camera's reads (exit 1 naming the first card that disagrees)."""
    from controller.log_command import LogCommandError
    from controller.log_command import verify_deal as check

    try:
        code = check(file)
    except LogCommandError as exc:
        raise fail(str(exc), exc.code) from None
    raise typer.Exit(code)


@log_app.command("verify")
def log_verify(journal: Annotated[Path | None, typer.Option(help="the journal (default: DATA_DIR/journal.db)")
                                  ] = None,
               config: Annotated[Path | None, typer.Option(help="config file")] = None,
               receipt: Annotated[list[str] | None, typer.Option(
                   help="a receipt (the whole hash or its 16-digit short form): the chain must still hold it")
                   ] = None) -> None:
    """Check the journal's hash chain, every evidence image and every signed receipt."""
    from controller.log_command import LogCommandError
    from controller.log_command import log_verify as check

    try:
        code = check(journal, config, receipt)
    except LogCommandError as exc:
        raise fail(str(exc), exc.code) from None
    raise typer.Exit(code)


@log_app.command("key")
def log_key(journal: Annotated[Path | None, typer.Option(help="the journal (default: DATA_DIR/journal.db)")
                               ] = None,
            config: Annotated[Path | None, typer.Option(help="config file")] = None) -> None:
    """Print the rig's public key, which signs every receipt (hex, Ed25519)."""
    from controller.log_command import LogCommandError
    from controller.log_command import log_key as show

    try:
        code = show(journal, config)
    except LogCommandError as exc:
        raise fail(str(exc), exc.code) from None
    raise typer.Exit(code)


@log_app.command("export")
def log_export(round_: Annotated[int, typer.Argument(metavar="ROUND", help="the round number")],
               out: Annotated[Path | None, typer.Option(help="folder to write (default: round-N)")] = None,
               journal: Annotated[Path | None, typer.Option(help="the journal")] = None,
               config: Annotated[Path | None, typer.Option(help="config file")] = None) -> None:
    """Write a round's game record (with its fair-deal proof), its journal rows, receipts and evidence images."""
    from controller.log_command import LogCommandError
    from controller.log_command import log_export as export

    try:
        code = export(round_, out, journal, config)
    except LogCommandError as exc:
        raise fail(str(exc), exc.code) from None
    raise typer.Exit(code)


@log_app.command("report")
def log_report(round_: Annotated[int, typer.Argument(metavar="ROUND", help="the round number")],
               out: Annotated[Path | None, typer.Option(help="the HTML file (default: round-N-report.html)")] = None,
               pdf: Annotated[bool, typer.Option("--pdf", help="also print it to a PDF beside it (Chromium)")] = False,
               journal: Annotated[Path | None, typer.Option(help="the journal")] = None,
               config: Annotated[Path | None, typer.Option(help="config file")] = None) -> None:
    """Write a round's dispute report: one HTML page (crops inside) with every hand as dealt, every action
    and the referee's verdict, the result, the receipts and the fair-deal proof. Not while the hand is live."""
    from controller.log_command import LogCommandError
    from controller.log_command import log_report as report

    try:
        code = report(round_, out, journal, config, pdf)
    except LogCommandError as exc:
        raise fail(str(exc), exc.code) from None
    raise typer.Exit(code)


# ---------------------------------------------------------------- the service
@app.command()
def serve(
    sim: Annotated[bool, typer.Option("--sim", help="run on a virtual rig in the same process")] = False,
    host: Annotated[str | None, typer.Option(
        help="the address to listen on: 0.0.0.0 for the phones at the table (default: the config's host, "
             "127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="the port (default: the config's, 8000)")
                    ] = None,
    no_rig: Annotated[bool, typer.Option("--no-rig", help="deal in software, without a rig")] = False,
    bot_delay: Annotated[float, typer.Option(min=0.0, help="seconds a bot thinks before acting")] = 0.8,
    bot: Annotated[str, typer.Option(help="the empty seats' bot: careful (searches, declares when it clearly "
                                          "pays) | bold (declares on hopes) | greedy (quick)")] = "careful",
    bot_ms: Annotated[float, typer.Option(help="the search bots' time per move, ms (a Pi 4: about 1000)")] = 200.0,
    club: Annotated[str | None, typer.Option(help="join a card room: mqtts://<table>:<password>@host:port/"
                                                  "<room>/<table>?ca=<ca file> (else \\[club] broker)")] = None,
    table_camera: Annotated[bool, typer.Option("--table-camera", help="referee the plays from the table camera "
                                               "(\\[table_camera] in the config; with --sim the virtual table)")
                            ] = False,
) -> None:
    """The table service: web display, API, voice."""
    from controller.config import ConfigError
    from controller.service.server import serve as run_service

    try:
        from controller.service.bots import configure

        configure(bot, bot_ms)  # a wrong style or time is refused before the rig starts
        if not no_rig:
            _check_config_deck()
        if club:  # a wrong card-room address is refused before the rig starts
            from controller.club.publisher import ClubLink

            ClubLink.parse(club)
        run_service(sim=sim, host=host, port=port, no_rig=no_rig, bot_delay=bot_delay, club=club,
                    table_camera=table_camera)
    except (ConfigError, ValueError) as exc:
        raise fail(str(exc)) from None


def _check_config_deck() -> None:
    """The config's ``deck`` must be enrolled: one line before the rig moves (the virtual rig would
    otherwise fall back to dealing in software, and a real one blame the cables)."""
    from controller.config import load_config
    from vision.enroll import DeckRefs, EnrolError

    name = load_config().deck
    if name:
        try:
            DeckRefs.load(_data_dir(), name)
        except EnrolError as exc:
            raise fail(f"deck = {name!r} in the config: {exc}") from None


@app.command()
def token(seat: Annotated[int | None, typer.Option(help="make a token for this seat")] = None) -> None:
    """Print the operator token, or make a seat token (with a QR code)."""
    from controller.config import ConfigError
    from controller.service.server import token as make_token

    try:
        sys.stdout.write(make_token(seat))
    except (ConfigError, ValueError) as exc:
        raise fail(str(exc)) from None


# ---------------------------------------------------------------- config
@config_app.command("show")
def config_show(config: Annotated[Path | None, typer.Option(help="config file")] = None) -> None:
    """Print the configuration in force (file plus HONGSI_* overrides) as TOML."""
    from controller.config import ConfigError, find_config, load_config, to_toml

    try:
        cfg = load_config(config)
        source = find_config(config)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    sys.stdout.write(f"# from {source or 'built-in defaults (the virtual rig)'}\n" + to_toml(cfg, hide_secrets=True))


# ---------------------------------------------------------------- on a Raspberry Pi: firmware, calibration, self-test
@firmware_app.command("flash")
def firmware_flash(
    port: Annotated[str | None, typer.Option(help="the Pico's serial port (default: the config's serial_port)")
                    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the mpremote commands, change nothing")] = False,
    mpremote: Annotated[str | None, typer.Option(help="the mpremote executable (default: on PATH)")] = None,
    config: Annotated[Path | None, typer.Option(help="config file")] = None,
) -> None:
    """Copy hardware/firmware/ to the Pico with mpremote, reset it, check the version it reports."""
    from controller.config import ConfigError
    from controller.firmware_tool import FirmwareError, flash_command

    try:
        code = flash_command(port=port, config=config, dry_run=dry_run, mpremote=mpremote)
    except (ConfigError, FirmwareError) as exc:
        raise fail(str(exc), 1) from None
    raise typer.Exit(code)


@firmware_app.command("check")
def firmware_check(
    port: Annotated[str | None, typer.Option(help="the Pico's serial port (default: the config's serial_port)")
                    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    config: Annotated[Path | None, typer.Option(help="config file")] = None,
) -> None:
    """Compare the running firmware's version and protocol hash with the host's (exit 1 if they differ)."""
    from controller.config import ConfigError
    from controller.firmware_tool import FirmwareError, check_command

    try:
        code = check_command(port=port, config=config, as_json=as_json)
    except (ConfigError, FirmwareError) as exc:
        raise fail(str(exc), 1) from None
    raise typer.Exit(code)


@app.command()
def calibrate(
    serial: Annotated[str | None, typer.Option(help="the Pico's serial port (default: the config's)")] = None,
    camera: Annotated[str | None, typer.Option(help="the camera source (default: the config's camera_url)")
                      ] = None,
    config: Annotated[Path | None, typer.Option(help="the config file to update (default: the one in force)")
                      ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the steps, move nothing, save nothing")
                       ] = False,
) -> None:
    """Interactive wizard: seat angles, test ejects, card-exit pulses, camera exposure; saves the config."""
    from controller.calibrate import CalibrationError, calibrate_command
    from controller.config import ConfigError

    try:
        code = calibrate_command(serial=serial, camera=camera, config=config, dry_run=dry_run)
    except (ConfigError, CalibrationError) as exc:
        raise fail(str(exc), 1) from None
    raise typer.Exit(code)


@app.command()
def selftest(
    serial: Annotated[str | None, typer.Option(help="the Pico's serial port (default: the config's)")] = None,
    camera: Annotated[str | None, typer.Option(help="the camera source (default: the config's camera_url)")
                      ] = None,
    config: Annotated[Path | None, typer.Option(help="config file")] = None,
    no_eject: Annotated[bool, typer.Option("--no-eject", help="do not move a card")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the steps, touch nothing")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the rows as JSON")] = False,
) -> None:
    """Check every part of the rig; a pass/fail table with the remedy for each failure (exit 1 on one)."""
    from controller.config import ConfigError
    from controller.selftest import selftest_command

    try:
        code = selftest_command(serial=serial, camera=camera, config=config, eject=not no_eject,
                                dry_run=dry_run, as_json=as_json)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(code)


def main() -> None:
    from controller.cli_help import tidy

    if sys.stdout is None:  # started with standard output closed: its answers would go nowhere
        sys.stderr.write("hongsi: standard output is closed\n")
        sys.exit(2)
    try:
        tidy(typer.main.get_command(app))()  # what app() runs, its help made to read cleanly
    except OSError as exc:  # standard output on a full disk, a folder that cannot be written: one line
        where = f" ({exc.filename})" if exc.filename else ""
        sys.stderr.write(f"hongsi: {exc.strerror or exc}{where}\n")
        sys.stderr.flush()
        os._exit(1)  # not sys.exit: flushing the broken output again at exit would print a traceback


if __name__ == "__main__":
    main()
