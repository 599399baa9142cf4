# Runs the firmware's own files under the real MicroPython unix port and prints JSON lines:
#   micropython run_firmware.py FIRMWARE_DIR VECTORS_JSON
# The firmware runs on this script's clock (tests/rig/mpy/simtime.py), so a loaded machine cannot stretch a
# card's pulse into a stuck card: the times below are exact.
import json
import sys

import simtime
from harness import Port, fakemachine  # first: installs the machine stand-in

sys.modules["time"] = simtime
time = simtime
sys.path.insert(0, sys.argv[1])


import config  # noqa: E402 - after the machine stand-in is installed
import protocol as P  # noqa: E402
from firmware import Firmware  # noqa: E402

out = {"implementation": sys.implementation.name}
with open(sys.argv[2]) as f:
    vectors = json.load(f)
out["vectors"] = [P.encode(getattr(P, v["kind"]), v["seq"], v["msg"], tuple(v["values"])).hex() for v in vectors]
out["hash"] = P.PROTOCOL_HASH

L = fakemachine.LEVELS
L[config.PIN_HOPPER] = 0   # a card in the hopper
L[config.PIN_ESTOP] = 0    # e-stop closed (not pressed)
L[config.PIN_ENDSTOP] = 1
L[config.PIN_EXIT] = 1
L[config.PIN_EDGE] = 0     # the picked card at the leading-edge sensor
port = Port()
fw = Firmware(port)
port.inbox += P.encode(P.CMD, 41, P.CMD_IDS["hello"], (1,)) + P.encode(P.CMD, 42, P.CMD_IDS["count"])
fw.step()
port.inbox += P.encode(P.CMD, 42, P.CMD_IDS["count"])  # a retransmission: answered, not counted again
fw.step()
port.inbox += P.encode(P.CMD, 43, P.CMD_IDS["eject"], (1,))
fw.step()
exit_pin = fakemachine.Pin(config.PIN_EXIT)
L[config.PIN_EXIT] = 0
fakemachine.IRQS[config.PIN_EXIT](exit_pin)   # a 0.2 ms glitch first: not a card
time.advance_us(200)
L[config.PIN_EXIT] = 1
fakemachine.IRQS[config.PIN_EXIT](exit_pin)
time.advance_us(5000)
fw.step()
L[config.PIN_EXIT] = 0
fakemachine.IRQS[config.PIN_EXIT](exit_pin)   # the card's leading edge
time.advance_us(86000)
L[config.PIN_EXIT] = 1
fakemachine.IRQS[config.PIN_EXIT](exit_pin)   # the trailing edge
trailing = time.ticks_ms()
host = P.FrameDecoder()
seen = 0
done_at = None
while time.ticks_diff(time.ticks_ms(), trailing) < config.CHUTE_MS + 60:  # host acks every event
    fw.step()
    for item in host.feed(bytes(port.sent[seen:])):
        if isinstance(item, tuple) and item[0] == P.EVENT:
            port.inbox += P.encode(P.ACK, item[1])
            if P.EVENTS[item[2]][0] == "done" and done_at is None:
                done_at = time.ticks_diff(time.ticks_ms(), trailing)
    seen = len(port.sent)
    time.advance_us(2000)
out["sent"] = bytes(port.sent).hex()
out["count"] = fw.count
out["ejects"] = fw.ejects
out["motor_off"] = fw.motor.running == 0
out["wdt_fed"] = fakemachine.FEEDS[0]
out["glitches"] = fw.exit.glitches
out["done_after_trailing_ms"] = done_at
print(json.dumps(out))
