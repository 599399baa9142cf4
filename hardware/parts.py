"""The parts table and every timing the rig uses, derived from the parts' datasheet figures.

ONE place: the firmware's ``config.py`` (between the ``timing`` markers), the simulator (which reads that
``config``) and ``hardware/timing.md`` are all written from here. Change a part, then run

    python hardware/parts.py          # rewrites the block in config.py and hardware/timing.md

``tests/rig/test_timing_from_parts.py`` fails when either is out of date (checked by hash, like
``protocol.py``). Host-side Python only (CPython): the Pico gets the numbers, not this file.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "firmware" / "config.py"
DOC = HERE / "timing.md"

# Each part: the figures used, and where they come from. Speeds are derated from no-load by the load
# and the supply actually used; "tol" is the spread a batch of brushed motors shows (±10 % is the usual
# catalogue tolerance for gearmotor speed).
PARTS = {
    "card": {"what": "poker-size card (63 × 88 mm); bridge 57 × 88; 掼蛋 tall cards fit the guides",
             "length_mm": 88.0, "thick_mm": 0.30},
    "pick_motor": {"what": "Pololu micro metal gearmotor HPCB 6 V 50:1 (#3073) on DRV8833 channel A",
                   "no_load_rpm_6v": 625.0, "stall_a_6v": 1.5, "supply_v": 5.0, "load_share": 0.05,
                   "tol": 0.10, "roller_mm": 20.0, "spin_up_ms": 15.0},
    "takeaway_motor": {"what": "Pololu micro metal gearmotor HPCB 6 V 30:1 (#3072) on DRV8833 channel B",
                       "no_load_rpm_6v": 1000.0, "stall_a_6v": 1.5, "supply_v": 5.0, "load_share": 0.05,
                       "tol": 0.10, "roller_mm": 25.0, "spin_up_ms": 15.0, "brake_coast_mm": 1.5},
    "driver": {"what": "TI DRV8833 dual H-bridge (nSLEEP tied to a Pico pin, pulled low)",
               "rds_on_ohm": 0.36, "run_a": 0.15},
    "path": {"what": "separator gate → leading-edge sensor → take-away nip → counting beam → chute",
             "gate_to_edge_mm": 8.0, "edge_to_nip_mm": 14.0, "nip_to_beam_mm": 20.0, "chute_mm": 70.0,
             "chute_speed_share": 0.7},
    # the receiver's output as a card crosses: it chatters while the edge is in the 1 mm aperture; thin
    # or light card stock lets some IR through for a moment; the brushed motors' EMI gives short false
    # "blocked" readings (estimates for a harsh build: no datasheet gives these)
    "beam": {"what": "Vishay TSSP4038 38 kHz IR receiver + TSAL6200 emitter (modulated: no ambient leak)",
             "response_us": 250.0, "aperture_mm": 1.0, "bounce_flips": 2, "leak_share": 0.05,
             "leak_ms": 0.5, "glitch_per_s": 0.5},
    "servo": {"what": "TowerPro MG996R, 180°, 500–2500 µs, geared 1.5:1 up to the turntable",
              "range_deg": 180.0, "min_us": 500, "max_us": 2500, "s_per_60deg_4v8": 0.17,
              "s_per_60deg_6v": 0.14, "supply_v": 6.0, "load_share": 0.8, "gear": 1.5,
              "settle_ms": 120.0, "overshoot_deg": 3.0, "deadband_us": 5},
    # after a reset: MicroPython starts TinyUSB before it runs boot.py and main.py, so the host may see the
    # port again (enumeration, cdc_acm, udev) before main.py's first statement turns Ctrl-C off: the
    # harsh order (estimates: no datasheet gives them; the host waits up to 10 s for the port)
    "pico": {"what": "Raspberry Pi Pico (RP2040), MicroPython 1.24, main.py from precompiled .mpy",
             "usb_enum_ms": 400.0, "main_ms": 450.0, "boot_ms": 850.0, "soft_irq_us": 40.0},
    # a frame: exposed (fixed by calibration, under the LED ring), read out line by line (rolling shutter),
    # through the ISP and picamera2's buffer queue to the application (isp_ms: an estimate)
    "camera": {"what": "Pi Camera Module 3 (IMX708), 1536 × 864 mode at 30 fps, focus 12 cm",
               "frame_ms": 33.3, "exposure_ms": 8.0, "readout_ms": 17.0, "isp_ms": 30.0, "min_focus_cm": 10.0,
               "window_cm": 12.0},
}


def _speed_m_s(m: dict) -> float:
    """Surface speed of a roller on a gearmotor: rpm scales with the voltage the motor sees (supply less
    the driver's drop), less the share the light card load takes."""
    drv = PARTS["driver"]
    volts = m["supply_v"] - drv["rds_on_ohm"] * drv["run_a"]
    rpm = m["no_load_rpm_6v"] * volts / 6.0 * (1.0 - m["load_share"])
    return math.pi * m["roller_mm"] / 1000.0 * rpm / 60.0


def _servo_deg_s() -> float:
    s = PARTS["servo"]
    # the datasheet's two points, interpolated to the supply, derated for the turntable's inertia
    per60 = s["s_per_60deg_4v8"] + (s["supply_v"] - 4.8) / 1.2 * (s["s_per_60deg_6v"] - s["s_per_60deg_4v8"])
    return 60.0 / per60 * s["load_share"]


def derive() -> dict:
    """Every timing constant, in the units the firmware uses (ms, µs, degrees), rounded as it stores them."""
    card, path, pick, take = PARTS["card"], PARTS["path"], PARTS["pick_motor"], PARTS["takeaway_motor"]
    v_pick, v_take = _speed_m_s(pick), _speed_m_s(take)  # m/s == mm/ms
    slow, fast = 1.0 - take["tol"], 1.0 + take["tol"]
    single_ms = card["length_mm"] / v_take
    single_max = card["length_mm"] / (v_take * slow)
    single_min = card["length_mm"] / (v_take * fast)
    travel_ms = (pick["spin_up_ms"] + (path["gate_to_edge_mm"] + path["edge_to_nip_mm"]) / v_pick
                 + path["nip_to_beam_mm"] / v_take)
    travel_max = (pick["spin_up_ms"] + (path["gate_to_edge_mm"] + path["edge_to_nip_mm"]) / (v_pick * slow)
                  + path["nip_to_beam_mm"] / (v_take * slow))
    handoff_max = pick["spin_up_ms"] + (path["gate_to_edge_mm"] + path["edge_to_nip_mm"]) / (v_pick * slow)
    chute_ms = path["chute_mm"] / (v_take * slow * path["chute_speed_share"])
    servo = PARTS["servo"]
    table_deg_s = _servo_deg_s() * servo["gear"]
    firm_deg_s = table_deg_s * 0.85  # the firmware assumes a little less than the servo does
    out = {
        "CARD_MM": card["length_mm"],
        "GATE_TO_EDGE_MM": path["gate_to_edge_mm"],
        "EDGE_TO_NIP_MM": path["edge_to_nip_mm"],
        "NIP_TO_BEAM_MM": path["nip_to_beam_mm"],
        "CHUTE_MM": path["chute_mm"],
        "CHUTE_SPEED_SHARE": path["chute_speed_share"],
        "SPIN_UP_MS": pick["spin_up_ms"],
        "COAST_MM": take["brake_coast_mm"],
        "SPEED_TOL": take["tol"],
        "PICK_MM_S": round(v_pick * 1000.0, 1),
        "TAKEAWAY_MM_S": round(v_take * 1000.0, 1),
        "SINGLE_PULSE_US": int(round(single_ms * 1000)),
        "SINGLE_MAX_US": int(math.ceil(single_max * 1000)),
        "GLITCH_US": int(single_min * 1000 / 2),  # shorter than half the shortest card: not a card
        "DOUBLE_PULSE_US": int(math.ceil(single_max * 1.08 * 1000)),  # above the slowest single, with margin
        "EDGE_MS": int(math.ceil(handoff_max * 1.5)),  # no card at the leading-edge sensor by then: a mis-pick
        "HANDOFF_MS": int(math.ceil(path["edge_to_nip_mm"] / (v_pick * slow) + 5)),  # edge -> nip: pick stops
        "TRAVEL_MS": int(round(travel_ms)),
        "JAM_MS": int(math.ceil(travel_max * 1.5 + 20)),
        "STUCK_MS": int(math.ceil(single_max * 2.5)),  # longer than any double: a card stuck in the beam
        "CHUTE_MS": int(math.ceil(chute_ms)),
        "SERVO_RANGE_DEG": round(servo["range_deg"] * servo["gear"], 1),  # at the turntable
        "SERVO_GEAR": servo["gear"],
        "SERVO_MIN_US": servo["min_us"],
        "SERVO_MAX_US": servo["max_us"],
        "SERVO_DEG_PER_S": round(firm_deg_s, 1),
        "TABLE_DEG_PER_S": round(table_deg_s, 1),
        "SERVO_SETTLE_MS": int(servo["settle_ms"]),
        "SERVO_OVERSHOOT_DEG": servo["overshoot_deg"] * servo["gear"],
        "BOOT_MS": int(PARTS["pico"]["boot_ms"]),
        "USB_ENUM_MS": int(PARTS["pico"]["usb_enum_ms"]),  # reset -> the port is back on the host
        "MAIN_MS": int(PARTS["pico"]["main_ms"]),  # reset -> main.py's first statement (Ctrl-C off)
        "SOFT_IRQ_US": int(PARTS["pico"]["soft_irq_us"]),
        "FRAME_MS": PARTS["camera"]["frame_ms"],
        "CAM_EXPOSURE_MS": PARTS["camera"]["exposure_ms"],
        "CAM_READOUT_MS": PARTS["camera"]["readout_ms"],
        "CAM_ISP_MS": PARTS["camera"]["isp_ms"],  # the ISP, the buffer queue, to the application
        "BOUNCE_US": int(PARTS["beam"]["response_us"] * 8),  # a flicker inside one card, merged
        "EDGE_BOUNCE_MS": round(PARTS["beam"]["aperture_mm"] / v_take, 2),  # an edge crossing the aperture
        "BOUNCE_FLIPS": PARTS["beam"]["bounce_flips"],
        "LEAK_SHARE": PARTS["beam"]["leak_share"],
        "LEAK_MS": PARTS["beam"]["leak_ms"],
        "BEAM_GLITCH_PER_S": PARTS["beam"]["glitch_per_s"],
        "ESTOP_CONFIRM_MS": 5,  # RC filter 10 kΩ × 100 nF = 1 ms; the level must hold 5 τ
    }
    out["PARTS_HASH"] = parts_hash()
    return out


def parts_hash() -> int:
    text = json.dumps(PARTS, sort_keys=True, ensure_ascii=False).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")


BEGIN = "# ---- timing: BEGIN (generated by hardware/parts.py from the parts table; do not edit here)\n"
END = "# ---- timing: END\n"


def config_block(t: dict | None = None) -> str:
    t = t or derive()
    lines = [f"{k} = {v!r}\n" for k, v in t.items()]
    return BEGIN + "".join(lines) + END


def rewrite_config(text: str) -> str:
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit("config.py has no timing markers")
    return pattern.sub(lambda _m: config_block(), text)


def doc() -> str:
    t = derive()
    rows = "\n".join(f"| `{k}` | {v} |" for k, v in t.items())
    parts = "\n".join(f"| {name} | {p['what']} | "
                      + ", ".join(f"{k} {v}" for k, v in p.items() if k != "what") + " |"
                      for name, p in PARTS.items())
    bound = mechanical_card_ms(t)
    return (
        "# Timing from the parts\n\n"
        "Generated by `python hardware/parts.py` from the parts table in `hardware/parts.py`; the firmware's\n"
        "`config.py` holds the same numbers (checked by `tests/rig/test_timing_from_parts.py`).\n\n"
        "| part | what | figures |\n|---|---|---|\n" + parts + "\n\n"
        "| constant | value |\n|---|---|\n" + rows + "\n\n"
        f"Mechanical bound of one card, rotate between seats included: **{bound:.0f} ms** "
        f"(**{1000 / bound:.2f} cards/s**). Commercial dealers deal 2–4 cards/s.\n")


def mechanical_card_ms(t: dict | None = None, seat_step_deg: float = 90.0) -> float:
    """The least time a card takes in a round-robin deal: travel, the card through the beam, the chute,
    then the turntable's step to the next seat and its settling (the firmware's own figures)."""
    t = t or derive()
    rotate = seat_step_deg * 1000.0 / t["SERVO_DEG_PER_S"] + t["SERVO_SETTLE_MS"]
    return t["TRAVEL_MS"] + t["SINGLE_PULSE_US"] / 1000.0 + t["CHUTE_MS"] + rotate


def main() -> int:
    CONFIG.write_text(rewrite_config(CONFIG.read_text(encoding="utf-8")), encoding="utf-8")
    DOC.write_text(doc(), encoding="utf-8")
    print(f"wrote {CONFIG} and {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
