# Shared by the MicroPython scripts here: `machine` is the stand-in, and the serial port is in memory.
import sys

import fakemachine

sys.modules["machine"] = fakemachine


class Port:
    def __init__(self):
        self.inbox = bytearray()
        self.sent = bytearray()

    def read(self):
        data = bytes(self.inbox)
        self.inbox = bytearray()
        return data or None

    def write(self, data):
        self.sent += data
