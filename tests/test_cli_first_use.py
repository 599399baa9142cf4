"""The command as a new user meets it: help that reads cleanly, ``referee --strict``, ``selfplay`` saying
where the records went (and one line for a bad folder), ``selftest --json`` printing JSON alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from controller.cli import app
from controller.cli_help import plain, tidy, walk
from engine.hongsi.examples import SUITED, announce, call, pass_, play, record

ROOT = Path(__file__).resolve().parents[1]
HONGSI = [sys.executable, "-m", "controller.cli"]
UNCLEAN = ("<bool>", "<list[", "``", "{")  # a type after a flag, a repeated option's type, raw markup, {ARG}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "HONGSI_DATA_DIR": str(tmp_path / "data"), "HONGSI_VOICE": "false",
           "PYTHONPATH": str(ROOT), "COLUMNS": "120", **extra}
    env.pop("HONGSI_CONFIG", None)
    return env


# ---------------------------------------------------------------- help
def _paths(command, prefix=()):
    for name, sub in getattr(command, "commands", {}).items():
        yield (*prefix, name)
        yield from _paths(sub, (*prefix, name))


def _clean(text: str) -> list[str]:
    """The lines of a help text that show typer's raw types or docstring markup."""
    usage_and_panels = [ln for ln in text.splitlines() if "print {" not in ln]  # simulate prints a JSON object
    return [ln for ln in usage_and_panels if any(u in ln for u in UNCLEAN)]


def test_every_command_s_help_reads_cleanly(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    root = tidy(typer.main.get_command(app))
    paths = [(), *_paths(root)]
    assert len(paths) > 15 and ("vision", "classify") in paths
    for path in paths:
        root.main([*path, "--help"], prog_name="hongsi", standalone_mode=False)
        text = capsys.readouterr().out
        assert "Usage: hongsi" in text, path
        assert _clean(text) == [], (path, _clean(text))
    # the tidy rewrites how help looks, never what it says
    serve_help = next(c for c in walk(root) if c.name == "serve").params
    assert any(p.help and "0.0.0.0" in p.help for p in serve_help)


def test_the_installed_command_s_help_reads_cleanly(tmp_path):
    for args in (["--help"], ["referee", "--help"], ["vision", "classify", "--help"], ["serve", "--help"]):
        proc = subprocess.run([*HONGSI, *args], capture_output=True, text=True, env=_env(tmp_path), timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert _clean(proc.stdout) == [], (args, proc.stdout)
    referee_help = subprocess.run([*HONGSI, "referee", "--help"], capture_output=True, text=True,
                                  env=_env(tmp_path), timeout=60).stdout
    assert "--strict" in referee_help and "exit 1" in referee_help and "RECORD" in referee_help


def test_plain_unquotes_code_and_joins_lines():
    assert plain('with ``"label": null``\nand more.\n\nNext.') == 'with "label": null and more.\n\nNext.'
    assert plain(None) is None


# ---------------------------------------------------------------- referee --strict
def _judge(tmp_path: Path, events: list, *flags: str) -> subprocess.CompletedProcess:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record(SUITED, events)))
    return subprocess.run([*HONGSI, "referee", *flags, str(path)], capture_output=True, text=True,
                          env=_env(tmp_path), timeout=60)


STRAIGHT_0 = [f"H{r}" for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


@pytest.mark.parametrize(("events", "plain_code", "strict_code"), [
    ([call(0, "S10"), play(0, *STRAIGHT_0), announce(0, 3)], 0, 0),     # by the rules
    ([call(0, "S10"), play(0, *STRAIGHT_0), pass_(1), pass_(2)], 0, 0),  # a warning only (count not said)
    ([call(0, "S10"), play(1, "S5")], 0, 1),                             # out of turn: an error
])
def test_referee_exits_0_once_judged_and_strict_exits_1_on_an_error(tmp_path, events, plain_code, strict_code):
    judged = _judge(tmp_path, events)
    strict = _judge(tmp_path, events, "--strict")
    assert judged.returncode == plain_code and strict.returncode == strict_code, strict.stderr
    assert json.loads(judged.stdout) == json.loads(strict.stdout)  # the verdict is printed either way
    errors = [v for v in json.loads(strict.stdout)["violations"] if v["severity"] == "error"]
    assert bool(errors) == (strict_code == 1)
    if strict_code:
        assert strict.stderr.strip().splitlines() == [f"hongsi: {tmp_path / 'r.json'}: 1 violation of severity "
                                                      "error (--strict)"]


# ---------------------------------------------------------------- selfplay
def test_selfplay_says_where_the_records_went(tmp_path):
    out = tmp_path / "hands"
    proc = subprocess.run([*HONGSI, "selfplay", "-n", "2", "--seed", "3", "--out", str(out)], capture_output=True,
                          text=True, env=_env(tmp_path), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # standard output stays as the spec has it: nothing
    assert proc.stderr.strip() == f"hongsi: 2 hongsi records in {out.resolve()}/ (0000.json … 0001.json)"
    assert sorted(p.name for p in out.iterdir()) == ["0000.json", "0001.json"]


@pytest.mark.parametrize("where", ["file/inside", "missing-parent-is-fine/x", "/proc/hongsi-cannot"])
def test_selfplay_to_a_bad_folder_is_one_line(tmp_path, where):
    (tmp_path / "file").write_text("a file, not a folder")
    out = Path(where) if where.startswith("/") else tmp_path / where
    proc = subprocess.run([*HONGSI, "selfplay", "-n", "1", "--out", str(out)], capture_output=True, text=True,
                          env=_env(tmp_path), timeout=120)
    if where.startswith("missing"):
        assert proc.returncode == 0 and (out / "0000.json").exists()
        return
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"hongsi: --out {out}: cannot write the records"), lines
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- selftest --json
def test_selftest_json_prints_json_alone_on_the_virtual_rig(tmp_path):
    proc = subprocess.run([*HONGSI, "selftest", "--json", "--no-eject"], capture_output=True, text=True,
                          env=_env(tmp_path), cwd=tmp_path, timeout=120)
    rows = json.loads(proc.stdout)  # the whole of standard output is the JSON
    assert {r["name"] for r in rows} >= {"link", "voice"}
    assert "virtual rig" in proc.stderr  # the note is still said, where it does not spoil the JSON
