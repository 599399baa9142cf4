"""The dispute report: one self-contained HTML page a person reads at the table (``hongsi log report N``).

Each seat's hand as dealt, every card with its camera crop (embedded as a data URI), every action in
order with the referee's verdict and reason, the result, the receipts (short form and QR) and the
fair-deal proof — in English and Chinese, seats from 1, cards as ♠A. A hand still being played is
refused: its hidden cards stay hidden (:class:`ReportError`).

>>> html = report_html(journal, 3)        # doctest: +SKIP
"""

from __future__ import annotations

import base64
import datetime
import html
from typing import Any

from controller.announce import result_words
from controller.journal import Journal, export_record
from controller.text import card_sign, cards_sign, seat_en, seat_zh

STYLE = """
body { font: 15px/1.45 "Noto Sans CJK SC", "Noto Sans", sans-serif; margin: 1.5em auto; max-width: 60em;
       padding: 0 1em; color: #1b1b1b; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { border-bottom: 2px solid #2a6b3c; padding-bottom: .15em; }
h3 { margin: .6em 0 .3em; } .en { color: #555; font-size: .92em; } .meta { color: #555; }
.cards { display: flex; flex-wrap: wrap; gap: .4em; }
.card { margin: 0; text-align: center; border: 1px solid #ccc; border-radius: 6px; padding: .2em; background: #fff; }
.card img { height: 96px; display: block; image-rendering: auto; }
.card figcaption { font-weight: bold; font-size: 1.1em; } .red { color: #c0141b; }
.nocrop { display: block; height: 96px; width: 60px; color: #999; font-size: .7em; }
table { border-collapse: collapse; width: 100%; } td, th { border: 1px solid #ddd; padding: .25em .5em;
  vertical-align: top; text-align: left; }
.ok { color: #1d7a34; } .bad, .error { color: #b00020; } .warning { color: #9a6200; }
.result { font-size: 1.2em; font-weight: bold; }
.receipt { display: flex; gap: 1em; align-items: center; margin: .5em 0; }
.receipt svg { width: 120px; height: 120px; } .short { font-size: 1.3em; font-family: monospace; }
code { word-break: break-all; font-size: .85em; }
@media print { .card img { height: 72px; } h2 { break-after: avoid; } tr { break-inside: avoid; } }
"""

# what each action is called (Chinese, English); the table pages use the same words (common.js ACTION)
ACTIONS = {
    "play": ("出牌", "plays"), "pass": ("不要", "passes"), "tiao": ("挑", "declares 挑 (alone)"),
    "baomen": ("爆闷", "declares 爆闷"), "call": ("叫牌", "calls"), "pa": ("请趴", "asks to lie down"),
    "pa_accept": ("同意趴", "lies down"), "pa_refuse": ("拒绝趴", "refuses"), "announce": ("报牌", "announces"),
    "bury": ("埋底", "buries"), "declare": ("亮主", "declares trump"), "take_bottom": ("拿底", "takes the bottom"),
    "xuan": ("宣红A", "declares the red aces"), "xuan_consent": ("同意宣", "agrees to the declaration"),
    "xuan_refuse": ("放弃", "refuses the declaration"), "fan_xuan": ("反宣", "counter-declares"),
    "expose": ("亮牌", "exposes"),
}
_NAMED = {"seat", "action", "cards", "card", "dig", "value", "dealt", "target", "count"}


class ReportError(Exception):
    """One clear line for the user (exit 2)."""


# ---------------------------------------------------------------------------------------- gathering
def is_live(rows: list[Any], status: str) -> bool:
    """The hand is still dealing or being played at the table: its hidden cards stay hidden. A hand the
    table service plays is live until its end (``round_end``); a CLI deal revealed its seed at once."""
    return live_words(rows, status) is not None


def live_words(rows: list[Any], status: str) -> str | None:
    """What a live hand is doing ("being played", "dealing", "interrupted"); None once it is over."""
    if status in ("done", "void", "stopped"):
        return None
    if any(r.kind == "service_dealt" for r in rows):
        return "being played"
    return status if status in ("dealing", "interrupted") else None


def gather(journal: Journal, rid: int) -> dict[str, Any]:
    """Everything the page shows, from the journal alone; :class:`ReportError` for a live hand."""
    from controller.fair_deal import check_deal
    from controller.receipts import of_rows
    from controller.service.dispute import replay

    rows = journal.rows(rid)
    if not rows:
        raise ReportError(f"no round {rid} in the journal (rounds: {journal.rounds() or 'none'})")
    status = journal.status(rid)
    doing = live_words(rows, status)
    if doing is not None:
        raise ReportError(f"round {rid} is still {doing}: its cards stay hidden until the hand is over")
    record = export_record(rows)
    if record is None:
        raise ReportError(f"round {rid} has no game record (it ended {status} before the deal finished); "
                          f"`hongsi log export {rid}` has its rows")
    view = replay(record, journal, rid)
    proof = (record.get("deal") or {}).get("proof") if isinstance(record.get("deal"), dict) else None
    try:
        check = check_deal(record, proof, rows) if isinstance(proof, dict) else None
    except (KeyError, TypeError, ValueError) as exc:  # a proof missing a field fails, said as such
        from controller.fair_deal import ProofCheck

        check = ProofCheck(False, [f"the proof is incomplete ({exc!r})"])
    end = next((r.data for r in reversed(rows) if r.kind == "round_end"), None)
    verdict = (end or {}).get("verdict") or (view["steps"][-1]["verdict"] if view.get("steps") else None)
    return {"round": rid, "status": status, "record": record, "view": view, "proof": proof, "check": check,
            "verdict": verdict, "receipts": of_rows(rows), "started": rows[0].t,
            "crops": _crops(journal, view.get("cards") or [])}


def _crops(journal: Journal, cards: list[dict[str, Any]]) -> dict[tuple[Any, str], str]:
    """(seat, label) -> a data URI of that card's readable crop (the first read of it)."""
    out: dict[tuple[Any, str], str] = {}
    for c in cards:
        key = (c.get("seat"), c.get("label"))
        if not c.get("image") or not c.get("label") or key in out:
            continue
        path = journal.image_path(c["image"])
        jpg = readable_png(path.read_bytes(), 192, ".jpg") if path.exists() else None
        if jpg is not None:
            out[key] = "data:image/jpeg;base64," + base64.b64encode(jpg).decode()
    return out


# ---------------------------------------------------------------------------------------- one readable crop
CORNER_ASPECT = 0.34 / 0.52     # a corner crop's width / height (vision.localize CORNER_W / CORNER_H)


def split_strip(image: Any) -> list[Any]:
    """The crops of an evidence strip (the reader's corner crops side by side at one height, as
    ``controller.deal.window.evidence_jpeg`` makes it); a picture that is no such strip, as it is."""
    h, w = image.shape[:2]
    n = max(1, round(w / (CORNER_ASPECT * h)))
    if n == 1 or abs(w / (n * CORNER_ASPECT * h) - 1) > 0.15:
        return [image]
    return [image[:, k * w // n:(k + 1) * w // n] for k in range(n)]


def readable_png(jpeg: bytes, height: int = 240, ext: str = ".png") -> bytes | None:
    """One picture a person can read: the sharpest crop of the strip, upscaled; PNG bytes (``ext``
    ".jpg": JPEG, smaller, for the report page); None if the bytes are no image."""
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        return None
    best = max(split_strip(image), key=lambda c: cv2.Laplacian(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY),
                                                                 cv2.CV_64F).var())
    scale = height / best.shape[0]
    big = cv2.resize(best, (max(1, round(best.shape[1] * scale)), height), interpolation=cv2.INTER_CUBIC)
    ok, buf = cv2.imencode(ext, big, [cv2.IMWRITE_JPEG_QUALITY, 88] if ext == ".jpg" else [])
    return buf.tobytes() if ok else None


# ---------------------------------------------------------------------------------------- the page
def report_html(journal: Journal, rid: int) -> str:
    return render(gather(journal, rid))


def render(d: dict[str, Any]) -> str:
    rec = d["record"]
    when = datetime.datetime.fromtimestamp(d["started"], datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = [f"<h1>第 {d['round']} 局 争议报告 <span class='en'>Round {d['round']}: dispute report</span></h1>",
            f"<p class='meta'>{_e(_game_name(rec))} · {when} · {_e(STATUS.get(d['status'], d['status']))}</p>",
            _hands(rec, d["crops"]), _actions(d["view"]), _result(d["verdict"]), _receipts(d["receipts"]),
            _proof(d["proof"], d["check"])]
    return ("<!doctype html><html lang='zh-CN'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>hongsi round {d['round']} — dispute report</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")


RECEIPT_AT = {"deal_end": ("发牌结束", "the deal ended"), "service_dealt": ("开始出牌", "the hand began"),
              "reveal": ("公开种子", "the fair deal's seed revealed"), "round_end": ("本局结束", "the hand ended")}
STATUS = {"done": "打完 hand played out", "dealt": "发完 dealt (no play refereed)", "void": "作废 voided",
          "stopped": "停止 stopped"}


def _game_name(rec: dict[str, Any]) -> str:
    try:
        from engine.registry import get_game

        info = get_game(rec["game"]).info
        name = f"{info.name_zh} {info.name_en}"
    except Exception:  # a game this build does not know: its code says it
        name = str(rec.get("game"))
    return name + (f" ({rec['preset']})" if rec.get("preset") else "")


def _e(x: Any) -> str:
    return html.escape(str(x))


def _card(label: str, crop: str | None) -> str:
    red = " red" if label[:1] in "HD" or label == "RJ" else ""
    img = f"<img src='{crop}' alt='{_e(label)}'>" if crop else "<span class='nocrop'>no crop 无图</span>"
    return f"<figure class='card'>{img}<figcaption class='{red.strip()}'>{_e(card_sign(label))}</figcaption></figure>"


def _hands(rec: dict[str, Any], crops: dict[tuple[Any, str], str]) -> str:
    def crop(seat: Any, label: str) -> str | None:
        return crops.get((seat, label)) or next((v for (s, c), v in crops.items() if c == label), None)

    out = ["<h2>发牌 <span class='en'>The hands as dealt</span></h2>"]
    for seat, hand in enumerate(rec.get("hands") or []):
        cards = "".join(_card(str(c), crop(seat, str(c))) for c in hand)
        out.append(f"<section class='seat'><h3>{seat_zh(seat)}位 <span class='en'>{seat_en(seat)}</span> "
                   f"<small>({len(hand)})</small></h3><div class='cards'>{cards}</div></section>")
    if rec.get("bottom"):
        cards = "".join(_card(str(c), crop("bottom", str(c))) for c in rec["bottom"])
        out.append(f"<section class='seat'><h3>底牌 <span class='en'>The bottom</span></h3>"
                   f"<div class='cards'>{cards}</div></section>")
    return "\n".join(out)


def action_words(ev: dict[str, Any]) -> tuple[str, str]:
    """An event in words (Chinese, English): ``二号位 出牌 ♠A ♠K`` / ``Seat 2 plays ♠A ♠K``."""
    a = str(ev.get("action"))
    if a == "bid":
        zh, en = (f"叫{ev['value']}分", f"bids {ev['value']}") if ev.get("value") else ("不叫", "does not bid")
    elif a == "black_dig":
        zh, en = ("黑挖", "digs blind") if ev.get("dig") else ("不黑挖", "declines the blind dig")
    else:
        zh, en = ACTIONS.get(a, (a, a))
    what = cards_sign(ev.get("cards")) if ev.get("cards") else card_sign(ev["card"]) if ev.get("card") else ""
    if isinstance(ev.get("target"), int):
        what, what_zh = seat_en(ev["target"]), seat_zh(ev["target"]) + "位"
    else:
        what_zh = what
    if ev.get("count") is not None:
        what, what_zh = f"{ev['count']} card(s) left", f"剩{ev['count']}张"
    rest = " ".join(f"{k}={v}" for k, v in ev.items() if k not in _NAMED)
    seat = ev.get("seat")
    who_en, who_zh = (seat_en(seat), seat_zh(seat) + "位") if isinstance(seat, int) else ("", "")
    return (" ".join(x for x in (who_zh, zh, what_zh, rest) if x), " ".join(x for x in (who_en, en, what, rest) if x))


def _actions(view: dict[str, Any]) -> str:
    rows = []
    for st in view.get("steps") or []:
        zh, en = action_words(st["event"])
        if st["applied"]:
            mark = "<td class='ok'>✓ 接受 <span class='en'>accepted</span></td>"
        else:
            mark = "<td class='bad'>✗ 拒绝 <span class='en'>refused</span></td>"
        why = "".join(f"<div class='{_e(v.get('severity'))}'>{_e(v.get('message_zh'))} "
                      f"<span class='en'>{_e(v.get('message'))}</span></div>" for v in st["violations"])
        rows.append(f"<tr><td>{st['index'] + 1}</td><td>{_e(zh)}<div class='en'>{_e(en)}</div></td>{mark}"
                    f"<td>{why or '—'}</td></tr>")
    if not rows:
        return ("<h2>出牌 <span class='en'>The actions</span></h2><p>没有出牌记录 <span class='en'>No actions "
                "were recorded (a deal without play).</span></p>")
    return ("<h2>出牌与裁判 <span class='en'>Every action and the referee's verdict</span></h2>"
            "<table class='actions'><thead><tr><th>#</th><th>动作 <span class='en'>action</span></th>"
            "<th>裁判 <span class='en'>verdict</span></th><th>理由 <span class='en'>reason</span></th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _result(verdict: dict[str, Any] | None) -> str:
    head = "<h2>结果 <span class='en'>The result</span></h2>"
    if not verdict:
        return head + "<p>没有结果 <span class='en'>No result: the hand was not played.</span></p>"
    zh, en = result_words(verdict)
    scores = verdict.get("scores")
    table = ""
    if isinstance(scores, list):
        table = "<table class='scores'><tr>" + "".join(
            f"<th>{seat_zh(s)}位 <span class='en'>{seat_en(s)}</span></th>" for s in range(len(scores))) + \
            "</tr><tr>" + "".join(f"<td>{_e(v)}</td>" for v in scores) + "</tr></table>"
    return head + f"<p class='result'>{_e(zh)}<br><span class='en'>{_e(en)}</span></p>{table}"


def _receipts(receipts: list[dict[str, Any]]) -> str:
    out = ["<h2>收据 <span class='en'>Receipts (the journal's signed head)</span></h2>"]
    if not receipts:
        out.append("<p>没有收据 <span class='en'>No receipt was issued for this round.</span></p>")
    for r in receipts:
        at_zh, at_en = RECEIPT_AT.get(str(r.get("at")), (str(r.get("at")), str(r.get("at"))))
        out.append(f"<div class='receipt'>{qr_svg(str(r['receipt']))}<div><b class='short'>{_e(r['short'])}</b>"
                   f"<div>{_e(at_zh)} <span class='en'>{_e(at_en)} · journal row {_e(r.get('seq'))}</span></div><code>{_e(r['receipt'])}</code>"
                   f"<div class='en'>check it: <code>hongsi log verify --receipt {_e(r['receipt'][:16])}</code>"
                   "</div></div></div>")
    return "\n".join(out)


def _proof(proof: dict[str, Any] | None, check: Any) -> str:
    head = "<h2>公平发牌证明 <span class='en'>The fair-deal proof</span></h2>"
    if not isinstance(proof, dict):
        return head + "<p>本局没有公平发牌证明 <span class='en'>This round was dealt without a fair-deal proof.</span></p>"
    verdict = ("<p class='ok'>✓ 验证通过 <span class='en'>check_deal passes: every card went where the seed "
               "said, and every hand is what the camera read.</span></p>") if check.ok else (
        "<p class='bad'>✗ 验证失败 <span class='en'>check_deal fails:</span></p><ul>"
        + "".join(f"<li>{_e(p)}</li>" for p in check.problems) + "</ul>")
    return head + (f"<p>承诺 <span class='en'>commitment</span> <code>{_e(proof.get('commitment'))}</code></p>"
                   f"<p>种子 <span class='en'>seed</span> <code>{_e(proof.get('seed'))}</code></p>{verdict}")


def qr_svg(text: str) -> str:
    import qrcode
    import qrcode.image.svg

    q = qrcode.QRCode(border=2, box_size=4)
    q.add_data(text)
    q.make(fit=True)
    return q.make_image(image_factory=qrcode.image.svg.SvgPathImage).to_string(encoding="unicode")


# ---------------------------------------------------------------------------------------- PDF
def print_pdf(page: Any, pdf: Any, timeout: float = 90.0) -> tuple[bool, str]:
    """Print the page to ``pdf`` with Debian's headless Chromium; (done, what to tell the user)."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if browser is None:
        return False, "no PDF: Chromium is not installed (apt-get install chromium); the HTML page prints as well"
    pdf = Path(pdf).resolve()
    with tempfile.TemporaryDirectory(prefix="hongsi-pdf-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}",
               "--no-pdf-header-footer", f"--print-to-pdf={pdf}", Path(page).resolve().as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"no PDF: Chromium did not print the page ({exc})"
    if not pdf.exists() or pdf.stat().st_size == 0:
        return False, "no PDF: Chromium printed nothing; the HTML page prints as well"
    return True, f"{pdf}: the same report as a PDF"
