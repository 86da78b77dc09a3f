"""`companion sensor watch` and `calibrate` against the simulated chute board on a real pty."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from companion.cli import main
from companion.cli.sensor import MIN_SAMPLES, close_pairs, misread, split_outliers
from companion.core.cubes import COLOURS, Colour
from companion.devices.chute.calibration import TYPICAL_RGBC, ChuteCalibration
from companion.devices.chute.simdevice import SimulatedChute
from companion.settings import SETTINGS_ENV

ROOT = Path(__file__).resolve().parents[2]
FULL_SCALE = 1024


class _SharedText(io.StringIO):
    """stdout shared by the command's thread and the test's: writes and reads under one lock."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            return super().write(text)

    def text(self) -> str:
        with self._lock:
            return self.getvalue()


class Running:
    """One `companion` command running in a thread with its output captured."""

    def __init__(self, stdin: io.TextIOBase | None) -> None:
        self.out = _SharedText()
        self.err = _SharedText()
        self.stdin = stdin
        self.status: int | None = None
        self._thread: threading.Thread | None = None

    def start(self, argv: Sequence[str]) -> None:
        self._thread = threading.Thread(target=self._run, args=(list(argv),), daemon=True)
        self._thread.start()

    def _run(self, argv: list[str]) -> None:
        self.status = main(argv)

    def wait_for(self, text: str, timeout_s: float = 5.0) -> None:
        assert self._thread is not None
        deadline = time.monotonic() + timeout_s
        while text not in self.out.text():
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise AssertionError(f"no {text!r} in:\n{self.out.text()}\n{self.err.text()}")
            time.sleep(0.02)

    def finish(self, timeout_s: float = 15.0) -> int:
        assert self._thread is not None
        self._thread.join(timeout_s)
        assert not self._thread.is_alive(), f"still running:\n{self.out.text()}"
        assert self.status is not None
        return self.status


Starter = Callable[..., Running]


@pytest.fixture
def start(monkeypatch: pytest.MonkeyPatch) -> Starter:
    """Run a command in a thread; its stdout, stderr (and stdin when given) are swapped first,
    so no line goes to the real streams."""

    def run(argv: Sequence[str], stdin: io.TextIOBase | None = None) -> Running:
        running = Running(stdin)
        monkeypatch.setattr(sys, "stdout", running.out)
        monkeypatch.setattr(sys, "stderr", running.err)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", stdin)
        running.start(argv)
        return running

    return run


@pytest.fixture
def settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A settings file with a short offline time (so offline shows within a test)."""
    path = tmp_path / "settings.toml"
    path.write_text('[sensor]\noffline_after_s = 0.6\nusb_vid = "ffff"\nusb_pid = "fffe"\n')
    monkeypatch.setenv(SETTINGS_ENV, str(path))
    return path


@pytest.fixture
def board(tmp_path: Path, settings_file: Path) -> Iterator[SimulatedChute]:
    dev = SimulatedChute(tmp_path / "ttyCHUTE", heartbeat_s=0.2)
    dev.plug()
    yield dev
    dev.stop()


def _drop(colours: Sequence[Colour], at_s: float = 0.0) -> list[tuple[Colour, float]]:
    return [(colour, at_s + 0.05 * i) for i, colour in enumerate(colours)]


# ---- watch ----


def test_watch_prints_settled_drops_with_codes_and_stops_after_n(
    board: SimulatedChute, start: Starter
) -> None:
    run = start(["sensor", "watch", "--port", str(board.link), "--drops", "2"])
    run.wait_for("status: online")
    board.feed(_drop([Colour.RED, Colour.BLUE, Colour.RED, Colour.WHITE]))
    run.wait_for("drop 1:")
    board.feed(_drop([Colour.BLACK, Colour.BROWN]))
    assert run.finish() == 0
    lines = run.out.text().splitlines()
    drops = [line for line in lines if line.startswith("drop ")]
    assert drops == [
        "drop 1: Bu1 Bk0 Rd2 Br0 Gn0 Ye0 Wh1 (4 cubes) confidence 1.00",
        "drop 2: Bu0 Bk1 Rd0 Br1 Gn0 Ye0 Wh0 (2 cubes) confidence 1.00",
    ]
    assert lines[-1] == "stopped after 2 drops"


def test_watch_survives_a_garbled_stream_and_reports_offline_and_restart(
    board: SimulatedChute, start: Starter
) -> None:
    run = start(["sensor", "watch", "--port", str(board.link), "--json", "--drops", "2"])
    run.wait_for('"state": "online"')
    board.send_garbage(b"Traceback (most recent call last):\r\n\x00\xff noise\n")
    board.garble_frames(3)
    run.wait_for('"crc_errors": 3')
    board.feed(_drop([Colour.GREEN, Colour.GREEN, Colour.YELLOW]))
    run.wait_for('"event": "drop"')
    board.stall(1.2)  # silence over the settings' 0.6 s: offline, then back
    run.wait_for('"state": "offline"')
    run.wait_for('"state": "online"', timeout_s=5.0)
    board.restart()
    run.wait_for('"restarts": 1')
    board.feed(_drop([Colour.BLUE], at_s=0.3))
    assert run.finish() == 0

    events = [json.loads(line) for line in run.out.text().splitlines()]
    drops = [e for e in events if e["event"] == "drop"]
    assert [d["counts"]["green"] for d in drops] == [2, 0]
    assert drops[0]["counts"]["yellow"] == 1 and drops[0]["total"] == 3
    assert drops[1]["counts"]["blue"] == 1 and drops[1]["total"] == 1
    states = [e["state"] for e in events if e["event"] == "status"]
    assert states.index("offline") > states.index("online")
    link = [e for e in events if e["event"] == "link"]
    assert link[-1]["garbage_lines"] >= 1 and link[-1]["crc_errors"] >= 3
    assert events[-1] == {"event": "stopped", "drops": 2}


def test_watch_without_a_board_says_what_to_check_and_exits_2(tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text('[sensor]\nusb_vid = "ffff"\nusb_pid = "fffe"\n')
    env = {**os.environ, SETTINGS_ENV: str(settings)}
    done = subprocess.run(
        [sys.executable, "-m", "companion", "sensor", "watch"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    message = done.stderr
    assert "no chute sensor found" in message and "USB id ffff:fffe" in message
    assert "cable" in message and "deploy/99-tower-sensor.rules" in message
    assert "sensor.port" in message


def test_ctrl_c_ends_watch_with_status_0(board: SimulatedChute) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "sensor", "watch", "--port", str(board.link)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the first status line: the command is up and listening
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert first.startswith("status: ") and "Traceback" not in err
    assert out.splitlines()[-1] == "stopped after 0 drops"


def test_watch_gives_ctrl_c_back_when_it_ends(
    board: SimulatedChute, capsys: pytest.CaptureFixture[str]
) -> None:
    # Watching on the main thread, Ctrl-C only asks the loop to end; afterwards it is
    # Python's own again.
    before = signal.getsignal(signal.SIGINT)
    ctrl_c = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    ctrl_c.start()
    assert main(["sensor", "watch", "--port", str(board.link)]) == 0
    assert signal.getsignal(signal.SIGINT) is before
    assert capsys.readouterr().out.splitlines()[-1] == "stopped after 0 drops"


def test_a_missing_port_path_is_a_clear_error(
    tmp_path: Path, settings_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sensor", "watch", "--port", str(tmp_path / "ttyNONE")]) == 2
    err = capsys.readouterr().err
    assert f"no chute sensor at {tmp_path / 'ttyNONE'}" in err and "cable" in err


# ---- calibrate ----


class Person(io.TextIOBase):
    """Scripted stdin: at each Enter it has just dropped the planned cubes for the next colour
    (they have passed the beam) and presses Enter."""

    def __init__(self, board: SimulatedChute, plan: list[list[Colour | None]]) -> None:
        self.board = board
        self.plan = plan
        self.asked = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        del size
        if not self.plan:
            return ""  # the person walked away: end of input
        cubes = self.plan.pop(0)
        self.asked += 1
        before = len(self.board.cube_times)
        known = [c for c in cubes if c is not None]
        self.board.feed(_drop(known))
        for i, cube in enumerate(cubes):
            if cube is None:
                self.board.feed_unknown(0.05 * (len(known) + i))
        deadline = time.monotonic() + 5.0
        while len(self.board.cube_times) < before + len(cubes):
            assert time.monotonic() < deadline, "the simulated board never dropped the cubes"
            time.sleep(0.01)
        return "\n"


def _everything(n: int = 7) -> list[list[Colour | None]]:
    return [[colour] * n for colour in COLOURS]


def test_calibrate_walks_through_colours_and_saves_a_calibration_that_reads_the_cubes(
    board: SimulatedChute, tmp_path: Path, start: Starter
) -> None:
    plan = _everything()
    plan[0] = [*plan[0], None]  # an odd cube among the blue ones: left out
    out = tmp_path / "chute.json"
    person = Person(board, plan)
    run = start(["sensor", "calibrate", "--out", str(out), "--port", str(board.link)], person)
    assert run.finish(30) == 0, run.err.text()
    text = run.out.text()
    prompts = [line for line in text.splitlines() if line.startswith("Drop the")]
    assert prompts == [
        f"Drop the 7 {c.value} cubes through the chute, one at a time, then press Enter."
        for c in COLOURS
    ]
    assert "Bu blue: 8 readings, 7 used; 1 left out as unlike the others" in text
    assert f'calibration = "{out.resolve()}" in the [sensor] section' in text
    assert "warning" not in text
    saved = ChuteCalibration.load(out)
    for colour, rgbc in TYPICAL_RGBC.items():  # what the simulated board reports for each cube
        assert saved.classify(rgbc)[0] is colour
    # And the board, given this calibration by watch, counts the cubes by colour.
    run = start(
        ["sensor", "watch", "--port", str(board.link), "--calibration", str(out), "--drops", "1"],
    )
    run.wait_for("status: online")
    time.sleep(0.5)  # the board takes the table on the next heartbeat
    board.feed(_drop(list(COLOURS)))
    assert run.finish() == 0
    assert "drop 1: Bu1 Bk1 Rd1 Br1 Gn1 Ye1 Wh1 (7 cubes) confidence" in run.out.text()


def test_calibrate_asks_again_when_too_few_and_warns_about_mixed_up_colours(
    board: SimulatedChute, tmp_path: Path, start: Starter
) -> None:
    plan = _everything(3)
    plan[3] = [Colour.BLACK] * 3  # black cubes dropped for brown: the two cannot be told apart
    plan.insert(2, [Colour.RED, Colour.RED])  # two of red first: too few, asked again
    out = tmp_path / "chute.json"
    run = start(
        ["sensor", "calibrate", "--out", str(out), "--port", str(board.link), "--cubes", "3"],
        Person(board, plan),
    )
    assert run.finish(30) == 0, run.err.text()
    text = run.out.text()
    assert "Only 2 usable red readings; at least 3 are needed. Drop the red cubes again" in text
    assert "Rd red: 5 readings, 5 used" in text  # the first round's readings are kept
    assert "warning: black and brown look alike to this sensor (references 0 apart" in text
    assert "calibrate again" in text
    assert (
        ChuteCalibration.load(out).references[Colour.BROWN]
        == (ChuteCalibration.load(out).references[Colour.BLACK])
    )


def test_calibrate_that_runs_out_of_input_saves_nothing(
    board: SimulatedChute, tmp_path: Path, start: Starter
) -> None:
    out = tmp_path / "chute.json"
    out.write_text("the old file\n")
    run = start(
        ["sensor", "calibrate", "--out", str(out), "--port", str(board.link)],
        Person(board, _everything()[:2]),
    )
    assert run.finish(30) == 2
    assert "input ended before every colour was dropped; nothing was saved" in run.err.text()
    assert out.read_text() == "the old file\n"


# ---- the arithmetic ----


def _noisy(rgbc: tuple[int, int, int, int], n: int, seed: int) -> list[tuple[int, int, int, int]]:
    """n readings within a few counts of rgbc (a deterministic wobble)."""
    out = []
    for i in range(n):
        wobble = ((i * 7 + seed) % 5) - 2
        out.append((rgbc[0] + wobble, rgbc[1] - wobble, rgbc[2] + wobble, rgbc[3] + 2 * wobble))
    return out


def test_outliers_and_dark_readings_are_left_out_but_noise_is_kept() -> None:
    brown = _noisy(TYPICAL_RGBC[Colour.BROWN], 6, seed=1)
    samples = [*brown, TYPICAL_RGBC[Colour.GREEN], (0, 0, 0, 0)]
    clean = split_outliers(samples, FULL_SCALE)
    assert clean.kept == tuple(brown)
    assert clean.outliers == (TYPICAL_RGBC[Colour.GREEN],)
    assert clean.dark == 1


def test_too_few_readings_are_not_judged() -> None:
    few = [TYPICAL_RGBC[Colour.RED], TYPICAL_RGBC[Colour.WHITE]]
    assert len(few) < MIN_SAMPLES
    assert split_outliers(few, FULL_SCALE).kept == tuple(few)


def test_typical_colours_are_far_enough_apart_and_alike_ones_are_flagged() -> None:
    samples = {c: _noisy(rgbc, 7, seed=i) for i, (c, rgbc) in enumerate(TYPICAL_RGBC.items())}
    calibration = ChuteCalibration.from_samples(samples)
    assert close_pairs(calibration, samples) == []
    assert all(n == 0 for n in misread(calibration, samples).values())
    # Brown readings from a dim chute drift towards black: flagged, and misread.
    dim_brown = [(40, 43, 38, 115), (41, 43, 37, 117), (39, 44, 38, 114)]
    mixed = {**samples, Colour.BROWN: dim_brown}
    calibration = ChuteCalibration.from_samples(mixed)
    pairs = close_pairs(calibration, mixed)
    assert [(p.first, p.second) for p in pairs] == [(Colour.BLACK, Colour.BROWN)]
    assert pairs[0].distance < pairs[0].needed
