# Every motion and safety path of the firmware under the real MicroPython unix port, with short timings.
#   micropython run_scenarios.py FIRMWARE_DIR  -> one JSON line of observations
#   The firmware runs on this script's clock (simtime.py): a loaded machine cannot stretch a moment.
import json
import sys

import simtime as time
from harness import Port, fakemachine  # first: installs the machine stand-in

sys.modules["time"] = time

sys.path.insert(0, sys.argv[1])

import config  # noqa: E402
import protocol as P  # noqa: E402
from firmware import Firmware  # noqa: E402

config.SERVO_DEG_PER_S = 30000.0
config.SERVO_SETTLE_MS = 5
config.JAM_MS = 20
config.PASS_MIN_MS = 10
config.PASS_GAP_MS = 5
config.HEARTBEAT_MS = 10
config.EDGE_MS = 20
config.RIFFLE_MIN_MS = 5
config.UNLOADED_MS = 5


L = fakemachine.LEVELS
L[config.PIN_HOPPER] = 0
L[config.PIN_ESTOP] = 0
L[config.PIN_ENDSTOP] = 1
L[config.PIN_EXIT] = 1
L[config.PIN_CURRENT] = 0
port = Port()
fw = Firmware(port)
host = P.FrameDecoder()
state = {"seen": 0, "seq": 100, "events": [], "replies": {}}


def pump(ms, ack=True):
    end = time.ticks_add(time.ticks_ms(), ms)
    while True:  # at least one pass after the deadline, however slowly the machine runs
        late = time.ticks_diff(end, time.ticks_ms()) <= 0
        fw.step()
        for item in host.feed(bytes(port.sent[state["seen"]:])):
            if not isinstance(item, tuple):
                continue
            if item[0] == P.EVENT:
                if ack:
                    port.inbox += P.encode(P.ACK, item[1])
                state["events"].append([P.EVENTS[item[2]][0]] + list(item[3]))
            elif item[0] == P.REPLY:
                state["replies"][item[1]] = list(item[3])
        state["seen"] = len(port.sent)
        if late:
            return
        time.advance_us(1000)


def cmd(name, *args):
    state["seq"] += 1
    port.inbox += P.encode(P.CMD, state["seq"], P.CMD_IDS[name], args)
    pump(3)
    return state["replies"].get(state["seq"])


def dones():
    return [e for e in state["events"] if e[0] == "done"]


out = {}
cmd("hello", 7)
out["rotate_unhomed"] = cmd("rotate", 900)[0]
out["home_accept"] = cmd("home")[0]
L[config.PIN_ENDSTOP] = 0  # the turntable reaches the switch
pump(10)
out["home_done"] = dones()[-1][3]
# homing again while parked on the switch: it must open first (a dead servo never opens it)
n_done = len(dones())
cmd("home")
pump(10)
out["home_parked"] = [len(dones()) - n_done, fakemachine.DUTY[config.PIN_SERVO]]  # not done; servo sent away
L[config.PIN_ENDSTOP] = 1  # the turntable leaves the switch...
pump(5)
out["home_back"] = fakemachine.DUTY[config.PIN_SERVO]
L[config.PIN_ENDSTOP] = 0  # ...and comes back onto it
pump(10)
out["home_parked_done"] = dones()[-1][3]
L[config.PIN_ENDSTOP] = 1
out["rotate"] = cmd("rotate", 900)[0]
pump(20)
out["rotate_done"] = dones()[-1][3:5]
out["servo_duty"] = fakemachine.DUTY[config.PIN_SERVO]
for attempt in (1, 2, 3):  # three jams in a row: the third latches
    out["eject_" + str(attempt)] = cmd("eject", attempt)[0]
    pump(40)
out["jam_events"] = len([e for e in state["events"] if e[0] == "jam"])
out["fault_after_jams"] = fw.fault
out["eject_refused"] = cmd("eject", 1)[0]
out["clear"] = cmd("clear")
L[config.PIN_CURRENT] = 1  # the shuffler riffles...
out["shuffle"] = cmd("shuffle", 1)[0]
out["relay_on"] = fakemachine.LEVELS[config.PIN_RELAY]
pump(20)
L[config.PIN_CURRENT] = 0  # ...and unloads: the pass is over
pump(10)
out["shuffle_done"] = dones()[-1][3:5]
out["relay_after"] = fakemachine.LEVELS[config.PIN_RELAY]
config.UNLOADED_MS = 50  # a pass ends only after the motor stayed unloaded this long...
n_done = len(dones())
L[config.PIN_CURRENT] = 1
cmd("shuffle", 1)
pump(20)
L[config.PIN_CURRENT] = 0  # ...so a moment between clumps of cards does not end it
pump(2)
L[config.PIN_CURRENT] = 1
pump(20)
out["shuffle_blip"] = len(dones()) - n_done
L[config.PIN_CURRENT] = 0
pump(80)
out["shuffle_blip_done"] = dones()[-1][3:5]
config.UNLOADED_MS = 5
L[config.PIN_CURRENT] = 0  # a shuffle with empty bins: the motor never loads
cmd("shuffle", 1)
pump(30)
out["shuffle_empty"] = dones()[-1][3:5]
L[config.PIN_CURRENT] = 1
cmd("shuffle", 3)  # an e-stop glitch (0.5 ms, the level back before it is confirmed)
L[config.PIN_ESTOP] = 1
fakemachine.IRQS[config.PIN_ESTOP](fakemachine.Pin(config.PIN_ESTOP))
time.advance_us(500)
L[config.PIN_ESTOP] = 0
pump(10)
out["estop_glitch_fault"] = fw.fault
out["estop_glitch_relay"] = fakemachine.LEVELS[config.PIN_RELAY]
cmd("estop")  # stop that shuffle (a fault latched from the host)
cmd("clear")
L[config.PIN_ESTOP] = 1  # e-stop pressed during a shuffle
L[config.PIN_CURRENT] = 1
cmd("shuffle", 3)
fakemachine.IRQS[config.PIN_ESTOP](fakemachine.Pin(config.PIN_ESTOP))
pump(config.ESTOP_CONFIRM_MS + 3)  # the level held: a press, not a glitch
out["relay_at_estop"] = fakemachine.LEVELS[config.PIN_RELAY]
out["estop_fault"] = fw.fault
out["clear_pressed"] = cmd("clear")[0]
L[config.PIN_ESTOP] = 0
out["clear_released"] = cmd("clear")
fw.fault = P.F_HOME  # another fault latched, then the e-stop held down
n_estop = len([e for e in state["events"] if e[0] == "estop"])
L[config.PIN_ESTOP] = 1
pump(40)
out["estop_events_held"] = len([e for e in state["events"] if e[0] == "estop"]) - n_estop
L[config.PIN_ESTOP] = 0
cmd("clear")
config.HOST_SILENCE_MS = 30
cmd("shuffle", 3)
pump(60, ack=False)  # the host falls silent (no acks, no commands)
out["relay_after_silence"] = fakemachine.LEVELS[config.PIN_RELAY]
out["silence_fault"] = fw.fault
config.EVENT_QUEUE = 4
for i in range(10):
    fw.queue_event("card_passed", (i, i))
out["queue_len"] = len(fw.events)
out["status"] = cmd("status")
fw.events = []
cmd("clear")
L[config.PIN_EXIT] = 0  # a card left in the beam
out["eject_beam_blocked"] = cmd("eject", 1)[0]
L[config.PIN_EXIT] = 1
import os  # noqa: E402

import firmware  # noqa: E402

config.REPL_FLAG = "/tmp/hongsi-mpy-repl-flag"  # "repl": the flag file on MicroPython's own filesystem
config.REPL_RESET_MS = 5
try:
    os.remove(config.REPL_FLAG)
except OSError:
    pass
out["repl_asked_before"] = firmware.repl_requested()
out["repl"] = cmd("repl")[0]
pump(20)
out["repl_resets"] = fakemachine.RESETS[0]
out["repl_asked"] = [firmware.repl_requested(), firmware.repl_requested()]  # once, then the firmware again
out["led_pins"] = sorted(k for k in L if not isinstance(k, int))  # the LED by name, not GP25 (a Pico W's radio)
out["gp25_used"] = 25 in L
print(json.dumps(out))
