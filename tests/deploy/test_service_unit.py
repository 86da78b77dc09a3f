"""The systemd unit verifies, and agrees with what the installer places and the app expects."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deploy_run import DEPLOY, REPO, UNIT_NAME, install, unit_entries

UNIT = DEPLOY / UNIT_NAME


def _verify(unit: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("systemd-analyze") is None:
        pytest.fail("systemd-analyze is missing (package systemd); run scripts/system-packages.sh")
    return subprocess.run(
        ["systemd-analyze", "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _moved_into(root: Path, text: str) -> str:
    """The unit's absolute paths moved below `root` (verify wants ExecStart's program to exist)."""
    for prefix in ("/opt/tower-companion", "/var/lib/tower-companion", "/etc/"):
        text = text.replace(prefix, f"{root}{prefix}")
    return text


def test_unit_verifies_once_its_program_exists(tmp_path: Path) -> None:
    root = tmp_path / "root"
    run = install("--root", str(root), "--dry-run")
    assert run.returncode == 0, run.stderr
    python = root / "opt/tower-companion/venv/bin/python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    copy = tmp_path / "unit" / UNIT_NAME
    copy.parent.mkdir()
    placed = (root / "etc/systemd/system" / UNIT_NAME).read_text()
    copy.write_text(_moved_into(root, placed))
    result = _verify(copy)
    # verify exits 0 on unknown keys and bad values and only prints them: no output at all.
    assert result.returncode == 0 and not (result.stdout + result.stderr).strip(), result


def test_verify_does_check_the_program(tmp_path: Path) -> None:
    # The same check on the unmoved unit must complain: the venv does not exist here.
    copy = tmp_path / UNIT_NAME
    shutil.copy(UNIT, copy)
    result = _verify(copy)
    assert "/opt/tower-companion/venv/bin/python" in result.stdout + result.stderr


@pytest.fixture(scope="module")
def entries() -> list[tuple[str, str, str]]:
    return unit_entries(UNIT.read_text(encoding="utf-8"))


def _values(entries: list[tuple[str, str, str]], section: str, key: str) -> list[str]:
    return [v for s, k, v in entries if s == section and k == key]


def _environment(entries: list[tuple[str, str, str]]) -> dict[str, str]:
    env = {}
    for line in _values(entries, "Service", "Environment"):
        for pair in line.split():
            name, _, value = pair.partition("=")
            env[name] = value
    return env


def test_unit_restarts_logs_to_journal_and_starts_at_boot(
    entries: list[tuple[str, str, str]],
) -> None:
    assert _values(entries, "Service", "Restart") == ["on-failure"]
    assert _values(entries, "Service", "StandardOutput") == ["journal"]
    assert _values(entries, "Service", "StandardError") == ["journal"]
    assert _values(entries, "Install", "WantedBy") == ["multi-user.target"]


def test_unit_draws_full_screen_without_a_desktop(entries: list[tuple[str, str, str]]) -> None:
    env = _environment(entries)
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert env["KIVY_NO_ARGS"] == "1"
    # Kivy reads the kiosk config from KIVY_HOME, where the installer puts it.
    assert env["KIVY_HOME"] == "/var/lib/tower-companion/kivy"
    assert env["COMPANION_SETTINGS"] == "/etc/tower-companion/settings.toml"


def test_unit_user_and_groups_are_the_installers(
    tmp_path: Path, entries: list[tuple[str, str, str]]
) -> None:
    run = install("--root", str(tmp_path), "--dry-run")
    useradd = next(s for s in run.would_run() if s.startswith("useradd"))
    user = _values(entries, "Service", "User")
    assert user and useradd.split()[-1] == user[0]
    groups = _values(entries, "Service", "SupplementaryGroups")[0].split()
    usermod = next(s for s in run.would_run() if s.startswith("usermod"))
    assert usermod.split()[-2].split(",") == groups


def test_unit_starts_what_make_run_starts(entries: list[tuple[str, str, str]]) -> None:
    (exec_start,) = _values(entries, "Service", "ExecStart")
    program, *args = exec_start.split()
    assert program == "/opt/tower-companion/venv/bin/python"
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    run_recipe = re.search(r"^run:.*\n\t\$\(PY\) (.+)$", makefile, re.M)
    assert run_recipe, "Makefile has no `run:` recipe of the form $(PY) ..."
    assert args == run_recipe.group(1).split()


def test_udev_rule_names_the_sensor_by_the_settings_usb_id() -> None:
    from companion.settings import Settings

    sensor = Settings().sensor
    rule = [
        line
        for line in (DEPLOY / "99-tower-sensor.rules").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(rule) == 1
    assert f'ATTRS{{idVendor}}=="{sensor.usb_vid}"' in rule[0]
    assert f'ATTRS{{idProduct}}=="{sensor.usb_pid}"' in rule[0]
    assert 'SYMLINK+="tower-sensor"' in rule[0]
    assert 'GROUP="dialout"' in rule[0]


def test_settings_template_shows_valid_settings(tmp_path: Path) -> None:
    from companion.settings import Settings, load_settings

    template = (DEPLOY / "settings.toml").read_text()
    # As installed (all comments) it changes nothing.
    installed = tmp_path / "installed.toml"
    installed.write_text(template)
    assert load_settings(installed, environ={}) == Settings()
    # With every example line switched on it still loads, and only the port differs.
    switched_on = tmp_path / "switched_on.toml"
    switched_on.write_text(
        "\n".join(
            line[2:] for line in template.splitlines() if re.match(r"# (\[|[a-z_]+ = )", line)
        )
    )
    loaded = load_settings(switched_on, environ={})
    assert loaded.sensor.port == "/dev/tower-sensor"
    assert loaded.model_copy(update={"sensor": Settings().sensor}) == Settings()


def test_kiosk_config_uses_only_options_kivy_knows(tmp_path: Path) -> None:
    # Kivy is imported in a child process so this test's Kivy state (KIVY_HOME) stays its own.
    probe = (
        "import configparser, sys\n"
        "from kivy.config import Config\n"
        "ours = configparser.ConfigParser(interpolation=None)\n"
        "ours.read(sys.argv[1])\n"
        "for section in ours.sections():\n"
        "    for option in ours.options(section):\n"
        "        if section != 'input' and not Config.has_option(section, option):\n"
        "            print(f'{section}.{option}')\n"
    )
    env = dict(os.environ, KIVY_HOME=str(tmp_path), KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1")
    result = subprocess.run(
        [sys.executable, "-c", probe, str(DEPLOY / "kivy-config.ini")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "", f"options Kivy does not know: {result.stdout}"


def test_kiosk_config_is_full_screen_without_a_cursor() -> None:
    import configparser

    config = configparser.ConfigParser(interpolation=None)
    config.read(DEPLOY / "kivy-config.ini")
    assert config["graphics"]["fullscreen"] == "auto"
    assert config["graphics"]["show_cursor"] == "0"
    assert any("provider=mtdev" in value for value in config["input"].values())
