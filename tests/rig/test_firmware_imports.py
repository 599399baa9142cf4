"""The firmware runs on real MicroPython: it imports only MicroPython's modules and the fake ``machine``."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

from firmware_bridge.sim.clock import ManualClock
from firmware_bridge.sim.fakes import FIRMWARE_DIR, FIRMWARE_FILES, MICROPYTHON_MODULES, load_firmware
from firmware_bridge.sim.model import Board

CHILD = textwrap.dedent("""
    import builtins, sys
    from firmware_bridge.sim.clock import ManualClock
    from firmware_bridge.sim.fakes import MICROPYTHON_MODULES, make_machine, make_micropython, make_time
    from firmware_bridge.sim.mcu import MemoryPort
    from firmware_bridge.sim.model import Board

    board = Board(ManualClock(), seed=0)
    FIRMWARE = {%(files)s}
    FWDIR = %(dir)r
    seen = []
    real_import = builtins.__import__

    def micropython_only(name, globals=None, locals=None, fromlist=(), level=0):
        if str((globals or {}).get("__file__") or "").startswith(FWDIR):  # an import by firmware code
            seen.append(name)
            if name.split(".")[0] not in MICROPYTHON_MODULES and name not in FIRMWARE:
                raise ImportError("not a MicroPython module: " + name)
        return real_import(name, globals, locals, fromlist, level)

    sys.path.insert(0, FWDIR)
    sys.modules.update({"machine": make_machine(board), "micropython": make_micropython(),
                        "time": make_time(board.clock)})
    builtins.__import__ = micropython_only
""")


def _child(body: str) -> subprocess.CompletedProcess:
    code = CHILD % {"files": ", ".join(repr(f) for f in FIRMWARE_FILES), "dir": str(FIRMWARE_DIR),
                    "body": ""}
    code += textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_firmware_imports_and_runs_with_only_micropython_modules():
    proc = _child("""
        import main, firmware
        port = MemoryPort()
        fw = firmware.Firmware(port)
        fw.step()
        assert port.sent, "the boot report went out"
        print("ok", sorted(set(seen)))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok")


def test_the_blocker_really_blocks_cpython_only_modules():
    proc = _child("""
        probe = FWDIR + "/probe.py"
        exec(compile("import typing", probe, "exec"), {"__file__": probe, "__name__": "probe"})
    """)
    assert proc.returncode != 0 and "not a MicroPython module: typing" in proc.stderr


def test_loader_sees_only_micropython_imports():
    imported: set[str] = set()
    load_firmware(Board(ManualClock(), seed=0), imported=imported)
    assert {"machine", "time", "struct"} <= imported
    assert imported <= MICROPYTHON_MODULES | set(FIRMWARE_FILES)


def test_firmware_source_avoids_cpython_only_syntax():
    """No match statements, no annotations, no typing/dataclasses/__future__ (MicroPython lacks them)."""
    for path in FIRMWARE_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            assert not isinstance(node, (ast.Match, ast.AnnAssign, ast.AsyncFunctionDef)), (path.name, node)
            if isinstance(node, ast.FunctionDef):
                assert node.returns is None and all(a.annotation is None for a in node.args.args), path.name
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not {"typing", "dataclasses", "__future__"} & set(names), (path.name, names)
