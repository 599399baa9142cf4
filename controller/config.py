"""The rig's configuration: a TOML file with environment overrides (pydantic-settings).

Where it is read from, first found wins: the ``--config`` path, ``$HONGSI_CONFIG``, ``./hongsi.toml``,
``/etc/hongsi/config.toml``. Every key can be overridden by ``HONGSI_<KEY>`` (e.g.
``HONGSI_SHUFFLE_PASSES=5``). The defaults describe the virtual rig.

>>> cfg = load_config(path=None, env={})
>>> cfg.seats, cfg.serial_port
(4, 'sim')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from engine.registry import DEFAULT_GAME


def _firmware_pulse_ms(name: str) -> float:
    """A pulse the firmware's config derives from the parts (one place for the rig, the sim and the docs)."""
    from firmware_bridge.sim.fakes import load_config as firmware_config

    return round(getattr(firmware_config(), name) / 1000, 1)


SEARCH_PATHS = (Path("hongsi.toml"), Path("/etc/hongsi/config.toml"))


class ConfigError(ValueError):
    """A configuration value is wrong; the message names the key and the value."""


class ClubConfig(BaseModel):
    """``[club]``: the card room this table publishes to (controller/club); empty ``broker`` = none."""

    model_config = ConfigDict(extra="forbid")

    broker: str = Field("", description="mqtts://<user>@<host>:<port>/<room>/<table>?ca=<ca file>")
    password: str = Field("", description="this table's broker password (or $HONGSI_CLUB_PASSWORD)")
    ca_file: str = Field("", description="the club's CA certificate, when the URL does not name it")
    database: str = Field("", description="the club server's PostgreSQL (postgresql://…)")
    page_port: int = Field(8100, ge=1, le=65535, description="the club's room page")


class TableCameraConfig(BaseModel):
    """``[table_camera]``: the camera over the play area (issue 29); empty ``source`` = none."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field("", description="'' none; 'sim' the virtual table; an MJPEG/RTSP URL, a device, a folder")
    exposure_us: float = Field(0.0, ge=0, description="exposure time in µs; 0 = automatic")
    corners: list[list[float]] = Field(default_factory=list, description="the play area's four corners in the "
                                       "picture, [x, y] each, clockwise from top left (hongsi calibrate)")
    settle_frames: int = Field(4, ge=2, le=60, description="still frames before a picture counts as settled")
    pass_after_s: float = Field(0.0, ge=0, description="a seat that may pass and plays nothing this long "
                                                        "passes (0: only a tap passes)")

    @model_validator(mode="after")
    def _check(self) -> TableCameraConfig:
        if self.corners and (len(self.corners) != 4 or any(len(p) != 2 for p in self.corners)):
            raise ValueError(f"corners = {self.corners}: four [x, y] points, or none")
        return self


class RigConfig(BaseSettings):
    """Everything that differs between one table's rig and another's."""

    model_config = SettingsConfigDict(env_prefix="HONGSI_", extra="forbid", validate_default=True)

    serial_port: str = Field("sim", description="serial device of the microcontroller; 'sim' = virtual rig")
    baud: int = Field(115200, gt=0)
    camera_url: str = Field("sim", description="camera source: 'sim', an MJPEG/RTSP URL, a device, a folder")
    seats: int = Field(4, ge=2, le=8)
    servo_angles: list[float] = Field(default_factory=lambda: [0.0, 90.0, 180.0, 270.0],
                                      description="turntable angle (degrees) pointing at each seat")
    bottom_angle: float = Field(45.0, ge=0, description="turntable angle of the tray for bottom cards (底牌)")
    servo_range: float = Field(270.0, gt=0, le=360, description="the servo's full travel in degrees")
    shuffle_passes: int = Field(1, ge=0, le=30,
                                description="shuffler passes before a deal (1: no stack return to the bins)")
    game: str = Field(DEFAULT_GAME)
    fair_deal: bool = True
    data_dir: Path = Field(Path("~/.local/share/hongsi"), description="journal, images, tokens")
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    voice: bool = True
    exit_pulse_ms: float = Field(default_factory=lambda: _firmware_pulse_ms("SINGLE_PULSE_US"), gt=0, description="one card's pulse at the exit beam (hongsi calibrate)")
    double_pulse_ms: float = Field(default_factory=lambda: _firmware_pulse_ms("DOUBLE_PULSE_US"), gt=0, description="two stuck cards' exit pulse (hongsi calibrate)")
    camera_exposure_us: float = Field(0.0, ge=0, description="camera exposure time in µs; 0 = automatic")
    deck: str = Field("", description="the table's own deck, enrolled by hongsi deck learn ('': the models alone)")
    club: ClubConfig = Field(default_factory=ClubConfig)
    table_camera: TableCameraConfig = Field(default_factory=TableCameraConfig)

    @model_validator(mode="after")
    def _check(self) -> RigConfig:
        self.data_dir = self.data_dir.expanduser()
        if len(self.servo_angles) != self.seats:
            raise ValueError(f"servo_angles = {self.servo_angles}: {len(self.servo_angles)} angles "
                             f"but seats = {self.seats}")
        for a in self.servo_angles:
            if not 0 <= a <= self.servo_range:
                raise ValueError(f"servo_angles = {self.servo_angles}: {a} is outside 0..{self.servo_range}")
        from engine.cards import GAMES

        if self.game not in GAMES:
            raise ValueError(f"game = {self.game!r}: not one of {', '.join(GAMES)}")
        return self


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        if not key:  # a check across keys; its message names them
            parts.append(err["msg"].removeprefix("Value error, "))
            continue
        parts.append(f"{key} = {err.get('input')!r}: {err['msg']}")
    return "bad configuration: " + "; ".join(parts)


def find_config(path: Path | None = None, env: dict[str, str] | None = None) -> Path | None:
    env = os.environ if env is None else env
    if path is not None:
        if not Path(path).exists():
            raise ConfigError(f"config file {str(path)!r} does not exist")
        return Path(path)
    if env.get("HONGSI_CONFIG"):
        return find_config(Path(env["HONGSI_CONFIG"]), env={})
    return next((p for p in SEARCH_PATHS if p.exists()), None)


def load_config(path: Path | None = None, env: dict[str, str] | None = None) -> RigConfig:
    """Load the TOML file (if any) with ``HONGSI_*`` environment overrides; raise :class:`ConfigError`."""
    env = dict(os.environ) if env is None else env
    file = find_config(path, env)

    class _Loader(RigConfig):
        @classmethod
        def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: Any,
                                       env_settings: Any, dotenv_settings: Any, file_secret_settings: Any
                                       ) -> tuple[PydanticBaseSettingsSource, ...]:
            sources: list[PydanticBaseSettingsSource] = [init_settings]
            sources.append(_EnvSource(settings_cls, env))
            if file is not None:
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file=file))
            return tuple(sources)

    try:
        cfg = _Loader()
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    except Exception as exc:  # TOML syntax errors and the like
        raise ConfigError(f"cannot read config {file}: {exc}") from None
    out = RigConfig.model_construct(**cfg.model_dump())
    out.club = ClubConfig(**cfg.club.model_dump())  # a section stays typed
    out.table_camera = TableCameraConfig(**cfg.table_camera.model_dump())
    return out


class _EnvSource(PydanticBaseSettingsSource):
    """``HONGSI_*`` variables from an explicit mapping (testable without touching ``os.environ``)."""

    def __init__(self, settings_cls: type[BaseSettings], env: dict[str, str]):
        super().__init__(settings_cls)
        self.env = env

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        raise NotImplementedError

    def __call__(self) -> dict[str, Any]:
        import json

        out: dict[str, Any] = {}
        for name, field in self.settings_cls.model_fields.items():
            raw = self.env.get(f"HONGSI_{name.upper()}")
            if raw is None:
                continue
            if field.annotation in (list[float],):
                try:
                    out[name] = json.loads(raw)
                except json.JSONDecodeError:
                    out[name] = [s.strip() for s in raw.split(",")]
            else:
                out[name] = raw
        return out


SECRET_KEYS = ("password",)  # never printed: hongsi config show says only that one is set


def to_toml(cfg: RigConfig, *, hide_secrets: bool = False) -> str:
    """The configuration as TOML text (what ``hongsi config show`` prints, secrets hidden)."""
    lines, sections = [], []
    for key, value in cfg.model_dump().items():
        if isinstance(value, dict):  # a [section] (``[club]``) goes after the plain keys
            sections.append((key, value))
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (int, float)):
            text = repr(value)
        elif isinstance(value, list):
            text = "[" + ", ".join(repr(v) for v in value) + "]"
        else:
            text = '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
        lines.append(f"{key} = {text}")
    for name, values in sections:
        if hide_secrets:
            values = {k: ("<set>" if v and k in SECRET_KEYS else v) for k, v in values.items()}
        lines.append(f"\n[{name}]")
        lines += [f"{k} = {v!r}" if isinstance(v, (int, float, list)) and not isinstance(v, bool)
                  else f"{k} = {'true' if v else 'false'}" if isinstance(v, bool)
                  else f"{k} = {_quote(str(v))}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
