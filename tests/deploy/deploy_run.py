"""Runs deploy/install.sh as CI can: a dry run into a scratch root (no apt, users or systemctl)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
INSTALL = DEPLOY / "install.sh"
UNIT_NAME = "tower-companion.service"


@dataclass(frozen=True)
class Run:
    """What one run of the installer printed and how it ended."""

    returncode: int
    stdout: str
    stderr: str

    def would_run(self) -> list[str]:
        """The system commands a dry run only showed, in order."""
        prefix = "would run: "
        return [
            line.strip().removeprefix(prefix)
            for line in self.stdout.splitlines()
            if line.strip().startswith(prefix)
        ]


def install(*args: str) -> Run:
    """deploy/install.sh with `args`; never raises on a non-zero exit."""
    result = subprocess.run(
        ["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=60, check=False
    )
    return Run(result.returncode, result.stdout, result.stderr)


def files_under(root: Path) -> dict[str, bytes]:
    """Every file below `root`, by its absolute path on the target system, with its bytes."""
    return {
        "/" + str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() or path.is_symlink()
    }


def unit_entries(text: str) -> list[tuple[str, str, str]]:
    """(section, key, value) for every assignment in a systemd unit, in order (keys repeat)."""
    entries = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, _, value = line.partition("=")
        entries.append((section, key.strip(), value.strip()))
    return entries
