import json
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from controller.cli import app

runner = CliRunner()
SPEC_COMMANDS = ["referee", "selfplay", "vision", "simulate", "deal", "serve", "token"]


def test_help_lists_every_command_of_the_interfaces_spec():
    out = runner.invoke(app, ["--help"]).output
    for name in SPEC_COMMANDS:
        assert name in out
    assert "classify" in runner.invoke(app, ["vision", "--help"]).output


def test_every_bracket_in_the_help_is_printed():
    """Typer's help is rich markup: an unescaped ``[club]`` vanished from ``serve --help``."""
    from typer.main import get_command

    def texts(cmd, path):
        yield path, cmd.help or ""
        for p in getattr(cmd, "params", []):
            yield path, getattr(p, "help", None) or ""
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from texts(sub, path + [name])

    bracketed = [(path, word) for path, text in texts(get_command(app), [])
                 for word in re.findall(r"\\?\[(\w+)\]", text)]
    assert bracketed, "the help has no [section] to check"
    for path, word in bracketed:
        out = " ".join(runner.invoke(app, [*path, "--help"], terminal_width=200).output.split())
        assert f"[{word}]" in out, (path, word)


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "referee" in proc.stdout


def test_referee_rejects_non_records_with_one_line(tmp_path):
    cases = {
        "nojson.json": "{not json",
        "list.json": "[1, 2]",
        "nohands.json": json.dumps({"game": "hongsi", "events": []}),
        "badcard.json": json.dumps({"game": "hongsi", "hands": [["H4", "H11"], [], [], []]}),
        "twice.json": json.dumps({"game": "hongsi", "hands": [["H4"], ["H4"], [], []]}),
        "unknown.json": json.dumps({"game": "poker", "hands": []}),
        "deep.json": "[" * 100_000 + "]" * 100_000,  # deeper than Python's recursion limit
        "deephands.json": '{"game": "hongsi", "hands": ' + "[" * 5000 + "]" * 5000 + "}",
    }
    for name, text in cases.items():
        p = tmp_path / name
        p.write_text(text)
        result = runner.invoke(app, ["referee", str(p)])
        assert result.exit_code == 2, (name, result.output)
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("hongsi:"), (name, result.output)
    result = runner.invoke(app, ["referee", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "no such file" in result.output


def test_config_show_prints_toml(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HONGSI_CONFIG", raising=False)
    result = runner.invoke(app, ["config", "show"])
    assert result.exit_code == 0 and 'serial_port = "sim"' in result.output
    monkeypatch.setenv("HONGSI_SEATS", "0")
    result = runner.invoke(app, ["config", "show"])
    assert result.exit_code == 2 and "seats" in result.output


@pytest.mark.parametrize("budget", ["inf", "nan", "1e9", "0"])
def test_selfplay_refuses_a_bot_time_that_never_ends_in_one_line(tmp_path, budget):
    result = runner.invoke(app, ["selfplay", "--bot", "careful", "--bot-ms", budget, "-n", "1", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "--bot-ms" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())
