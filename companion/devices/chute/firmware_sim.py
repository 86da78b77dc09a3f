"""The real chute firmware, run by the MicroPython unix port on simulated hardware, behind a pty.

socat makes a pseudo-terminal pair: one end is a path the host reader opens like a USB serial
port, the other is MicroPython's stdin/stdout running firmware/sim/sim_main.py. Stopping socat
is an unplug; starting it again at the same path is a replug (with a new boot id, as a real
board power-cycles). For development and tests in a source checkout (x86_64: the MicroPython
wheel exists only there), not for the installed app.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from companion.core.cubes import COLOURS, Colour

REPO = Path(__file__).resolve().parents[3]
FIRMWARE = REPO / "firmware"


class FirmwareSimError(RuntimeError):
    """The simulated board cannot run here; the message names what is missing."""


class CubeExit(Protocol):
    """A cube leaving the tower (companion.devices.simtower.Exit has this shape)."""

    @property
    def colour(self) -> Colour: ...

    @property
    def at_s(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the simulated board's script: at `at_ms` after the host's first SYNC."""

    at_ms: int
    command: str
    args: str = ""

    def line(self) -> str:
        return f"{self.at_ms} {self.command} {self.args}".rstrip()


def cube_steps(exits: Iterable[CubeExit], start_ms: int = 0, beam_ms: int = 10) -> list[Step]:
    """Script steps for cubes leaving the tower, `start_ms` after SYNC plus each exit's time.

    Each cube breaks the beam for `beam_ms`, shortened when the next cube follows closer (two
    cubes never share the beam; 2 ms of clear beam between them).
    """
    times = sorted((start_ms + round(e.at_s * 1000), COLOURS.index(e.colour)) for e in exits)
    steps = []
    for i, (at, colour) in enumerate(times):
        duration = beam_ms
        if i + 1 < len(times):
            duration = max(1, min(beam_ms, times[i + 1][0] - at - 2))
        steps.append(Step(at, "cube", f"{colour} {duration}"))
    return steps


def find_tool(name: str, venv_first: bool) -> str:
    """The path of `micropython` or `socat`; FirmwareSimError says how to install it."""
    candidates = []
    if venv_first:
        candidates.append(Path(sys.executable).parent / name)
    found = shutil.which(name)
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    hint = (
        "install the dev extras: .venv/bin/pip install -e '.[dev]' (x86_64 only)"
        if name == "micropython"
        else "run: bash scripts/system-packages.sh (as root) or apt-get install socat"
    )
    raise FirmwareSimError(f"{name} is needed to run the firmware on this machine; {hint}")


def stage_firmware(dest: Path) -> list[Path]:
    """Write the files the board gets into `dest`, by firmware/install.sh itself; their paths."""
    if not (FIRMWARE / "install.sh").exists():
        raise FirmwareSimError(
            f"no firmware folder at {FIRMWARE}: the simulated board runs from a source checkout"
        )
    result = subprocess.run(
        ["bash", str(FIRMWARE / "install.sh"), "--stage", str(dest)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise FirmwareSimError(f"firmware/install.sh --stage failed: {result.stderr.strip()}")
    return sorted(dest.glob("*.py"))


class FirmwareSimBoard:
    """One simulated board in `workdir`: `start()`, `stop()` (unplug), `start()` again (replug).

    `link` is the serial port path for the host; `flash` keeps the calibration between runs;
    cube clear-edge times (ns since the epoch) are appended to `cube_log`.
    """

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.link = workdir / "ttyCHUTE"
        self.flash = workdir / "flash"
        self.cube_log = workdir / "cubes.log"
        self.stage = workdir / "stage"
        self.micropython = find_tool("micropython", venv_first=True)
        self.socat = find_tool("socat", venv_first=False)
        self._process: subprocess.Popen[bytes] | None = None
        self._runs = 0

    def start(self, steps: Sequence[Step] = (), timeout_s: float = 5.0) -> None:
        """Stage the firmware as install.sh would, start it with this script, wait for the pty."""
        if self._process is not None:
            raise FirmwareSimError("the simulated board is already plugged in")
        self.flash.mkdir(parents=True, exist_ok=True)
        stage_firmware(self.stage)
        self._runs += 1
        script = self.workdir / f"script{self._runs}.txt"
        script.write_text("".join(step.line() + "\n" for step in steps))
        command = " ".join(
            [
                self.micropython,
                str(FIRMWARE / "sim" / "sim_main.py"),
                str(script),
                str(self.flash),
                str(self.cube_log),
            ]
        )
        env = dict(os.environ, MICROPYPATH=f"{self.stage}:{FIRMWARE / 'sim'}")
        self._process = subprocess.Popen(
            [
                self.socat,
                f"PTY,link={self.link},raw,echo=0",
                f"EXEC:{command},pty,raw,echo=0",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout_s
        while not self.link.exists():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise FirmwareSimError("socat did not create the simulated board's pty")
            time.sleep(0.01)

    def stop(self) -> None:
        """Unplug: stop socat and the firmware; the pty disappears."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(3)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.link.unlink(missing_ok=True)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def cube_times_ns(self) -> list[int]:
        """When each simulated cube finished passing the beam (ns since the epoch), in order."""
        if not self.cube_log.exists():
            return []
        return [int(line.split()[2]) for line in self.cube_log.read_text().splitlines() if line]
