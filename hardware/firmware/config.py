# The Pico's pin map and timings. One file to edit per build; the virtual rig wires its model from it.
# Times are milliseconds of the Pico's own clock.

# ---- pins (GPIO numbers on the Pico; see hardware/wiring.md)
PIN_SERVO = 15          # turntable servo signal, PWM 50 Hz
PIN_EJECT_A = 16        # DRV8833 AIN1 (PWM): forward
PIN_EJECT_B = 17        # DRV8833 AIN2 (PWM): reverse
PIN_EXIT = 18           # IR break-beam receiver at the exit throat: LOW while a card blocks the beam
PIN_HOPPER = 19         # reflective IR card-present sensor: LOW while a card lies in the hopper
PIN_ENDSTOP = 20        # turntable home switch at angle 0: LOW when pressed
PIN_ESTOP = 21          # e-stop, normally-closed to GND: HIGH = pressed (or the wire is cut)
PIN_RELAY = 22          # shuffler relay (opto-isolated module): HIGH = shuffler powered
PIN_CURRENT = 26        # shuffler current comparator: HIGH while the motor is loaded (cards riffling)
PIN_LED = 25            # the Pico's own LED: blinks with the heartbeat, steady on a fault

# ---- turntable servo
SERVO_RANGE_DEG = 270.0
SERVO_MIN_US = 500
SERVO_MAX_US = 2500
SERVO_DEG_PER_S = 300.0  # what the firmware assumes (the servo is a little faster)
SERVO_SETTLE_MS = 60
HOME_ANGLE = 0.0
HOME_TIMEOUT_MS = 1500

# ---- ejector
EJECT_DUTY = 50000          # u16 PWM duty of the ejector motor
JAM_MS = 400                # no leading edge at the exit within this: a jam
STUCK_MS = 600              # the beam blocked this long: a jam
SINGLE_PULSE_US = 73000     # one 88 mm card at 1.2 m/s
DOUBLE_RATIO = 1.18         # a pulse longer than this many single pulses is two cards
REVERSE_MS = 120

# ---- shuffler
CURRENT_SENSE = True        # False: run each pass for PASS_MS (no current sensor fitted)
PASS_MS = 3500
PASS_MIN_MS = 400
PASS_MAX_MS = 8000
PASS_GAP_MS = 800           # re-split between passes

# ---- safety and link
WDT_MS = 2000
HOST_SILENCE_MS = 1000      # motors off when the host has been silent this long while anything moves
HEARTBEAT_MS = 250
FRAME_GAP_MS = 5            # the line quiet this long in mid-frame: the frame is lost, NAK it
RETX_MS = 40                # first event retransmit; doubles up to RETX_MAX_MS
RETX_MAX_MS = 640
EVENT_QUEUE = 24

# ---- flashing
REPL_FLAG = "hongsi_repl_once"  # in flash: the next boot leaves the REPL to mpremote (command "repl")
REPL_RESET_MS = 200             # the reply's time to reach the host (and any retransmission) before the reset
