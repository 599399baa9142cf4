# The Pico's firmware: dumb but safe. It moves only on the host's command, stops everything on its own
# when something is wrong, and latches faults until the host clears them. MicroPython only.
#
#   fw = Firmware(port)   # port.read() -> bytes or None (non-blocking); port.write(bytes)
#   while True:
#       fw.step()         # one pass of the main loop: link, motion, safety, watchdog
import os
import time

import machine
from machine import Pin

import config
import protocol as P
from drivers import ExitSensor, Input, Motor, Relay, Servo



REPL_BANNER = "hongsi firmware paused for this boot: the REPL is free; reset to run it again"


def repl_requested():
    """True once after the host sent "repl": the flag is removed here, so the boot after this one runs
    the firmware again (a power cycle too). main.py asks before it starts the firmware."""
    try:
        os.remove(config.REPL_FLAG)
    except OSError:
        return False
    return True


def load_pulses():
    """(single_us, double_us): calibration's figures from flash, else the parts' figures."""
    try:
        f = open(config.PULSE_FILE)
        single, double = [int(x) for x in f.read().split()]
        f.close()
        if 0 < single < double:
            return single, double
    except (OSError, ValueError):
        pass
    return config.SINGLE_PULSE_US, config.DOUBLE_PULSE_US


class Firmware:
    def __init__(self, port):
        self.port = port
        self.wdt = machine.WDT(timeout=config.WDT_MS)
        self.reset_cause = machine.reset_cause()  # rp2: 2 = RUN pin (the relay), 3 = watchdog
        self.boot_id = int.from_bytes(os.urandom(4), "little") or 1
        self.servo = Servo(config.PIN_SERVO)
        self.nsleep = Pin(config.PIN_NSLEEP, Pin.OUT, value=1)
        self.motor = Motor(config.PIN_EJECT_A, config.PIN_EJECT_B)  # the pick roller
        self.take = Motor(config.PIN_TAKE_A, config.PIN_TAKE_B)  # the take-away rollers
        self.exit = ExitSensor(config.PIN_EXIT)
        self.edge = Input(config.PIN_EDGE, 0, Pin.PULL_UP)
        self.single_us, self.double_us = load_pulses()
        self.exit.glitch_us = self.single_us // 2
        self.hopper = Input(config.PIN_HOPPER, 0, Pin.PULL_UP)
        self.endstop = Input(config.PIN_ENDSTOP, 0, Pin.PULL_UP)
        self.estop_in = Input(config.PIN_ESTOP, 1, Pin.PULL_UP)
        self.current = Input(config.PIN_CURRENT, 1)
        self.relay = Relay(config.PIN_RELAY)
        self.led = Pin(config.PIN_LED, Pin.OUT, value=0)
        self.estop_since = None  # when the e-stop input went active (confirmed after ESTOP_CONFIRM_MS)
        self.estop_told = False  # this press is reported: once, however long it is held
        self.estop_in.pin.irq(handler=self._estop_irq, trigger=Pin.IRQ_RISING)
        self.decoder = P.FrameDecoder()
        self.connected = False
        self.last_seq = -1
        self.last_reply = None
        self.count = 0
        self.ejects = 0
        self.retransmits = 0
        self.fault = P.F_NONE
        self.homed = False
        self.jams = 0
        self.eject_us = 0
        self.motion = None  # see _start
        self.reset_at = None  # "repl": when to reset into the REPL
        now = time.ticks_ms()
        self.last_host = now
        self.last_beat = now
        self.rx_at = now
        self.ev_seq = 0
        self.events = []  # [seq, frame, name], oldest first; [0] is the one in flight
        self.ev_sent = None
        self.ev_tries = 0
        self.queue_event("boot", (self.boot_id, P.FW_VERSION[0], P.FW_VERSION[1], P.PROTOCOL_VERSION,
                                  P.PROTOCOL_HASH, self.reset_cause))
        if self.estop_in.active():
            self.estop_told = True
            self._latch(P.F_ESTOP)

    # ------------------------------------------------------------------ safety
    def _estop_irq(self, pin):
        # only stamps the edge: one glitch must not latch; the switch itself breaks the motor rail
        if self.estop_since is None:
            self.estop_since = time.ticks_ms()

    def all_off(self):
        self.motor.off()
        self.take.off()
        self.relay.off()
        self.servo.off()  # limp: the turntable may be pushed, so it must be homed again
        self.homed = False

    def moving(self):
        return (self.motor.running != 0 or self.take.running != 0 or self.relay.is_on()
                or self.motion is not None)

    def _latch(self, code):
        if self.fault == P.F_NONE:
            self.fault = code
            self.queue_event("fault", (code, time.ticks_ms()))

    def _abort(self, outcome):
        self.all_off()
        if self.motion is not None:
            self._done(outcome, 0, 0)

    def _safety(self, now):
        if not self.estop_in.active():
            self.estop_since = None
            self.estop_told = False  # released: the next press is reported again
        else:
            if self.estop_since is None:
                self.estop_since = now
            if not self.estop_told and time.ticks_diff(now, self.estop_since) >= config.ESTOP_CONFIRM_MS:
                self.estop_told = True  # the level held: a press, not a glitch
                self._abort(P.DONE_ABORTED)
                self.queue_event("estop", (0, now))
                self._latch(P.F_ESTOP)
        if self.moving() and time.ticks_diff(now, self.last_host) > config.HOST_SILENCE_MS:
            self._abort(P.DONE_ABORTED)
            self._latch(P.F_HOST_SILENCE)

    # ------------------------------------------------------------------ events (mcu -> host)
    def queue_event(self, name, values):
        if name == "heartbeat":
            for ev in self.events:
                if ev[2] == "heartbeat":
                    return
        if len(self.events) >= config.EVENT_QUEUE:  # nobody acks: drop the least useful, never a done
            for keep in (("done", "fault", "boot", "estop", "jam"), ("done",)):
                victim = -1
                for i in range(1, len(self.events)):
                    if self.events[i][2] not in keep:
                        victim = i
                        break
                if victim > 0:
                    self.events.pop(victim)
                    break
            else:
                self.events.pop(1)
        seq = (self.ev_seq + 1) & 0xFFFF
        while seq == 0 or 3 in P.encode(P.ACK, seq):  # its ACK must not carry 0x03 (Ctrl-C while booting)
            seq = (seq + 1) & 0xFFFF
        self.ev_seq = seq
        frame = P.encode(P.EVENT, self.ev_seq, P.EVENT_IDS[name], values)
        self.events.append([self.ev_seq, frame, name])

    def _pump_events(self, now):
        if not self.events:
            return
        if self.ev_sent is not None:
            rto = config.RETX_MS << min(self.ev_tries - 1, 6)
            if rto > config.RETX_MAX_MS:
                rto = config.RETX_MAX_MS
            if time.ticks_diff(now, self.ev_sent) < rto:
                return
            self.retransmits += 1
        self.port.write(self.events[0][1])
        self.ev_sent = now
        self.ev_tries += 1

    def _acked(self, seq):
        if self.events and self.events[0][0] == seq:
            self.events.pop(0)
            self.ev_sent = None
            self.ev_tries = 0

    # ------------------------------------------------------------------ link (host -> mcu)
    def _receive(self):
        data = self.port.read()
        if not data:
            if self.decoder.pending() and time.ticks_diff(time.ticks_ms(), self.rx_at) > config.FRAME_GAP_MS:
                self.decoder.flush()
                self.port.write(P.encode(P.NAK, 0))
            return
        self.rx_at = time.ticks_ms()
        for item in self.decoder.feed(data):
            if isinstance(item, P.FrameError):
                self.port.write(P.encode(P.NAK, 0))
                continue
            kind, seq, msg, values = item
            self.last_host = time.ticks_ms()
            if kind == P.ACK:
                self._acked(seq)
            elif kind == P.NAK:
                self.ev_sent = None if self.events else self.ev_sent
                if self.last_reply is not None:
                    self.port.write(self.last_reply)
            elif kind == P.CMD:
                self._command(seq, msg, values)

    def _reply(self, seq, msg, status, values=None):
        names = P.COMMANDS[msg][4]
        if values is None:
            values = (0,) * len(names)
        frame = P.encode(P.REPLY, seq, msg, (status,) + tuple(values))
        self.port.write(frame)
        return frame

    def _command(self, seq, msg, values):
        name = P.COMMANDS[msg][0]
        if name == "hello":
            self.connected = True
            if self.events and self.events[0][2] == "boot":
                self._acked(self.events[0][0])  # the reply carries the boot report
            self.last_seq = seq
            self.last_reply = self._reply(seq, msg, P.OK, (
                self.boot_id, P.FW_VERSION[0], P.FW_VERSION[1], P.PROTOCOL_VERSION, P.PROTOCOL_HASH,
                self.reset_cause))
            return
        if seq == self.last_seq:  # a retransmission: answer again, never act twice
            self.port.write(self.last_reply)
            return
        if not self.connected:
            self._reply(seq, msg, P.NOT_CONNECTED)
            return
        self.last_seq = seq
        self.last_reply = self._reply(seq, msg, *self._execute(seq, msg, name, values))

    def _execute(self, seq, msg, name, values):
        now = time.ticks_ms()
        if name == "ping":
            return P.OK, (now,)
        if name == "count":
            self.count += 1
            return P.OK, (self.count,)
        if name == "status":
            return P.OK, (self.flags(), self.fault, int((self.servo.angle or 0) * 10), self.ejects & 0xFFFF,
                          self.decoder.errors, self.retransmits, now)
        if name == "estop":
            self._abort(P.DONE_ABORTED)
            self.queue_event("estop", (1, now))
            self._latch(P.F_ESTOP)
            return P.OK, None
        if name == "clear":
            if self.estop_in.active():
                return P.FAULTED, None
            was = self.fault
            self.fault = P.F_NONE
            self.jams = 0
            self.exit.arm()  # a card pulled out of the path while clearing it was not dealt
            return P.OK, (was,)
        if name == "pulses":
            single, double = values
            if single or double:
                if not 0 < single < double:
                    return P.BAD_ARGS, None
                f = open(config.PULSE_FILE, "w")
                f.write("%d %d\n" % (single, double))
                f.close()
                self.single_us, self.double_us = single, double
                self.exit.glitch_us = single // 2
            return P.OK, (self.single_us, self.double_us)
        if name == "repl":
            if self.moving():
                return P.BUSY, None
            self.all_off()
            f = open(config.REPL_FLAG, "w")
            f.write("repl\n")
            f.close()
            self.reset_at = time.ticks_add(now, config.REPL_RESET_MS)
            return P.OK, None
        # motion
        if self.fault != P.F_NONE:
            return P.FAULTED, None
        if self.motion is not None or self.reset_at is not None:
            return P.BUSY, None
        if name == "home":
            self.homed = False
            leave = self.endstop.active()  # parked on the switch: it must open, or the servo never moved
            self.servo.move(config.HOME_AWAY_DEG if leave else config.HOME_ANGLE)
            self._start(msg, seq, config.HOME_TIMEOUT_MS)
            self.motion[2] = 1 if leave else 0
        elif name == "rotate":
            deg = values[0] / 10
            if deg > config.SERVO_RANGE_DEG:
                return P.BAD_ARGS, None
            if not self.homed:
                return P.NOT_HOMED, None
            travel = self.servo.travel_ms(deg)
            self.servo.move(deg)
            self._start(msg, seq, travel)
        elif name == "eject":
            if self.exit.held():
                return P.BLOCKED, None  # a card already in the beam: no edge would count this one
            if not self.hopper.active():
                return P.EMPTY, None
            self.exit.arm()
            self.eject_us = time.ticks_us()
            self.take.forward()
            self.motor.forward()
            self._start(msg, seq, 0)
            self.motion += [0, 0, 0]  # outcome, pulse, travel (for the DONE after the chute)
        elif name == "reverse":
            self.take.reverse()
            self.motor.reverse()
            self._start(msg, seq, values[0] or config.REVERSE_MS)
        elif name == "shuffle":
            if values[0] == 0:
                return P.OK, None
            self.relay.on()
            self._start(msg, seq, values[0])
        else:
            return P.UNKNOWN, None
        return P.ACCEPTED, None

    # ------------------------------------------------------------------ motion
    def _start(self, msg, seq, arg):
        # [cmd, ref, phase, phase start, arg, passes done, motion start]
        now = time.ticks_ms()
        self.motion = [msg, seq, 0, now, arg, 0, now]

    def _done(self, outcome, value, extra):
        m = self.motion
        self.motion = None
        self.queue_event("done", (m[1], m[0], outcome, value, extra, time.ticks_ms()))

    def _motion(self, now):
        m = self.motion
        if m is None or P.COMMANDS[m[0]][0] != "eject":
            pulse = self.exit.pulse_us()
            if pulse is not None:  # a card left outside an eject (stopped mid-throw, pushed by hand)
                self.exit.arm()
                self.ejects += 1
                self.queue_event("card_passed", (pulse, now))
        if m is None:
            return
        name = P.COMMANDS[m[0]][0]
        age = time.ticks_diff(now, m[3])
        if name == "home":
            if m[2] == 1 and not self.endstop.active():  # off the switch: now back onto it
                m[2] = 0
                self.servo.move(config.HOME_ANGLE)
            elif m[2] == 0 and self.endstop.active():
                self.homed = True
                self._done(P.DONE_OK, 0, age)
            elif age > m[4]:
                self.servo.off()
                self._done(P.DONE_HOME_FAILED, 0, age)
                self._latch(P.F_HOME)
        elif name == "rotate":
            if age >= m[4]:
                self._done(P.DONE_OK, int(self.servo.angle * 10), age)
        elif name == "reverse":
            if age >= m[4]:
                self.motor.off()
                self.take.off()
                self.exit.arm()  # a card pulled back out of the beam is not a card that left
                self._done(P.DONE_OK, age, 0)
        elif name == "eject":
            self._eject(m, now, age)
        elif name == "shuffle":
            self._shuffle(m, now, age)

    def _eject(self, m, now, age):
        # phases: 0 pick to the leading-edge sensor, 1 hand-off to the take-away nip, 2 through the
        # counting beam, 3 down the chute (the turntable must not turn before the card has left it)
        ex = self.exit
        if m[2] == 3:
            if time.ticks_diff(now, m[3]) >= config.CHUTE_MS:
                self._done(m[7], m[8], m[9])
            return
        pulse = ex.pulse_us()  # first: after a slow pass of the loop the card may be through already
        if pulse is None and m[2] == 0:
            if self.edge.active() or ex.blocked():  # (not a stamp: an EMI glitch leaves one)
                m[2], m[3] = 1, now
            elif age > config.EDGE_MS:
                return self._jam(now)
        if m[2] == 1 and time.ticks_diff(now, m[3]) >= config.HANDOFF_MS:
            self.motor.brake()  # the nip has the card; the next one stays behind the gate
            m[2] = 2
        if pulse is not None:
            self.take.brake()
            self.motor.brake()
            m[8], m[9] = pulse, time.ticks_diff(ex.pulse_start(), self.eject_us)
            ex.arm()  # this pulse is accounted for
            self.ejects += 1
            self.jams = 0
            self.queue_event("card_passed", (pulse, now))
            m[7] = P.DONE_DOUBLE if pulse > self.double_us else P.DONE_OK
            m[2], m[3] = 3, now
            return
        blocked = ex.blocked_at is not None and ex.cleared_at is None
        stuck = blocked and time.ticks_diff(time.ticks_us(), ex.blocked_at) > config.STUCK_MS * 1000
        if (ex.blocked_at is None and age > config.JAM_MS) or stuck:
            self._jam(now)

    def _jam(self, now):
        self.motor.brake()
        self.take.brake()
        self.jams += 1
        self.queue_event("jam", (self.jams, now))
        self._done(P.DONE_JAM, self.jams, 0)
        if self.jams >= P.JAM_TRIES:
            self._latch(P.F_JAM)

    def _shuffle(self, m, now, age):
        # phase 0: relay on, riffling; phase 1: gap between passes (relay off)
        if m[2] == 0:
            if config.CURRENT_SENSE:
                if self.current.active():
                    if len(m) < 8:
                        m += [now, now]  # first loaded at, last loaded at
                    m[8] = now
                riffled = len(m) >= 8 and time.ticks_diff(m[8], m[7]) >= config.RIFFLE_MIN_MS
                unloaded = len(m) < 8 or time.ticks_diff(now, m[8]) >= config.UNLOADED_MS
                finished = age >= config.PASS_MIN_MS and unloaded
                if finished and not riffled:
                    self.relay.off()
                    self._done(P.DONE_NO_CARDS, m[5], time.ticks_diff(now, m[6]))
                    return
            else:
                finished = age >= config.PASS_MS
            if finished or age > config.PASS_MAX_MS:
                self.relay.off()
                del m[7:]
                if not finished:
                    self._done(P.DONE_SHUFFLER, m[5], time.ticks_diff(now, m[6]))
                    self._latch(P.F_SHUFFLER)
                    return
                m[5] += 1
                if m[5] >= m[4]:
                    self._done(P.DONE_OK, m[5], time.ticks_diff(now, m[6]))
                    return
                m[2] = 1
                m[3] = now
        elif age >= config.PASS_GAP_MS:
            self.relay.on()
            m[2] = 0
            m[3] = now

    # ------------------------------------------------------------------ the loop
    def flags(self):
        f = 0
        if self.homed:
            f |= P.FL_HOMED
        if self.motion is not None:
            f |= P.FL_BUSY
        if self.hopper.active():
            f |= P.FL_HOPPER
        if self.relay.is_on():
            f |= P.FL_RELAY
        if self.motor.running or self.take.running:
            f |= P.FL_EJECTOR
        if self.estop_in.active():
            f |= P.FL_ESTOP_IN
        if self.connected:
            f |= P.FL_CONNECTED
        return f

    def step(self):
        now = time.ticks_ms()
        self._safety(now)
        self._receive()
        now = time.ticks_ms()
        self._motion(now)
        if self.connected and time.ticks_diff(now, self.last_beat) >= config.HEARTBEAT_MS:
            self.last_beat = now
            self.queue_event("heartbeat", (now, self.flags(), self.fault))
            self.led.value(1 if self.fault else (now // config.HEARTBEAT_MS) & 1)
        self._pump_events(now)
        self.wdt.feed()
        if self.reset_at is not None and time.ticks_diff(now, self.reset_at) >= 0:
            self.all_off()
            machine.reset()  # main.py finds the flag and leaves the REPL free for this boot
