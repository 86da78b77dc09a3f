"""`companion sensor watch` and `companion sensor calibrate`: the chute sensor from a terminal.

`watch` shows what the board reports (one line per settled drop, one per change in the link's
health) so a person can check the sensor without the app. `calibrate` walks a person through
dropping each colour's cubes, builds the references from the raw readings and saves them.
"""

from __future__ import annotations

import argparse
import json
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from statistics import median
from typing import Any, TextIO

from companion.cli.errors import CommandError
from companion.core.cubes import COLOURS, CUBES_PER_COLOUR, Colour
from companion.devices.chute import cubeproto
from companion.devices.chute.calibration import (
    RGBC,
    CalibrationError,
    ChuteCalibration,
)
from companion.devices.chute.ports import find_port
from companion.devices.chute.reader import ChuteReader, ChuteStatus, LinkState
from companion.devices.chute.tracker import ChuteReading
from companion.settings import SETTINGS_ENV, Settings, SettingsError, load_settings

UDEV_RULE = "deploy/99-tower-sensor.rules"
MIN_SAMPLES = 3
"""Fewer readings of a colour than this make a reference that one odd cube can pull away."""
OUTLIER_FLOOR = 40
"""Per-mille feature distance from a colour's median always accepted as the same colour: below
this, differences are sensor noise and cube-to-cube variation (a judgement, not a datasheet
figure; the references of the most alike typical colours, black and brown, are 245 apart)."""
OUTLIER_SPREAD = 4.0
"""A reading further from its colour's median than this many times the median distance is an
outlier (a cube of another colour, a finger in the beam)."""
MIN_SEPARATION = 80
"""Per-mille: two references closer than this leave too little room for noise between them."""
ONLINE_TIMEOUT_S = 10.0
"""How long calibrate waits for the board to answer before giving up."""
QUIET_S = 0.5
"""After Enter, calibrate waits until no cube arrived for this long (cubes still in the chute)."""
QUIET_MAX_S = 3.0
MAX_ATTEMPTS = 3
"""Rounds of dropping one colour before calibrate gives up on it."""
_POLL_S = 0.1


def register(subparsers: Any) -> None:
    """Add `sensor watch` and `sensor calibrate`."""
    sensor = subparsers.add_parser(
        "sensor",
        help="watch or calibrate the chute sensor",
        description="The chute sensor from the command line: `watch` it, or `calibrate` it.",
    )
    sensor.set_defaults(handler=lambda args: _usage(sensor))
    commands = sensor.add_subparsers(dest="sensor_command", metavar="SUBCOMMAND")

    watch = commands.add_parser(
        "watch",
        help="print the sensor's readings and link status until Ctrl-C",
        description=(
            "Find the chute sensor (the given port, else `port` in the [sensor] settings, else "
            "its USB id) and print one line per settled drop and one per change in the link's "
            "health (online, offline, restarts, damaged frames). Ctrl-C ends it."
        ),
    )
    watch.add_argument("--port", metavar="PORT|URL", help="serial port or pyserial URL")
    watch.add_argument("--json", action="store_true", help="one JSON object per line")
    watch.add_argument(
        "--drops", type=_positive, metavar="N", help="stop after N settled drops (exit 0)"
    )
    watch.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="classify with this calibration instead of the one the settings name",
    )
    watch.set_defaults(handler=run_watch)

    cal = commands.add_parser(
        "calibrate",
        help="learn your cubes' colours under your sensor's light",
        description=(
            "Walks you through dropping each colour's cubes through the chute, in action-circuit "
            "order, builds the colour references from the sensor's raw readings and writes them "
            "to FILE. Then name FILE as `calibration` in the [sensor] section of the settings."
        ),
    )
    cal.add_argument("--out", type=Path, required=True, metavar="FILE", help="calibration JSON")
    cal.add_argument("--port", metavar="PORT|URL", help="serial port or pyserial URL")
    cal.add_argument(
        "--cubes",
        type=_at_least_samples,
        default=CUBES_PER_COLOUR,
        metavar="N",
        help=f"cubes of each colour you will drop (default {CUBES_PER_COLOUR})",
    )
    cal.set_defaults(handler=run_calibrate)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def _at_least_samples(text: str) -> int:
    value = _positive(text)
    if value < MIN_SAMPLES:
        raise argparse.ArgumentTypeError(
            f"drop at least {MIN_SAMPLES} cubes of each colour, got {value}"
        )
    return value


# ---- finding the board ----


def _settings() -> Settings:
    try:
        return load_settings()
    except SettingsError as error:
        raise CommandError(str(error)) from error


def _what_to_check() -> str:
    return (
        "check that the sensor's USB cable is plugged in (a data cable, not a charge-only one), "
        f"that the udev rule {UDEV_RULE} is installed (deploy/install.sh does it; it names the "
        "board /dev/tower-sensor), or name the port with --port or `port` in the [sensor] "
        "section of the settings (sensor.port)"
    )


def resolve_port(port: str | None, settings: Settings) -> str:
    """The port or URL to open: `port`, else the settings' port, else the board's by USB id.

    Raises CommandError naming the USB id and what to check when there is no board.
    """
    chosen = port or settings.sensor.port
    vid_pid = settings.sensor.vid_pid
    if chosen:
        if "://" not in chosen and not Path(chosen).exists():
            raise CommandError(f"no chute sensor at {chosen}: {_what_to_check()}")
        return chosen
    found = find_port(vid_pid)
    if found is None:
        raise CommandError(
            f"no chute sensor found: no serial port has USB id {vid_pid}; " + _what_to_check()
        )
    return found


def _load_calibration(path: Path | str | None) -> ChuteCalibration | None:
    if path is None:
        return None
    try:
        return ChuteCalibration.load(Path(path))
    except CalibrationError as error:
        raise CommandError(str(error)) from error


# ---- watch ----


_COUNTERS = (
    "crc_errors",
    "garbage_lines",
    "lost_frames",
    "restarts",
    "reconnects",
    "device_errors",
)
_COUNTER_WORDS = {
    "crc_errors": "damaged frames (CRC)",
    "garbage_lines": "garbage lines",
    "lost_frames": "lost reports",
    "restarts": "sensor restarts",
    "reconnects": "reconnects",
    "device_errors": "sensor errors",
}


def _counters(status: ChuteStatus) -> dict[str, int]:
    return {name: int(getattr(status, name)) for name in _COUNTERS}


def reading_line(number: int, reading: ChuteReading) -> str:
    """One settled drop as text: every colour's code and count, confidence and reasons."""
    counts = " ".join(f"{colour.code}{n}" for colour, n in reading.counts.items())
    line = f"drop {number}: {counts} ({reading.counts.total} cubes"
    if reading.unknown:
        line += f", {reading.unknown} unrecognised"
    line += f") confidence {reading.confidence:.2f}"
    if reading.reasons:
        line += " - " + "; ".join(reading.reasons)
    return line


def reading_json(number: int, reading: ChuteReading) -> dict[str, Any]:
    """One settled drop as a JSON-ready object."""
    return {
        "event": "drop",
        "drop": number,
        "counts": reading.counts.as_dict(),
        "unknown": reading.unknown,
        "total": reading.counts.total,
        "confidence": reading.confidence,
        "reasons": list(reading.reasons),
    }


class _Printer:
    def __init__(self, as_json: bool, out: TextIO) -> None:
        self.as_json = as_json
        self.out = out

    def emit(self, text: str, obj: dict[str, Any]) -> None:
        line = json.dumps(obj) if self.as_json else text
        print(line, file=self.out, flush=True)


def run_watch(args: argparse.Namespace) -> int:
    """Print drops and link changes until Ctrl-C or `--drops` settled drops; exit status 0."""
    settings = _settings()
    port = resolve_port(args.port, settings)
    calibration = _load_calibration(args.calibration or settings.sensor.calibration)
    inbox: queue.Queue[ChuteReading | ChuteStatus] = queue.Queue()

    def on_reading(reading: ChuteReading) -> None:
        if reading.settled:
            inbox.put(reading)

    reader = ChuteReader(
        on_reading,
        inbox.put,
        port=port,
        vid_pid=settings.sensor.vid_pid,
        calibration=calibration,
        offline_after_s=settings.sensor.offline_after_s,
    )
    printer = _Printer(args.json, sys.stdout)
    drops = 0
    seen = _counters(reader.status)
    ctrl_c = threading.Event()
    give_back_ctrl_c = _catch_ctrl_c(ctrl_c)
    reader.start()
    try:
        while not ctrl_c.is_set() and (args.drops is None or drops < args.drops):
            try:
                item = inbox.get(timeout=_POLL_S)
            except queue.Empty:
                item = None
            if isinstance(item, ChuteReading):
                drops += 1
                printer.emit(reading_line(drops, item), reading_json(drops, item))
            elif isinstance(item, ChuteStatus) and item.state is not LinkState.STOPPED:
                printer.emit(
                    f"status: {item.state.value} - {item.message}",
                    {"event": "status", "state": item.state.value, "message": item.message},
                )
            status = reader.status
            counters = _counters(status)
            if counters != seen:
                _emit_counters(printer, counters, seen, status)
                seen = counters
    finally:
        give_back_ctrl_c()
        reader.stop()
    printer.emit(f"stopped after {drops} drops", {"event": "stopped", "drops": drops})
    return 0


def _catch_ctrl_c(pressed: threading.Event) -> Callable[[], None]:
    """Make Ctrl-C set `pressed` instead of raising KeyboardInterrupt (only on the main
    thread, where Python delivers signals); returns what puts Python's handling back.

    Ctrl-C is how a person ends watching, not an error. Raised as an exception it can land
    inside the queue's `with` block between taking its lock and entering it, leaving the lock
    held; the reader's final status then waits on that lock forever (seen once in 16
    fresh-clone CI runs, with the machine busy with other work).
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda _signum, _frame: pressed.set())

    def give_back() -> None:
        # None: the handler was not set from Python; Python's own default stands in.
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)

    return give_back


def _emit_counters(
    printer: _Printer, counters: dict[str, int], before: dict[str, int], status: ChuteStatus
) -> None:
    parts = [f"{n} {_COUNTER_WORDS[name]}" for name, n in counters.items() if n]
    text = "link: " + ", ".join(parts)
    if counters["restarts"] > before["restarts"]:
        text += f" (the sensor restarted, boot id {status.boot}; counts carry on)"
    printer.emit(text, {"event": "link", **counters, "boot": status.boot})


# ---- calibrate: the arithmetic ----


@dataclass(frozen=True, slots=True)
class CleanSamples:
    """One colour's readings sorted out: `kept`, `outliers` (too far from the others) and `dark`
    (no light at all: the colour sensor did not see the cube)."""

    kept: tuple[RGBC, ...]
    outliers: tuple[RGBC, ...]
    dark: int


def split_outliers(samples: Sequence[RGBC], full_scale: int) -> CleanSamples:
    """Readings of one colour without the dark ones and the outliers.

    Outliers are judged on the calibration's features (per-mille chromaticity and brightness)
    by distance from the per-feature median, so up to half the readings may be wrong and still
    be caught. With fewer than MIN_SAMPLES lit readings nothing is judged an outlier.
    """
    lit = [s for s in samples if s[3] > 0]
    dark = len(samples) - len(lit)
    if len(lit) < MIN_SAMPLES:
        return CleanSamples(tuple(lit), (), dark)
    feats = [cubeproto.features(s, full_scale) for s in lit]
    centre = tuple(round(median(f[i] for f in feats)) for i in range(4))
    dists = [cubeproto.distance(f, centre) for f in feats]
    limit = max(OUTLIER_FLOOR, OUTLIER_SPREAD * median(dists))
    kept = tuple(s for s, d in zip(lit, dists, strict=True) if d <= limit)
    outliers = tuple(s for s, d in zip(lit, dists, strict=True) if d > limit)
    return CleanSamples(kept, outliers, dark)


def spread(calibration: ChuteCalibration, colour: Colour, samples: Iterable[RGBC]) -> float:
    """Root-mean-square feature distance (per-mille) of a colour's readings from its reference."""
    ref = calibration.references[colour]
    dists = [
        cubeproto.distance(cubeproto.features(s, calibration.full_scale), ref) for s in samples
    ]
    return (sum(d * d for d in dists) / len(dists)) ** 0.5 if dists else 0.0


@dataclass(frozen=True, slots=True)
class ClosePair:
    """Two colours whose references are `distance` apart where `needed` would be safe."""

    first: Colour
    second: Colour
    distance: int
    needed: int


def close_pairs(
    calibration: ChuteCalibration, samples: Mapping[Colour, Sequence[RGBC]]
) -> list[ClosePair]:
    """Pairs of colours the sensor may not tell apart: references closer than MIN_SEPARATION or
    than three times the two colours' spreads added together (per-mille)."""
    colours = [c for c in COLOURS if c in calibration.references]
    spreads = {c: spread(calibration, c, samples.get(c, ())) for c in colours}
    pairs = []
    for a, b in combinations(colours, 2):
        d = cubeproto.distance(calibration.references[a], calibration.references[b])
        needed = max(MIN_SEPARATION, round(3 * (spreads[a] + spreads[b])))
        if d < needed:
            pairs.append(ClosePair(a, b, d, needed))
    return pairs


def misread(
    calibration: ChuteCalibration, samples: Mapping[Colour, Sequence[RGBC]]
) -> dict[Colour, int]:
    """How many of each colour's own readings the calibration would not read as that colour."""
    return {
        colour: sum(1 for s in readings if calibration.classify(s)[0] is not colour)
        for colour, readings in samples.items()
    }


# ---- calibrate: the conversation ----


@dataclass
class _Collector:
    """Raw readings from the reader thread, filed under the colour being dropped."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    current: Colour | None = None
    samples: dict[Colour, list[RGBC]] = field(default_factory=dict)
    stray: int = 0
    last_s: float = 0.0

    def on_cube(self, index: int, rgbc: tuple[int, int, int, int]) -> None:
        del index  # the board's guess with its old table: calibration uses the raw reading only
        with self.lock:
            self.last_s = time.monotonic()
            if self.current is None:
                self.stray += 1
            else:
                self.samples.setdefault(self.current, []).append(rgbc)

    def collect(self, colour: Colour | None) -> None:
        with self.lock:
            self.current = colour

    def wait_quiet(self) -> None:
        """Return once no cube arrived for QUIET_S seconds (at most QUIET_MAX_S)."""
        start = time.monotonic()
        while time.monotonic() - start < QUIET_MAX_S:
            with self.lock:
                quiet = time.monotonic() - max(self.last_s, start)
            if quiet >= QUIET_S:
                return
            time.sleep(0.05)


def _wait_online(reader: ChuteReader, port: str) -> None:
    deadline = time.monotonic() + ONLINE_TIMEOUT_S
    while reader.status.state is not LinkState.ONLINE:
        if time.monotonic() > deadline:
            raise CommandError(
                f"the chute sensor at {port} does not answer ({reader.status.message}); is the "
                f"firmware installed (firmware/install.sh)? {_what_to_check()}; "
                "nothing was saved"
            )
        time.sleep(0.05)


def _ask(prompt: str, stdin: TextIO) -> None:
    print(prompt, flush=True)
    if stdin.readline() == "":
        raise CommandError("the input ended before every colour was dropped; nothing was saved")


def _collect_colour(
    colour: Colour, cubes: int, collector: _Collector, full_scale: int, stdin: TextIO
) -> CleanSamples:
    prompt = (
        f"Drop the {cubes} {colour.value} cubes through the chute, one at a time, then press Enter."
    )
    for attempt in range(1, MAX_ATTEMPTS + 1):
        collector.collect(colour)
        _ask(prompt, stdin)
        collector.wait_quiet()  # the last cube may still be in the chute
        collector.collect(None)
        with collector.lock:
            raw = list(collector.samples.get(colour, []))
        clean = split_outliers(raw, full_scale)
        line = f"  {colour.code} {colour.value}: {len(raw)} readings, {len(clean.kept)} used"
        if clean.outliers:
            line += (
                f"; {len(clean.outliers)} left out as unlike the others (a cube of another "
                "colour, or a finger in the beam?)"
            )
        if clean.dark:
            line += (
                f"; {clean.dark} saw no light (check the colour sensor's cable and the chute's LED)"
            )
        print(line, flush=True)
        if len(clean.kept) >= MIN_SAMPLES:
            if len(raw) < cubes * attempt:
                print(
                    f"  note: {cubes * attempt - len(raw)} cube(s) were not seen; is the "
                    "break-beam lined up with the chute?",
                    flush=True,
                )
            return clean
        prompt = (
            f"Only {len(clean.kept)} usable {colour.value} readings; at least {MIN_SAMPLES} are "
            f"needed. Drop the {colour.value} cubes again, one at a time, then press Enter."
        )
    raise CommandError(
        f"too few usable {colour.value} readings after {MAX_ATTEMPTS} rounds; check that the "
        "board counts cubes (`companion sensor watch`) and try again; nothing was saved"
    )


def run_calibrate(args: argparse.Namespace) -> int:
    """Walk through the colours, build and save the calibration; exit status 0 when saved."""
    settings = _settings()
    out: Path = args.out
    if out.exists() and out.is_dir():
        raise CommandError(f"{out} is a folder; give a file name such as {out / 'chute.json'}")
    if not out.parent.is_dir():
        raise CommandError(f"folder {out.parent} does not exist; create it or choose another --out")
    port = resolve_port(args.port, settings)
    try:
        current = _load_calibration(settings.sensor.calibration)
    except CommandError:
        current = None  # a broken old calibration is what this command replaces
    collector = _Collector()
    reader = ChuteReader(
        lambda reading: None,
        port=port,
        vid_pid=settings.sensor.vid_pid,
        calibration=current,
        offline_after_s=settings.sensor.offline_after_s,
        on_cube=collector.on_cube,
    )
    full_scale = ChuteCalibration.model_fields["full_scale"].default
    reader.start()
    try:
        _wait_online(reader, port)
        print(f"Chute sensor online at {port}. Colours in action-circuit order:", flush=True)
        kept: dict[Colour, Sequence[RGBC]] = {}
        for colour in COLOURS:
            kept[colour] = _collect_colour(
                colour, args.cubes, collector, full_scale, sys.stdin
            ).kept
    finally:
        reader.stop()
    try:
        calibration = ChuteCalibration.from_samples(kept, full_scale=full_scale)
    except CalibrationError as error:
        raise CommandError(f"{error}; nothing was saved") from error
    try:
        calibration.save(out)
    except OSError as error:
        raise CommandError(f"cannot write {out}: {error}; choose another --out") from error
    _summary(calibration, kept, collector.stray, out)
    return 0


def _summary(
    calibration: ChuteCalibration, kept: dict[Colour, Sequence[RGBC]], stray: int, out: Path
) -> None:
    wrong = misread(calibration, kept)
    print(f"Saved the chute calibration to {out}.")
    # Features are per mille: r, g and b of the clear count, and clear of the full scale.
    print("colour  used   r/c   g/c   b/c  bright  spread  read back")
    for colour in COLOURS:
        r, g, b, bright = calibration.references[colour]
        n = len(kept[colour])
        size = spread(calibration, colour, kept[colour])
        print(
            f"  {colour.code}  {n:6d} {r:5d} {g:5d} {b:5d} {bright:7d} {size:7.1f}"
            f"  {n - wrong[colour]}/{n}"
        )
    if stray:
        print(f"note: {stray} cube(s) fell between colours and were not used.")
    for pair in close_pairs(calibration, kept):
        print(
            f"warning: {pair.first.value} and {pair.second.value} look alike to this sensor "
            f"(references {pair.distance} apart, {pair.needed} would be safe): check that only "
            f"{pair.first.value} cubes were dropped for {pair.first.value} and only "
            f"{pair.second.value} for {pair.second.value}, shade the chute from daylight, wipe "
            "the sensor's window, then calibrate again; until then the camera or a person "
            "settles those colours."
        )
    for colour, n in wrong.items():
        if n:
            print(
                f"warning: {n} of the {colour.value} readings would not be read as "
                f"{colour.value} with this calibration; calibrate again with only "
                f"{colour.value} cubes for {colour.value}."
            )
    where = f"the settings file (${SETTINGS_ENV}; on the Pi /etc/tower-companion/settings.toml)"
    print(
        f'To use it, set calibration = "{out.resolve()}" in the [sensor] section of {where}; '
        "the app sends it to the board when it connects."
    )
