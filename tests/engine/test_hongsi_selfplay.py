"""红桃四 self-play: 2,000 bot hands referee clean, every mode appears, scores sum to zero; and the
``hongsi referee`` / ``hongsi selfplay`` commands end to end."""

import json
import random
import subprocess
import sys
from collections import Counter

from typer.testing import CliRunner

from controller.cli import app
from engine.hongsi.game import HongsiGame
from engine.hongsi.settings import HongsiSettings
from engine.record import parse_record
from engine.referee import judge_record, referee

MODES = {"normal", "pa", "dui_pa", "anjiao", "dantiao", "duitiao", "baomen"}
runner = CliRunner()


def test_two_thousand_bot_hands_referee_clean():
    game = HongsiGame()
    rng = random.Random(2026)
    modes, exposed, first_seat, bombs = Counter(), 0, 0, 0
    variants = [HongsiSettings(), HongsiSettings(bombs=True), HongsiSettings(bombs=True, bomb_doubling="once",
                                                                             bomb_cap=4, min_pair_run=2)]
    for i in range(2000):
        settings = variants[i % 3]
        rec = game.bot_hand(rng, bot=("greedy", "random")[i % 2], settings=settings, first_seat=first_seat)
        verdict = judge_record(parse_record(json.loads(json.dumps(rec))))
        assert verdict["violations"] == [], (i, verdict["violations"])
        assert verdict["finished"] and sum(verdict["scores"]) == 0 and any(verdict["scores"])
        assert verdict["next_first_seat"] == rec["next_first_seat"]
        assert verdict["multiplier"] <= (settings.bomb_cap or 2 ** 20)
        modes[verdict["mode"]] += 1
        exposed += verdict["exposed"]
        bombs += verdict["bombs"]
        first_seat = verdict["next_first_seat"]
    assert set(modes) == MODES, modes
    assert exposed > 0 and bombs > 0


def test_greedy_keeps_threes_until_late():
    game = HongsiGame()
    for seed in range(30):
        rec = game.bot_hand(random.Random(seed), bot="greedy")
        for i, e in enumerate(rec["events"]):
            if e["action"] != "play" or not any(c.endswith("3") and c[1] == "3" for c in e["cards"]):
                continue
            # a 3 is played only to lead when nothing else is left, or with few cards in hand
            held = 13 - sum(len(x["cards"]) for x in rec["events"][:i]
                            if x["action"] == "play" and x["seat"] == e["seat"])
            assert held <= 5 or all(c[1:] == "3" for c in e["cards"]), (seed, i, e, held)


def test_selfplay_and_referee_commands(tmp_path):
    out = tmp_path / "sp"
    result = runner.invoke(app, ["selfplay", "--game", "hongsi", "-n", "4", "--seed", "5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == ["0000.json", "0001.json", "0002.json", "0003.json"]
    for f in files:
        result = runner.invoke(app, ["referee", str(f)])
        assert result.exit_code == 0, result.output
        verdict = json.loads(result.output)
        assert verdict == referee(json.loads(f.read_text()))
        assert verdict["violations"] == [] and verdict["finished"]
    again = tmp_path / "again"
    runner.invoke(app, ["selfplay", "--game", "hongsi", "-n", "4", "--seed", "5", "--out", str(again)])
    assert [f.read_text() for f in files] == [f.read_text() for f in sorted(again.glob("*.json"))]
    # one real process, as a user runs it
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "referee", str(files[0])],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["game"] == "hongsi"


def test_referee_command_reports_violations_and_rejects_non_records(tmp_path):
    rec = {"game": "hongsi", "hands": HongsiGame().deal(random.Random(1)),
           "events": [{"seat": 1, "action": "play", "cards": ["S4"]}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    result = runner.invoke(app, ["referee", str(path)])
    assert result.exit_code == 0
    (v,) = json.loads(result.output)["violations"]
    assert v["event"] == 0 and v["rule"] == "phase" and v["message_zh"]
    for bad in ({**rec, "rules": {"bombs": "maybe"}}, {**rec, "events": [{"seat": 4, "action": "pass"}]},
                {**rec, "hands": rec["hands"][:3]}):
        path.write_text(json.dumps(bad))
        result = runner.invoke(app, ["referee", str(path)])
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("hongsi:"), result.output
