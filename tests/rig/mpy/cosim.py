# The firmware's own files on REAL MicroPython (unix port), its pins and clock on the host's physical
# model (firmware_bridge.sim.model, CPython), in lockstep: one JSON line each way per pass of the loop.
#   micropython cosim.py FIRMWARE_DIR        (stdin: the host's steps; stdout: the firmware's outputs)
# host -> {"boot": [tick_start_ms, reset_cause], "t": [ms, us], "lv": {pin: level}}      (first line)
# host -> {"t": [ms, us], "lv": {...}, "e": [[pin, ms, us, level], ...], "rx": hex}       (each step)
# here -> {"o": [[kind, ...], ...], "tx": hex}
import json
import sys

import simmachine
import simstate
import simtime

sys.modules["machine"] = simmachine
sys.modules["time"] = simtime
sys.path.insert(0, sys.argv[1])

from firmware import Firmware  # noqa: E402 - after the stand-ins are installed

S = simstate


class Port:
    def __init__(self):
        self.inbox = b""
        self.sent = bytearray()

    def read(self):
        data, self.inbox = self.inbox, b""
        return data or None

    def write(self, data):
        self.sent += data


def levels(msg):
    S.LEVELS.clear()
    for k, v in msg["lv"].items():
        S.LEVELS[int(k)] = v


def reply(port):
    print(json.dumps({"o": S.OUT, "tx": bytes(port.sent).hex()}))
    S.OUT.clear()
    port.sent = bytearray()


port = Port()
first = json.loads(sys.stdin.readline())
S.START[0], simmachine.CAUSE[0] = first["boot"]
S.T[0], S.T[1] = first["t"]
levels(first)
fw = Firmware(port)
reply(port)
while True:
    line = sys.stdin.readline()
    if not line:
        break
    msg = json.loads(line)
    for pin, ms, us, level in msg["e"]:  # the interrupts of this step, each at its own instant
        S.T[0], S.T[1] = ms, us
        S.LEVELS[pin] = level
        handler = S.IRQS.get(pin)
        if handler is not None:
            handler()
    S.T[0], S.T[1] = msg["t"]
    levels(msg)
    port.inbox = bytes.fromhex(msg["rx"])
    fw.step()
    reply(port)
