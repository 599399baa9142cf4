# The rig's serial protocol: ONE definition of the messages and the framing for both ends.
#
# This file runs unchanged on the Pico (MicroPython) and on the host, where it is loaded by path as
# ``firmware_bridge.protocol``. Keep it to the MicroPython subset: only ``struct``, no typing, no
# dataclasses, no f-string debugging specifiers, no CPython-only library.
#
# Frame on the wire:  COBS( kind:u8 | seq:u16 | msg:u8 | payload... | crc16:u16 ) 0x00
#   kind  CMD (host->mcu, needs a REPLY), REPLY (mcu->host: the ack of a CMD with its answer),
#         EVENT (mcu->host, needs an ACK), ACK (host->mcu), NAK (either way: "I got a bad frame").
#   seq   CMD: host's sequence number; REPLY: the CMD's seq; EVENT: the mcu's; ACK: the EVENT's seq.
#   crc16 CRC16-CCITT (poly 0x1021, init 0xFFFF) over kind..payload, big-endian.
# COBS removes every 0x00 from the frame, so 0x00 is the delimiter and a damaged frame costs only itself.
import struct

PROTOCOL_VERSION = 1
FW_VERSION = (0, 6)

CMD = 1
REPLY = 2
EVENT = 3
ACK = 4
NAK = 5
KIND_NAMES = {CMD: "cmd", REPLY: "reply", EVENT: "event", ACK: "ack", NAK: "nak"}

MAX_FRAME = 64  # decoded bytes; anything longer is garbage

# Reply status codes
OK = 0
ACCEPTED = 1  # a motion command was started; a DONE event follows
BUSY = 2
FAULTED = 3  # a latched fault is in force; clear it first
NOT_CONNECTED = 4  # no HELLO since this boot (the mcu rebooted)
NOT_HOMED = 5
EMPTY = 6  # hopper empty
BAD_ARGS = 7
UNKNOWN = 8
BLOCKED = 9  # eject refused: the counting beam is blocked before the rollers start (clear the path)
STATUS_NAMES = {BLOCKED: "card path blocked", OK: "ok", ACCEPTED: "accepted", BUSY: "busy", FAULTED: "faulted",
                NOT_CONNECTED: "not connected", NOT_HOMED: "not homed", EMPTY: "hopper empty",
                BAD_ARGS: "bad arguments", UNKNOWN: "unknown command"}

# DONE outcomes
DONE_OK = 0
DONE_JAM = 1
DONE_DOUBLE = 2  # eject: the exit pulse was that of two cards
DONE_HOME_FAILED = 3
DONE_ABORTED = 4  # e-stop or host silence stopped the motion
DONE_SHUFFLER = 5  # shuffler did not stop within its time
DONE_NO_CARDS = 6  # shuffle: the motor ran unloaded, no cards riffled (empty bins, stack not returned)
DONE_NAMES = {DONE_NO_CARDS: "no cards riffled", DONE_OK: "ok", DONE_JAM: "jam", DONE_DOUBLE: "double feed", DONE_HOME_FAILED: "home failed",
              DONE_ABORTED: "aborted", DONE_SHUFFLER: "shuffler stuck"}

# Latched fault codes
F_NONE = 0
F_JAM = 1
F_ESTOP = 2
F_HOME = 3
F_HOST_SILENCE = 4
F_SHUFFLER = 5
FAULT_NAMES = {F_NONE: "none", F_JAM: "jam", F_ESTOP: "e-stop", F_HOME: "homing failed",
               F_HOST_SILENCE: "host silent", F_SHUFFLER: "shuffler stuck"}

# Status flag bits (STATUS reply, HEARTBEAT)
FL_HOMED = 1
FL_BUSY = 2
FL_HOPPER = 4
FL_RELAY = 8
FL_EJECTOR = 16
FL_ESTOP_IN = 32
FL_CONNECTED = 64

# Reset causes (as machine.reset_cause() on the rp2 port)
# (rp2: the RUN pin, pulled by the host's reset relay or a button, reads 2; machine.reset() goes through the
# watchdog and reads 3 like a watchdog bite; a soft reset (Ctrl-D) does not reset the chip at all)
RESET_NAMES = {0: "unknown", 1: "power on", 2: "reset pin (relay or button)", 3: "watchdog or machine.reset()",
               4: "deep sleep", 5: "soft reset"}

# The number of tries an eject gets before a jam latches (the first + two retries after reversing).
JAM_TRIES = 3

# Commands: id -> (name, argument format, argument names, reply format, reply names, motion?)
# A reply's payload is status:u8 followed by the reply fields (zeros when the status is not ok/accepted).
COMMANDS = {
    1: ("hello", "<I", ("host_nonce",),
        "<IBBBHB", ("boot_id", "fw_major", "fw_minor", "protocol_version", "protocol_hash", "reset_cause"),
        False),
    2: ("ping", "<", (), "<I", ("uptime_ms",), False),
    3: ("count", "<", (), "<I", ("count",), False),
    4: ("status", "<", (),
        "<BBHHIII", ("flags", "fault", "angle10", "ejects", "crc_errors", "retransmits", "uptime_ms"), False),
    5: ("home", "<", (), "<", (), True),
    6: ("rotate", "<H", ("angle10",), "<", (), True),
    7: ("eject", "<B", ("attempt",), "<", (), True),
    8: ("reverse", "<H", ("ms",), "<", (), True),
    9: ("shuffle", "<B", ("passes",), "<", (), True),
    10: ("estop", "<", (), "<", (), False),
    11: ("clear", "<", (), "<B", ("was",), False),
    # everything off, then reboot once into MicroPython's REPL (not the firmware), so mpremote can flash it
    12: ("repl", "<", (), "<", (), False),
    # the exit-pulse thresholds calibration measured (0, 0: only read them); kept in the Pico's flash
    13: ("pulses", "<II", ("single_us", "double_us"), "<II", ("single_us", "double_us"), False),
}

# Events (mcu -> host): id -> (name, format, field names)
EVENTS = {
    64: ("boot", "<IBBBHB", ("boot_id", "fw_major", "fw_minor", "protocol_version", "protocol_hash",
                             "reset_cause")),
    65: ("done", "<HBBIII", ("ref", "cmd", "outcome", "value", "extra", "t_ms")),
    66: ("card_passed", "<II", ("pulse_us", "t_ms")),
    67: ("jam", "<BI", ("attempt", "t_ms")),
    68: ("estop", "<BI", ("source", "t_ms")),
    69: ("fault", "<BI", ("code", "t_ms")),
    70: ("heartbeat", "<IBB", ("uptime_ms", "flags", "fault")),
}

CMD_IDS = {}
for _k in COMMANDS:
    CMD_IDS[COMMANDS[_k][0]] = _k
EVENT_IDS = {}
for _k in EVENTS:
    EVENT_IDS[EVENTS[_k][0]] = _k


class FrameError(ValueError):
    """A frame that cannot be decoded (bad COBS, bad CRC, too short, unknown message, bad payload)."""


def crc16(data, crc=0xFFFF):
    """CRC16-CCITT (poly 0x1021, init 0xFFFF, no reflection): crc16(b"123456789") == 0x29B1."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def cobs_encode(data):
    out = bytearray()
    code_pos = 0
    out.append(0)
    code = 1
    for b in data:
        if b == 0:
            out[code_pos] = code
            code_pos = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_pos] = code
                code_pos = len(out)
                out.append(0)
                code = 1
    out[code_pos] = code
    return bytes(out)


def cobs_decode(data):
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("cobs: zero byte inside a frame")
        i += 1
        end = i + code - 1
        if end > n:
            raise FrameError("cobs: block runs past the end")
        for j in range(i, end):
            if data[j] == 0:
                raise FrameError("cobs: zero byte inside a frame")
            out.append(data[j])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def _schema(kind, msg):
    if kind == CMD:
        spec = COMMANDS.get(msg)
        if spec is None:
            raise FrameError("unknown command id %d" % msg)
        return spec[1], spec[2]
    if kind == EVENT:
        spec = EVENTS.get(msg)
        if spec is None:
            raise FrameError("unknown event id %d" % msg)
        return spec[1], spec[2]
    if kind == REPLY:
        spec = COMMANDS.get(msg)
        if spec is None:
            raise FrameError("reply to unknown command id %d" % msg)
        return "<B" + spec[3][1:], ("status",) + spec[4]
    return "<", ()


def pack_payload(kind, msg, values):
    fmt, names = _schema(kind, msg)
    if len(values) != len(names):
        raise FrameError("message %d takes %d fields, got %d" % (msg, len(names), len(values)))
    return struct.pack(fmt, *values)


def encode(kind, seq, msg=0, values=()):
    """One frame, ready for the wire (COBS-encoded, 0x00-terminated)."""
    body = struct.pack("<BHB", kind, seq & 0xFFFF, msg) + pack_payload(kind, msg, values)
    c = crc16(body)
    return cobs_encode(body + bytes((c >> 8, c & 0xFF))) + b"\x00"


def decode(frame):
    """Decode one frame (without its 0x00): returns (kind, seq, msg, values) or raises FrameError."""
    if len(frame) > MAX_FRAME + 4:
        raise FrameError("frame too long (%d bytes)" % len(frame))
    raw = cobs_decode(frame)
    if len(raw) < 6:
        raise FrameError("frame too short (%d bytes)" % len(raw))
    body = raw[:-2]
    if crc16(body) != (raw[-2] << 8) | raw[-1]:
        raise FrameError("crc mismatch")
    kind, seq, msg = struct.unpack("<BHB", body[:4])
    if kind not in KIND_NAMES:
        raise FrameError("unknown frame kind %d" % kind)
    fmt, names = _schema(kind, msg)
    payload = body[4:]
    if len(payload) != struct.calcsize(fmt):
        raise FrameError("payload of %d bytes for message %d, expected %d"
                         % (len(payload), msg, struct.calcsize(fmt)))
    return kind, seq, msg, struct.unpack(fmt, payload)


class FrameDecoder:
    """Splits a byte stream on 0x00 and decodes each frame. ``feed`` returns a list of items:
    (kind, seq, msg, values) for good frames, and a FrameError instance for each bad one
    (so the caller can NAK it and count it). ``errors`` counts bad frames."""

    def __init__(self):
        self.buf = bytearray()
        self.errors = 0
        self.overflow = False

    def feed(self, data):
        out = []
        for b in data:
            if b == 0:
                if self.overflow:
                    self.errors += 1
                    out.append(FrameError("frame too long"))
                elif len(self.buf):
                    try:
                        out.append(decode(bytes(self.buf)))
                    except FrameError as e:
                        self.errors += 1
                        out.append(e)
                self.buf = bytearray()
                self.overflow = False
            elif not self.overflow:
                self.buf.append(b)
                if len(self.buf) > MAX_FRAME + 4:
                    self.overflow = True
                    self.buf = bytearray()
        return out


    def pending(self):
        """True while a frame has started but not ended."""
        return len(self.buf) > 0 or self.overflow

    def flush(self):
        """The line went quiet in mid-frame: drop it. Returns a FrameError (to NAK), or None."""
        if not self.pending():
            return None
        self.buf = bytearray()
        self.overflow = False
        self.errors += 1
        return FrameError("frame cut short (line quiet mid-frame)")


def protocol_hash():
    """A 16-bit fingerprint of the message set: both ends compare it at connect."""
    parts = [str(PROTOCOL_VERSION)]
    for k in sorted(COMMANDS):
        c = COMMANDS[k]
        parts.append("C%d:%s:%s:%s:%s:%s" % (k, c[0], c[1], ",".join(c[2]), c[3], ",".join(c[4])))
    for k in sorted(EVENTS):
        e = EVENTS[k]
        parts.append("E%d:%s:%s:%s" % (k, e[0], e[1], ",".join(e[2])))
    return crc16("|".join(parts).encode())


PROTOCOL_HASH = protocol_hash()
