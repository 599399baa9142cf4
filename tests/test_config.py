import pytest

from controller.config import ConfigError, load_config, to_toml


def test_defaults_describe_the_virtual_rig():
    cfg = load_config(env={})
    assert cfg.serial_port == "sim" and cfg.camera_url == "sim"
    assert cfg.seats == 4 and len(cfg.servo_angles) == 4


def test_toml_file_and_env_override(tmp_path):
    f = tmp_path / "rig.toml"
    f.write_text('serial_port = "/dev/hongsi-mcu"\nseats = 3\nservo_angles = [10, 100, 190]\n'
                 'shuffle_passes = 4\n')
    cfg = load_config(f, env={"HONGSI_SHUFFLE_PASSES": "9"})
    assert cfg.serial_port == "/dev/hongsi-mcu" and cfg.seats == 3
    assert cfg.servo_angles == [10, 100, 190]
    assert cfg.shuffle_passes == 9  # the environment wins over the file
    assert 'serial_port = "/dev/hongsi-mcu"' in to_toml(cfg)


def test_config_env_variable_names_the_file(tmp_path):
    f = tmp_path / "x.toml"
    f.write_text("seats = 2\nservo_angles = [0, 180]\n")
    assert load_config(env={"HONGSI_CONFIG": str(f)}).seats == 2


@pytest.mark.parametrize("text, key, value", [
    ("seats = 12\n", "seats", "12"),
    ('shuffle_passes = "many"\n', "shuffle_passes", "many"),
    ("servo_angles = [0, 90, 500, 10]\n", "servo_angles", "500"),
    ("servo_angles = [0, 90]\n", "servo_angles", "seats = 4"),
    ('game = "poker"\n', "game", "poker"),
    ("colour = 3\n", "colour", "3"),
])
def test_bad_values_name_key_and_value(tmp_path, text, key, value):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_config(f, env={})
    assert key in str(exc.value) and value in str(exc.value)


def test_bad_env_value_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="port"):
        load_config(env={"HONGSI_PORT": "99999"})
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml", env={})
    broken = tmp_path / "broken.toml"
    broken.write_text("seats = = 4\n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(broken, env={})


def test_config_show_never_prints_the_club_password(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from controller.cli import app

    path = tmp_path / "hongsi.toml"
    path.write_text('[club]\nbroker = "mqtts://t1@club.local:8883/room/t1"\npassword = "hunter2-secret"\n')
    out = CliRunner().invoke(app, ["config", "show", "--config", str(path)])
    assert out.exit_code == 0, out.output
    assert "hunter2-secret" not in out.output and 'password = "<set>"' in out.output
