"""What ``hongsi log verify|export|report|key`` and ``hongsi verify-deal`` do (the CLI stays a thin wrapper).

Each returns the exit status, prints its result on standard output, and raises :class:`LogCommandError`
(one clear line, exit 2) for bad input. A failed check is exit 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from controller.deal_command import CommandError, journal_path

# one error and one journal lookup for every command that opens the journal
LogCommandError = CommandError


def _open(path: Path) -> Any:
    """The journal, read-only (nothing on disk changes: an archived copy on read-only media verifies)."""
    from controller.journal import Journal, JournalError

    if not path.exists():
        raise LogCommandError(f"no journal at {path} (give --journal PATH)")
    try:
        return Journal(path, readonly=True)
    except JournalError as exc:
        raise LogCommandError(str(exc)) from None


# ---------------------------------------------------------------------------------------- log verify
def log_verify(journal: Path | None, config: Path | None, receipts: list[str] | None = None) -> int:
    """The chain, every image and every receipt row; with ``receipts``, also that the chain still holds
    each of those heads (a rollback or a rewrite since the receipt was given fails)."""
    from controller import keys
    from controller import receipts as rc

    try:
        wanted = [rc.normalise(r) for r in receipts or []]
    except ValueError as exc:
        raise LogCommandError(f"--receipt: {exc}") from None
    path = journal_path(journal, config)
    with _open(path) as jr:  # closed: a read-only open may have copied the journal to a temporary folder
        report = jr.verify()
        rows = jr.rows()
    problems = list(report.problems) + rc.check_rows(rows, keys.public_key_of(path.parent))
    held = []
    for hex_ in wanted:
        row = rc.find(rows, hex_)
        if row is None:
            problems.append(f"receipt {rc.short(hex_)}: no row of the journal has that hash: rows were removed "
                            "(a rollback) or the chain up to it was changed")
        else:
            held.append(f"receipt {rc.short(row.hash)} is row {row.seq} (round {row.round}, {row.kind})")
    if not problems:
        sys.stdout.write(f"ok: {report.rows} rows, {report.images} images; the chain and every image check out"
                         + "".join(f"; {h}" for h in held) + "\n")
        return 0
    for problem in problems:
        sys.stdout.write(f"FAIL: {problem}\n")
    more = len(problems) - 1
    first = problems[0] + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
    sys.stderr.write(f"hongsi: the journal {path} fails verification: {first}\n")
    return 1


def log_key(journal: Path | None, config: Path | None) -> int:
    """Print the rig's public key (made the first time, next to the journal)."""
    from controller.keys import RigKey, RigKeyError

    folder = journal_path(journal, config).parent
    try:
        key = RigKey.load_or_create(folder)
    except RigKeyError as exc:
        raise LogCommandError(str(exc)) from None
    sys.stdout.write(f"{key.public_hex}\n")
    return 0


# ---------------------------------------------------------------------------------------- log export
def log_export(round_: int, out: Path | None, journal: Path | None, config: Path | None) -> int:
    from controller.journal import JournalError

    target = out or Path(f"round-{round_}")
    try:
        with _open(journal_path(journal, config)) as jr:
            jr.export(round_, target)
    except JournalError as exc:
        raise LogCommandError(str(exc)) from None
    except OSError as exc:
        raise LogCommandError(f"cannot write the export to {target}: {exc.strerror or exc}") from None
    people = _export_for_people(journal_path(journal, config), round_, target)
    has_record = (target / "record.json").exists()
    n_receipts = len(json.loads((target / "receipts.json").read_text()))
    sys.stdout.write(f"{target}: journal.jsonl, {len(list((target / 'images').iterdir()))} images, "
                     f"{people}, {n_receipts} receipts"
                     + (", record.json\n" if has_record else " (the round has no record: it did not finish)\n"))
    return 0


def _export_for_people(path: Path, round_: int, target: Path) -> str:
    """Beside the engineers' files: one picture per card (``cards/``), the verdict and the dispute report;
    none of them while the hand is live (they would say which seat holds which card)."""
    from controller.report import ReportError, live_words, report_html

    with _open(path) as jr:
        rows = jr.rows(round_)
        doing = live_words(rows, jr.status(round_))
        if doing is not None:
            return f"no card pictures or report while the round is {doing}"
        end = next((r.data for r in reversed(rows) if r.kind == "round_end" and r.data.get("verdict")), None)
        if end is not None:
            (target / "verdict.json").write_text(json.dumps(end["verdict"], ensure_ascii=False, indent=2) + "\n",
                                                 encoding="utf-8")
        try:
            (target / "report.html").write_text(report_html(jr, round_), encoding="utf-8")
            made = "report.html"
        except ReportError:
            made = "no report (no record)"
    n = _export_cards(path, round_, target)
    return f"{n} card pictures (cards/seatN-CARD.png), " + ("verdict.json, " if end is not None else "") + made


def card_file_name(seat: int | str | None, label: str | None, index: Any) -> str:
    """``seat2-H4`` (seats from 1), ``bottom-H4``, ``extra-H4`` (not dealt), ``seat2-unread-007``."""
    where = f"seat{seat + 1}" if isinstance(seat, int) else "bottom" if seat == "bottom" else "extra"
    return f"{where}-{label}" if label else f"{where}-unread-{int(index or 0):03d}"


def _export_cards(path: Path, round_: int, target: Path) -> int:
    """One readable picture per card read, named by seat and card, in ``target/cards`` (``images/`` keeps
    the journal's evidence strips byte for byte: their hashes are in journal.jsonl)."""
    from controller.report import readable_png
    from controller.service.dispute import card_reads

    with _open(path) as jr:
        reads = card_reads(jr, round_)
        folder = target / "cards"
        folder.mkdir(exist_ok=True)
        n = 0
        for c in reads:
            src = jr.image_path(c["image"]) if c.get("image") else None
            png = readable_png(src.read_bytes()) if src is not None and src.exists() else None
            if png is None:
                continue
            name = card_file_name(c["seat"], c["label"], c["index"])
            dup = 1
            while (folder / f"{name}.png").exists():      # two decks: the second ♠A of a seat
                dup += 1
                name = f"{card_file_name(c['seat'], c['label'], c['index'])}-{dup}"
            (folder / f"{name}.png").write_bytes(png)
            n += 1
    return n


# ---------------------------------------------------------------------------------------- log report
def log_report(round_: int, out: Path | None, journal: Path | None, config: Path | None, pdf: bool = False) -> int:
    """Write the round's dispute report (one self-contained HTML page; ``pdf``: also a PDF beside it)."""
    from controller.report import ReportError, report_html

    target = out or Path(f"round-{round_}-report.html")
    try:
        with _open(journal_path(journal, config)) as jr:
            page = report_html(jr, round_)
        target.write_text(page, encoding="utf-8")
    except ReportError as exc:
        raise LogCommandError(str(exc)) from None
    except OSError as exc:
        raise LogCommandError(f"cannot write the report to {target}: {exc.strerror or exc}") from None
    sys.stdout.write(f"{target}: the dispute report of round {round_}\n")
    if pdf:
        from controller.report import print_pdf

        done, note = print_pdf(target, target.with_suffix(".pdf"))
        sys.stdout.write(f"{note}\n") if done else sys.stderr.write(f"hongsi: {note}\n")
    return 0


# ---------------------------------------------------------------------------------------- verify-deal
def verify_deal(file: Path) -> int:
    """Check a fair deal: the proof against its commitment, and, with the export's ``journal.jsonl``
    beside the record, the record's hands against the seed, the seats the rig journalled and the
    camera's reads (``controller.fair_deal.check_deal``)."""
    from controller.fair_deal import check_deal, exported_rows

    path = file / "record.json" if file.is_dir() else file
    obj = _read_json(path)
    if not isinstance(obj, dict):
        raise LogCommandError(f"{path}: not a record or a deal proof (a JSON object)")
    is_record = "hands" in obj
    proof = (obj.get("deal") or {}).get("proof") if is_record and isinstance(obj.get("deal"), dict) else obj
    if not isinstance(proof, dict) or "seed" not in proof:
        raise LogCommandError(f"{path}: no fair-deal proof in it (a round dealt without fair deal, or the seed "
                              "is not revealed yet)")
    try:
        rows = exported_rows(path.parent / "journal.jsonl") if is_record else None
    except ValueError as exc:
        raise LogCommandError(f"{path.parent / 'journal.jsonl'}: {exc}") from None
    check = check_deal(obj if is_record else None, proof, rows)
    if check.ok:
        what = "the seed it committed to" + (", the seats the rig journalled and the camera's reads"
                                              if rows is not None else "")
        sys.stdout.write(f"ok: every one of the {len(proof['seats'])} cards agrees with {what} "
                         f"(commitment {str(proof['commitment'])[:16]}…)\n")
        return 0
    for problem in check.problems:
        sys.stdout.write(f"REJECTED: {problem}\n")
    sys.stderr.write(f"hongsi: the deal does not hold: {check.problems[0]}\n")
    return 1


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LogCommandError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LogCommandError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise LogCommandError(f"{path}: not a record: JSON nested too deeply") from None
