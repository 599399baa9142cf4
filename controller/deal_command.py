"""What ``hongsi deal``, ``hongsi log`` and ``hongsi verify-deal`` do (the CLI stays a thin wrapper).

``hongsi deal`` builds the real parts — the serial rig, the camera, the card reader, the journal, the
voice — hands them to :class:`controller.deal.Dealer`, and shows a progress bar per card.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class CommandError(Exception):
    """One clear line for the user; ``code`` is the exit status."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def journal_path(journal: Path | None, config: Path | None = None) -> Path:
    if journal is not None:
        return Path(journal).expanduser()
    from controller.config import ConfigError, load_config

    try:
        cfg = load_config(config)
    except ConfigError as exc:
        raise CommandError(str(exc)) from None
    return Path(cfg.data_dir).expanduser() / "journal.db"


def open_journal(path: Path, must_exist: bool = False, readonly: bool = False, then: str = "hongsi deal") -> Any:
    """Open the journal, or one clear line. ``readonly`` (log verify / export) changes nothing on disk,
    so a journal on a read-only medium or a write-protected copy can still be checked."""
    from controller.journal import Journal, JournalError, JournalWriteError

    if must_exist and not path.exists():
        raise CommandError(f"no journal at {path} (give --journal PATH)")
    try:
        return Journal(path, readonly=readonly)
    except JournalWriteError as exc:
        if exc.full:
            raise CommandError(write_failure(exc, then)) from None
        raise CommandError(f"{exc}: hongsi deal writes every step there before the rig moves; give a writable "
                           "--journal PATH (日志无法写入)") from None
    except JournalError as exc:
        raise CommandError(str(exc)) from None


def write_failure(exc: Any, then: str) -> str:
    """The one line for a journal that stopped taking writes (a full disk, a medium gone read-only)."""
    if exc.full:
        return f"the journal's disk is full ({exc.path}): free space, then run {then} (日志磁盘已满：清理空间后继续)"
    return f"cannot write the journal {exc.path}: {exc.reason}; fix it, then run {then} (日志无法写入)"


@contextmanager
def _journal_writes(jr: Any, then: str | None = None) -> Iterator[None]:
    """Turn a journal that stops taking writes into one clear line and exit status 3. The row that
    failed was not written, so the motion it announced never started: ``--resume`` finishes the hand.
    ``then`` None: resume if the journal holds an open round by now, else deal again."""
    from controller.journal import JournalWriteError

    try:
        yield
    except JournalWriteError as exc:
        step = then or ("hongsi deal --resume" if jr.last_open_round() is not None else "hongsi deal")
        raise CommandError(write_failure(exc, step), code=3) from None


def _refuse_if_dealing(jr: Any, round_: int | None) -> None:
    """Another live process owns the round (it is dealing it now): never drive it a second time."""
    if round_ is None or jr.status(round_) != "dealing":
        return
    pid, host = jr.owner(round_)
    raise CommandError(f"hand {round_} is being dealt by pid {pid} on {host}; wait for it or stop it "
                       f"(第{round_}局正在发牌)")


# ---------------------------------------------------------------------------------------- hongsi deal
def run_deal(*, serial: str, camera: str, game: str, first_seat: int | None, as_json: bool, resume: bool,
             void: bool, fair: bool | None, journal: Path | None, config: Path | None, unattended: bool,
             frames: int, deck: str | None = None) -> int:
    """The whole ``hongsi deal``; return the exit status (0 a good deal, 3 a stopped or voided one)."""
    cfg = _checked_config(config, game, first_seat)
    refs = _deck_refs(cfg, deck)  # a deck that is not enrolled is refused before the rig moves
    jr = open_journal(journal_path(journal, config),
                      then="hongsi deal --void" if void else "hongsi deal --resume" if resume else "hongsi deal")
    out = Console(stderr=True)
    open_round = jr.last_open_round()
    _refuse_if_dealing(jr, open_round)
    if void:
        return _void(jr, open_round, out)
    if resume:
        open_round = _resumable(jr, open_round)
        resume = open_round is not None
    elif open_round is not None and jr.status(open_round) == "interrupted":
        raise CommandError(f"hand {open_round} was interrupted: run 'hongsi deal --resume' to finish it "
                           "or 'hongsi deal --void' to end it (上一局发牌中断：请继续或作废)")
    deal = _Deal(serial, camera, cfg, jr, out, unattended=unattended, frames=frames, deck=refs)
    with _journal_writes(jr):
        if resume:
            result = deal.go(lambda d, on_event: d.resume(open_round, on_event=on_event))
        else:
            use_fair = cfg.fair_deal if fair is None else fair
            result = deal.go(lambda d, on_event: d.run(game, first_seat=first_seat, fair=use_fair, on_event=on_event,
                                                       previous_winner=_previous_winner(jr, game)))
    if result.status != "done":
        sys.stderr.write(f"hongsi: {result.message}\nhongsi: {result.message_zh}\n")
        return 3
    _report(deal.dealer, result, out, as_json)
    return 0


def _checked_config(config: Path | None, game: str, first_seat: int | None) -> Any:
    """The configuration, once the game and the first seat are known good."""
    from controller.config import ConfigError, load_config
    from controller.plan import PlanError, game_counts
    from engine.cards import DECKS

    try:
        cfg = load_config(config)
    except ConfigError as exc:
        raise CommandError(str(exc)) from None
    if game not in DECKS:
        raise CommandError(f"unknown game {game!r}; known: {', '.join(DECKS)}")
    if first_seat is not None:
        try:
            seats = game_counts(game)[0].seats
        except PlanError as exc:
            raise CommandError(str(exc)) from None
        if not 0 <= first_seat < seats:
            raise CommandError(f"--first-seat {first_seat}: {game} has seats 0..{seats - 1}")
    return cfg


def _void(jr: Any, open_round: int | None, out: Console) -> int:
    """``hongsi deal --void``: end the interrupted hand; no rig needed."""
    from controller.deal import void_round

    if open_round is None:
        raise CommandError(f"no interrupted hand to void in {jr.path}")
    with _journal_writes(jr, "hongsi deal --void"):
        result = void_round(jr, open_round, "voided with hongsi deal --void")
    out.print(f"{result.message}\n{result.message_zh}")
    return 0


def _resumable(jr: Any, open_round: int | None) -> int | None:
    """The round ``--resume`` continues; None when it stopped before its plan was written (nothing
    moved yet, so it is voided and the hand dealt afresh)."""
    if open_round is None:
        raise CommandError(f"no interrupted hand to resume in {jr.path}")
    if any(r.kind == "deal_plan" for r in jr.rows(open_round)):
        return open_round
    with _journal_writes(jr, "hongsi deal --resume"):
        jr.append(open_round, "round_end", {"status": "void", "reason": "interrupted before the deal began"})
    return None


class _Deal:
    """The real parts of one ``hongsi deal`` (rig, camera, reader, voice, operator) and its progress bar."""

    def __init__(self, serial: str, camera: str, cfg: Any, jr: Any, out: Console, *, unattended: bool,
                 frames: int, deck: Any = None):
        from controller.announce import Voice
        from controller.camera import CameraError, open_camera
        from controller.deal import AutoOperator, ConsoleOperator, Dealer

        self.rig = _open_rig(serial, cfg)
        try:
            self.camera = open_camera(camera, exposure_us=cfg.camera_exposure_us)
        except CameraError as exc:
            self.rig.close()
            raise CommandError(str(exc)) from None
        reader = _open_reader(deck)
        self.out = out
        self.voice = Voice(enabled=cfg.voice, fallback=lambda text: out.print(text))
        operator = AutoOperator(delay=0.2, tell=lambda problem: _tell(out, problem)) \
            if unattended or not sys.stdin.isatty() else ConsoleOperator()
        self.dealer = Dealer(self.rig, self.camera, reader, jr, config=cfg, voice=self.voice,
                             panel=_open_panel(cfg), operator=operator, frames_per_read=frames)

    def go(self, deal: Any) -> Any:
        """``deal(dealer, on_event)`` under a progress bar; every part closed after."""
        try:
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          console=self.out, transient=False) as progress:
                task = progress.add_task("shuffling 洗牌", total=None)
                return deal(self.dealer, lambda ev: _show(progress, task, ev))
        finally:
            self.dealer.close()
            self.camera.close()
            self.rig.close()
            self.voice.close()


def _tell(out: Console, problem: dict[str, Any]) -> None:
    """Unattended, what a person must do (hand a card over) is still printed for whoever reads this
    terminal (the operator's words: they may name a card, so never the public display's)."""
    out.print(f"{problem['message']}\n{problem['message_zh']}", style="bold yellow", markup=False, soft_wrap=True)


def _show(progress: Progress, task: Any, ev: dict[str, Any]) -> None:
    """One deal event on the progress bar (public facts only, as the dealer sends them)."""
    kind = ev["type"]
    if kind == "deal_started":
        progress.update(task, total=ev["total"])
        if ev.get("commitment"):
            progress.console.print(f"fair deal: commitment {ev['commitment']} (公平发牌承诺)")
    elif kind == "resumed" and "total" in ev:
        progress.update(task, total=ev["total"], completed=ev["dealt"])
    elif kind == "card_dealt":
        where = "bottom 底牌" if ev["seat"] is None else f"seat {ev['seat'] + 1} {ev['seat'] + 1}号"
        progress.update(task, completed=ev["index"] + 1, description=f"dealing 发牌 → {where}")
    elif kind in ("paused", "fault", "double_feed"):
        msg = ev.get("message") or f"double feed at card {ev['index'] + 1} (双张)"
        progress.console.print(f"[yellow]{msg}[/yellow]" + (f"\n{ev['message_zh']}" if ev.get("message_zh") else ""))


def _report(dealer: Any, result: Any, out: Console, as_json: bool) -> None:
    """A good deal: reveal the fair-deal seed (the hands are printed here), announce, print the record."""
    from controller.journal import JournalWriteError

    assert result.record is not None and result.first_player is not None
    try:
        proof = dealer.reveal(result.round)   # the hands are printed here, so the seed is no secret any more
    except JournalWriteError as exc:          # the hand is dealt and journalled: announce it all the same
        proof = None
        out.print(f"[yellow]check: the fair-deal proof was not journalled: {exc}[/yellow]")
    record = {k: v for k, v in result.record.items() if k != "events"}
    if proof is not None:
        record["deal"] = {**record["deal"], "proof": proof}
    receipt = dealer.journal.receipt(result.round)  # the signed head after the reveal: keep it to check the log
    if receipt is not None:
        record["receipt"] = receipt["receipt"]
    fp = result.first_player
    out.print(f"[bold]{fp.text_en}[/bold]  {fp.text_zh}")
    for flag in result.flags:
        out.print(f"[yellow]check: {flag}[/yellow]")
    if as_json:
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(f"first player: seat {fp.seat} ({fp.text_en} {fp.text_zh}); round {result.round}\n")


def _open_rig(serial: str, cfg: Any) -> Any:
    try:
        from firmware_bridge import Rig
    except ImportError as exc:
        raise CommandError(f"the rig driver is not installed: {exc}") from None
    try:
        rig = Rig(serial, angles=list(cfg.servo_angles), bottom_angle=cfg.bottom_angle)
        rig.connect()
    except Exception as exc:  # noqa: BLE001 - any failure to reach the rig is one clear line
        raise CommandError(f"cannot reach the rig on {serial}: {exc}") from None
    return rig


def _deck_refs(cfg: Any, deck: str | None) -> Any:
    """The enrolled references of the table's own deck (``--deck``), or None for the models alone."""
    if deck is None:
        return None
    from vision.enroll import DeckRefs, EnrolError

    try:
        return DeckRefs.load(Path(cfg.data_dir).expanduser(), deck)
    except EnrolError as exc:
        raise CommandError(str(exc)) from None


def _open_reader(deck: Any = None) -> Any:
    try:
        from vision.enroll import EnrolError
        from vision.reader import CardReader
    except ImportError as exc:
        raise CommandError(f"the card reader is not installed: {exc}") from None
    reader = CardReader(threads=1)
    try:
        reader.use_deck(deck)  # None: the models alone
    except EnrolError as exc:
        raise CommandError(f"--deck: {exc}") from None
    return reader


def _open_panel(cfg: Any) -> Any:
    """The seat LEDs on a Raspberry Pi; None elsewhere (no GPIO)."""
    if not Path("/proc/device-tree/model").exists():
        return None
    try:
        from firmware_bridge.panel import SeatLights

        return SeatLights()
    except Exception:  # noqa: BLE001 - no GPIO here: the voice and the display still announce
        return None


def _previous_winner(journal: Any, game: str) -> int | None:
    """The seat that deals first by the rules: the previous hand's winner (its verdict's
    ``next_first_seat``), if the journal has a finished hand of this game."""
    for round_ in reversed(journal.rounds()):
        for row in reversed(journal.rows(round_)):
            if row.kind in ("round_end", "deal_end") and row.data.get("status") == "done":
                rec = row.data.get("record") or {}
                verdict = row.data.get("verdict") or {}
                if rec.get("game") == game and isinstance(verdict.get("next_first_seat"), int):
                    return int(verdict["next_first_seat"])
    return None
