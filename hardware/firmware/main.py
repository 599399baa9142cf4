# Entry point on the Pico: USB serial in raw bytes, then the main loop forever.
# The first statement turns Ctrl-C off: a 0x03 byte from the host while the rest imports (the .mpy files
# load in ~40 ms) must not drop the board into its REPL with no watchdog running.
import micropython; micropython.kbd_intr(-1)  # noqa: E401, E702 - first, before anything else

import sys
import time

import select

from firmware import REPL_BANNER, Firmware, repl_requested


class UsbSerial:
    """The USB CDC port as raw bytes (Ctrl-C is data here, not an interrupt)."""

    def __init__(self):
        micropython.kbd_intr(-1)
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poll = select.poll()
        self.poll.register(self.inp, select.POLLIN)

    def read(self):
        data = bytearray()
        while len(data) < 256 and self.poll.poll(0):
            data += self.inp.read(1)
        return bytes(data) if data else None

    def write(self, data):
        self.out.write(data)


def start():
    """The firmware on the USB port, or None when the host asked for the REPL this boot."""
    if repl_requested():  # the host asked for the REPL (hongsi firmware flash): no firmware this boot
        print(REPL_BANNER)
        return None
    return Firmware(UsbSerial())


def main():
    fw = start()
    if fw is None:
        return
    while True:
        fw.step()
        time.sleep_ms(1)


if __name__ == "__main__":
    main()
