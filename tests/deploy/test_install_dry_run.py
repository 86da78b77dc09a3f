"""deploy/install.sh --root DIR --dry-run: places exactly our files, shows the system steps."""

from __future__ import annotations

from pathlib import Path

import pytest
from deploy_run import DEPLOY, UNIT_NAME, Run, files_under, install

EXPECTED = {
    f"/etc/systemd/system/{UNIT_NAME}": DEPLOY / UNIT_NAME,
    "/etc/udev/rules.d/99-tower-sensor.rules": DEPLOY / "99-tower-sensor.rules",
    "/var/lib/tower-companion/kivy/config.ini": DEPLOY / "kivy-config.ini",
    "/etc/tower-companion/settings.toml": DEPLOY / "settings.toml",
    "/etc/default/tower-companion": DEPLOY / "tower-companion.default",
    "/opt/tower-companion/README.md": DEPLOY / "README.md",
}


@pytest.fixture
def dry_run(tmp_path: Path) -> tuple[Path, Run]:
    root = tmp_path / "root"
    run = install("--root", str(root), "--dry-run")
    assert run.returncode == 0, run.stderr
    return root, run


def test_places_exactly_our_files(dry_run: tuple[Path, Run]) -> None:
    root, _ = dry_run
    placed = files_under(root)
    assert set(placed) == set(EXPECTED)
    for target, source in EXPECTED.items():
        assert placed[target] == source.read_bytes(), target
        assert (root / target.lstrip("/")).stat().st_mode & 0o777 == 0o644


def test_system_steps_are_shown_not_run(dry_run: tuple[Path, Run]) -> None:
    _, run = dry_run
    steps = run.would_run()
    apt = next(s for s in steps if " apt-get install " in f" {s} ")
    for package in ("python3-picamera2", "python3-lgpio", "libmtdev1", "python3-venv"):
        assert package in apt.split()
    assert "python3 -m venv --system-site-packages /opt/tower-companion/venv" in steps
    pip = next(s for s in steps if "pip install" in s and "[pi]" in s)
    assert pip.startswith("/opt/tower-companion/venv/bin/python -m pip install")
    groups = next(s for s in steps if s.startswith("usermod"))
    assert set(groups.split()[-2].split(",")) == {"video", "render", "input", "gpio", "dialout"}
    assert any(s.startswith("useradd --system") for s in steps)
    assert f"systemctl enable {UNIT_NAME}" in steps
    assert "udevadm control --reload-rules" in steps


def test_second_run_changes_nothing_and_keeps_the_owners_edits(
    dry_run: tuple[Path, Run],
) -> None:
    root, _ = dry_run
    settings = root / "etc/tower-companion/settings.toml"
    settings.write_text("[camera]\nsource = 'picamera2'\n")
    unit = root / "etc/systemd/system" / UNIT_NAME
    unit.write_text("stale copy\n")
    again = install("--root", str(root), "--dry-run")
    assert again.returncode == 0, again.stderr
    assert settings.read_text() == "[camera]\nsource = 'picamera2'\n"
    assert "kept /etc/tower-companion/settings.toml" in again.stdout
    # Our own files are brought back to the repository's version.
    assert unit.read_bytes() == (DEPLOY / UNIT_NAME).read_bytes()
    assert set(files_under(root)) == set(EXPECTED)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bogus"], "unknown option '--bogus'"),
        (["--dry-run"], "--dry-run writes files under --root"),
        (["--dry-run", "--root", "//."], "--dry-run writes files under --root"),
        (["--dry-run", "--root", "/tmp/.."], "--dry-run writes files under --root"),
        (["--root", "/tmp/somewhere"], "--root is for dry runs only"),
        (["--root"], "--root needs a directory"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(args: list[str], message: str) -> None:
    run = install(*args)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_a_link_to_the_real_root_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "looks-harmless"
    link.symlink_to("/")
    run = install("--dry-run", "--root", str(link))
    assert run.returncode == 2
    assert "--dry-run writes files under --root" in run.stderr


def test_help_describes_the_options() -> None:
    run = install("--help")
    assert run.returncode == 0
    assert "--dry-run" in run.stdout and "--no-start" in run.stdout
