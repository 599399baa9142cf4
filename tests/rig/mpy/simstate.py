# The co-simulation's shared state on the MicroPython side: the host's clock as integers (exactly as the
# CPython stand-ins compute them), the input levels of this step, and the outputs to send back.
T = [0, 0]        # [ms, us] of the host's model clock, floored as sim/fakes.py floors them
START = [0]       # the boot's tick start (ms), to see the ticks wrap
LEVELS = {}
OUT = []
IRQS = {}
