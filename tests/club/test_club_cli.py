"""``hongsi club`` and ``hongsi serve --club`` on bad input: one clear line, exit code 2, no traceback."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.club.local import free_port


def hongsi(*args: str) -> Any:
    """Run the command in this process (quick); its standard error is ``.stderr``."""
    return CliRunner().invoke(app, list(args), env={"HONGSI_CLUB_BROKER": "", "HONGSI_CLUB_DATABASE": ""})


@pytest.mark.parametrize("args, says", [
    (["club", "serve", "--broker", "http://h/room1", "--db", "postgresql://x@h/d"], "use mqtt://"),
    (["club", "serve", "--broker", "mqtt://h/Room-1", "--db", "postgresql://x@h/d"], "room 'Room-1'"),
    (["club", "serve", "--broker", "mqtt://127.0.0.1/room1"], "--db"),
    (["club", "serve", "--broker", "mqtt://127.0.0.1/room1", "--db", f"postgresql://x:y@127.0.0.1:{free_port()}/d"],
     "cannot reach the club's PostgreSQL"),
    (["club", "up", "/tmp/nowhere-club", "--room", "no/room"], "room 'no/room'"),
    (["serve", "--no-rig", "--club", "mqtt://127.0.0.1/room1"], "/<room>/<table>"),
])
def test_bad_input_is_one_line_and_exit_2(args, says):
    got = hongsi(*args)
    assert got.exit_code == 2, got.stderr
    lines = [line for line in got.stderr.splitlines() if line.startswith("hongsi:")]
    assert len(lines) == 1 and says in lines[0], got.stderr
    assert "Traceback" not in got.stderr
    assert got.exception is None or isinstance(got.exception, SystemExit)
