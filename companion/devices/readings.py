"""The reading service: which cubes came out of the tower, from the best input that works.

Camera first; the chute sensor when the camera is missing or unsure; the person last. When a
confident camera and the sensor disagree, the person is asked, with both values shown. Every
input's health is posted as it changes, so the screen can say what is wrong and what to do.

Inputs arrive from device threads (camera feed, chute reader, GPIO) through the `camera_*`,
`sensor_*` and `beam_broken` methods; the service's own thread decides and posts `DropReading`s
and `SourceHealth` changes to callbacks. It never touches widgets: the UI wraps its callbacks
with Kivy's `mainthread`.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

from companion.core.cubes import COLOURS, Counts
from companion.devices.health import Health, SourceHealth, SourceName
from companion.vision import reasons as doubt
from companion.vision.images import BGRImage
from companion.vision.reading import TrayReading

SENSOR_SURE_AT = 0.8
"""The chute sensor's own confidence (0..1) at or above which its count needs no person."""

LOOKED_AGAIN = "the cubes were moved by hand and the camera looked again"
"""The note on a second look at a drop."""

CAMERA_UNSURE = "camera unsure: "
"""What a verdict's reason starts with when it passes on one of the camera's own doubts."""


def cubes_may_hide(reasons: Iterable[str]) -> bool:
    """Whether the camera doubts its count because a cube may lie hidden under or among
    others, the doubts given as vision words them or as a verdict passes them on: spreading
    the cubes apart would let it count again."""
    return doubt.cubes_may_hide(reason.removeprefix(CAMERA_UNSURE) for reason in reasons)


class Outcome(StrEnum):
    """What the app should do with a reading."""

    ACCEPTED = "accepted"
    """The counts may go to the game as they are."""
    CONFIRM = "confirm"
    """Show the counts (and the other input's, when they differ) and let the person choose."""
    MANUAL = "manual"
    """No input could count the drop: the person types the counts (a guess may be shown)."""


ReadingKind = Literal["drop", "stray", "second look"]
"""'second look': the last drop read again after people moved its cubes by hand (spread a
heap so that no cube hides another); its counts replace the drop's, cubes did not fall."""
ReadingSource = Literal["camera", "sensor", "manual"]


@dataclass(frozen=True, slots=True)
class SensorCount:
    """The chute sensor's count of one drop: cubes per colour, and whether it is sure of them."""

    counts: Counts
    confident: bool = True
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class DropReading:
    """The service's verdict on one drop (or on stray cubes falling between drops).

    `counts` is the proposed value (None only for MANUAL with no guess at all); `camera` and
    `sensor` are what each input said (None: it had nothing); `reasons` explain anything short
    of a clean ACCEPTED; `picture` is the camera's annotated picture when there is one; `at` is
    time.monotonic() seconds when the verdict was made.
    """

    drop: int
    kind: ReadingKind
    outcome: Outcome
    source: ReadingSource
    counts: Counts | None
    camera: Counts | None = None
    sensor: Counts | None = None
    reasons: tuple[str, ...] = ()
    picture: BGRImage | None = field(default=None, repr=False, compare=False)
    at: float = field(default_factory=time.monotonic, compare=False)


def _too_many(counts: Counts, possible: Counts | None) -> list[str]:
    if possible is None:
        return []
    return [
        f"{counts[c]} {c.value} seen but at most {possible[c]} could have come out"
        for c in COLOURS
        if counts[c] > possible[c]
    ]


def decide(
    drop: int,
    camera: TrayReading | None,
    sensor: SensorCount | None,
    *,
    possible: Counts | None = None,
    kind: ReadingKind = "drop",
    notes: tuple[str, ...] = (),
) -> DropReading:
    """Combine what the camera and the sensor said about one drop into one verdict.

    A confident camera wins when the sensor agrees or has nothing; a confident camera and a
    sensor that disagree go to the person with both values. An unsure or missing camera defers
    to the sensor (confirmed by the person if the sensor itself is unsure); with neither, the
    person types the counts. A value with more of a colour than `possible` (the cubes dropped
    plus those still in the tower) is never accepted without the person.
    """
    camera_counts = camera.counts if camera is not None else None
    sensor_counts = sensor.counts if sensor is not None else None
    picture = camera.picture if camera is not None else None
    reasons = list(notes)
    outcome: Outcome
    source: ReadingSource
    counts: Counts | None
    if camera is not None and camera.confident:
        source, counts = "camera", camera.counts
        if sensor is None or sensor.counts == camera.counts:
            outcome = Outcome.ACCEPTED
        else:
            outcome = Outcome.CONFIRM
            reasons.append(
                f"the camera sees {camera.counts} but the chute sensor counted {sensor.counts}: "
                "which is right?"
            )
    elif sensor is not None:
        source, counts = "sensor", sensor.counts
        if camera is not None:
            reasons.extend(f"{CAMERA_UNSURE}{r}" for r in camera.reasons)
        reasons.extend(sensor.reasons)
        outcome = Outcome.ACCEPTED if sensor.confident else Outcome.CONFIRM
        if not sensor.confident and not sensor.reasons:
            reasons.append("the chute sensor is unsure of some colours: please check")
    else:
        source, outcome = "manual", Outcome.MANUAL
        counts = camera.counts if camera is not None else None
        if camera is not None:
            reasons.extend(f"{CAMERA_UNSURE}{r}" for r in camera.reasons)
        reasons.append("neither the camera nor the chute sensor could count this: please type it")
    if counts is not None and outcome is Outcome.ACCEPTED:
        impossible = _too_many(counts, possible)
        if impossible:
            outcome = Outcome.CONFIRM
            reasons.extend(impossible)
    if kind == "stray" and outcome is Outcome.ACCEPTED:
        # Cubes falling out between drops change the ledger; the person should see them.
        outcome = Outcome.CONFIRM
        reasons.append("cubes fell out of the tower between drops")
    return DropReading(
        drop=drop,
        kind=kind,
        outcome=outcome,
        source=source,
        counts=counts,
        camera=camera_counts,
        sensor=sensor_counts,
        reasons=tuple(dict.fromkeys(reasons)),
        picture=picture,
    )


@dataclass(frozen=True, slots=True)
class Timing:
    """How long the service waits, in seconds."""

    sensor_quiet_s: float = 0.8
    """No cube for this long after the last one: the sensor's count of the drop is complete."""
    nothing_out_s: float = 2.5
    """No cube at all this long after the drop began: nothing came out (as far as the sensor
    can tell)."""
    camera_wait_s: float = 8.0
    """No settled camera reading this long after the drop began (or after the last cube the
    sensor counted, if later): go on without the camera."""
    tick_s: float = 0.02
    """How often deadlines are checked."""


@dataclass(frozen=True, slots=True)
class _Totals:
    """The sensor's running counts: cubes per colour and cubes of no known colour."""

    totals: Counts
    unknown: int = 0
    last_cube_at: float | None = None
    confidence: float = 1.0
    reasons: tuple[str, ...] = ()
    settled: bool | None = None


@dataclass
class _Window:
    """A drop being read, or stray cubes noticed between drops."""

    number: int
    kind: ReadingKind
    started: float
    possible: Counts | None
    baseline: _Totals | None
    tray_before: Counts | None = None
    camera: TrayReading | None = None
    camera_at: float = 0.0
    last_cube: float | None = None
    sensor_confidence: float = 1.0
    sensor_reasons: tuple[str, ...] = ()
    sensor_settled: bool | None = None


@dataclass(frozen=True, slots=True)
class _Seen:
    """A settled camera reading, and whether a hand was in view since the one before."""

    reading: TrayReading
    moved_by_hand: bool


@dataclass(frozen=True, slots=True)
class _LastDrop:
    """What a second look at the last drop is weighed with: its number, its bound per colour
    and the chute sensor's count of it; and how sure its latest verdict was."""

    number: int
    possible: Counts | None
    sensor: SensorCount | None
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class _Expect:
    number: int
    possible: Counts | None


@dataclass(frozen=True, slots=True)
class _Input:
    """One message to the service thread."""

    what: Literal["expect", "camera", "camera_health", "totals", "sensor_health", "beam", "stop"]
    payload: _Expect | _Totals | _Seen | SourceHealth | None = None
    at: float = field(default_factory=time.monotonic)


ReadingCallback = Callable[[DropReading], None]
HealthCallback = Callable[[SourceHealth], None]


class ReadingService:
    """Turns camera readings and sensor totals into one `DropReading` per drop.

    Call `expect_drop` just before the cubes go into the tower (the person pressed "drop");
    the service then waits for the camera to settle and the sensor to go quiet, decides, and
    calls `on_reading` from its own thread. Cubes the sensor or the camera notice between drops
    are posted as `kind="stray"` readings. `on_health` gets every change of an input's health.
    """

    def __init__(
        self,
        on_reading: ReadingCallback,
        on_health: HealthCallback | None = None,
        *,
        timing: Timing | None = None,
        camera: SourceHealth | None = None,
        sensor: SourceHealth | None = None,
    ) -> None:
        self._on_reading = on_reading
        self._on_health = on_health or (lambda _health: None)
        self.timing = timing or Timing()
        self._inbox: queue.Queue[_Input] = queue.Queue()
        self._health: dict[SourceName, SourceHealth] = {}
        self._lock = threading.Lock()
        for initial in (
            camera or SourceHealth("camera", Health.OFF, "no camera in use"),
            sensor or SourceHealth("sensor", Health.OFF, "no chute sensor in use"),
        ):
            self._health[initial.source] = initial
        self._drops = 0
        self._current: _Window | None = None
        self._totals: _Totals | None = None
        self._tray: Counts | None = None
        self._last_drop: _LastDrop | None = None
        self._thread: threading.Thread | None = None

    # ---- inputs, callable from any thread -------------------------------------------------

    def expect_drop(self, possible: Counts | None = None) -> int:
        """Cubes are about to be dropped; returns the drop's number (1, 2, ...).

        `possible` bounds each colour (cubes dropped plus those still in the tower), so an
        impossible reading goes to the person instead of the game.
        """
        with self._lock:
            self._drops += 1
            number = self._drops
        self._inbox.put(_Input("expect", _Expect(number, possible)))
        return number

    def camera_reading(
        self, reading: TrayReading, at: float | None = None, *, moved_by_hand: bool = False
    ) -> None:
        """A settled reading of the tray from the camera (vision's Settler).

        `moved_by_hand`: a hand was in view since the camera's last reading. Cubes seen
        otherwise after that, no fewer, between drops, are the last drop's cubes spread out
        (posted as a "second look"), not cubes that fell out of the tower.
        """
        seen = _Seen(reading, moved_by_hand)
        self._inbox.put(_Input("camera", seen, at if at is not None else time.monotonic()))

    def camera_health(self, health: SourceHealth) -> None:
        """The camera feed's health changed (lost, back, stalling)."""
        self._inbox.put(_Input("camera_health", health))

    def sensor_totals(
        self,
        totals: Counts,
        last_cube_at: float | None = None,
        *,
        unknown: int = 0,
        confidence: float = 1.0,
        reasons: tuple[str, ...] = (),
        settled: bool | None = None,
    ) -> None:
        """The chute sensor's running totals (cubes per colour since it started counting).

        `last_cube_at` is time.monotonic() seconds when the last counted cube passed (default:
        now, if the totals grew). `unknown` is the running count of cubes whose colour the
        sensor could not tell; `confidence` (0..1) and `reasons` are its doubts about the cubes
        counted lately (a restart, an outage, a doubtful colour). `settled` is the sensor's own
        word that no cube has come for a while and a later report confirmed the totals (None:
        it does not say); while it says False, its count of a drop is not taken as complete.
        """
        self._inbox.put(
            _Input("totals", _Totals(totals, unknown, last_cube_at, confidence, reasons, settled))
        )

    def sensor_health(self, health: SourceHealth) -> None:
        """The chute sensor's health changed (offline after 3 s of silence, back, reset)."""
        self._inbox.put(_Input("sensor_health", health))

    def beam_broken(self) -> None:
        """The tray's break-beam saw a cube: the camera's next settled picture is the one."""
        self._inbox.put(_Input("beam"))

    # ---- state ---------------------------------------------------------------------------

    def health(self) -> dict[SourceName, SourceHealth]:
        """Every input's latest health."""
        with self._lock:
            return dict(self._health)

    @property
    def busy(self) -> bool:
        """True while a drop is being read."""
        return self._current is not None

    # ---- the service thread -----------------------------------------------------------------

    def start(self) -> ReadingService:
        """Start the service thread (idempotent); returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="readings", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the service thread; a drop being read is abandoned (nothing was recorded)."""
        if self._thread is not None:
            self._inbox.put(_Input("stop"))
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ReadingService:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        while True:
            try:
                message = self._inbox.get(timeout=self.timing.tick_s)
            except queue.Empty:
                message = None
            if message is not None:
                if message.what == "stop":
                    return
                self._handle(message)
            self._check(time.monotonic())

    def _set_health(self, health: SourceHealth) -> None:
        with self._lock:
            previous = self._health.get(health.source)
            if health.same_as(previous):
                return
            self._health[health.source] = health
        self._on_health(health)

    def _usable(self, source: SourceName) -> bool:
        with self._lock:
            return self._health[source].usable

    def _handle(self, message: _Input) -> None:
        payload = message.payload
        if isinstance(payload, _Expect):
            if self._current is not None:
                # Strays still being read, or a drop abandoned: settle it with what there is.
                self._finish(self._current, message.at)
            baseline = self._totals if self._usable("sensor") else None
            self._current = _Window(payload.number, "drop", message.at, payload.possible, baseline)
            self._last_drop = None
        elif isinstance(payload, _Seen):
            self._camera(payload, message.at)
        elif isinstance(payload, SourceHealth):
            self._set_health(payload)
        elif isinstance(payload, _Totals):
            self._sensor(payload, message.at)
        elif message.what == "beam" and self._current is not None:
            # A cube passing the tray beam after a camera reading: that reading was too early.
            self._current.camera = None

    def _camera(self, seen: _Seen, at: float) -> None:
        reading = seen.reading
        window = self._current
        if window is not None and window.kind == "drop":
            if at >= window.started:
                window.camera = reading
                window.camera_at = at
            return
        tray = window.tray_before if window is not None else self._tray
        if tray is None:
            self._tray = reading.counts
            return
        if window is None and seen.moved_by_hand and reading.counts.total >= tray.total:
            # No fewer cubes after a hand: the drop's cubes moved, so the camera sees it anew
            # (a cube that lay hidden, a colour told better once it lies apart).
            self._second_look(reading)
            return
        extra = _difference(reading.counts, tray)
        if extra is None:
            # Cubes were taken away: people tidying the tray, not strays. What is left is no
            # longer the whole drop, so no later reading may stand for it.
            self._tray = reading.counts
            self._last_drop = None
            return
        if not extra.total:
            return
        as_strays = TrayReading(
            extra,
            reading.cubes,
            reading.confidence,
            reading.confident,
            reading.reasons,
            reading.picture,
        )
        if window is None:
            baseline = self._totals if self._usable("sensor") else None
            window = _Window(self._drops, "stray", at, None, baseline, tray_before=tray)
            self._current = window
        window.camera = as_strays
        window.camera_at = at

    def _second_look(self, reading: TrayReading) -> None:
        """People moved the tray's cubes by hand and the camera sees them again, no fewer: a
        cube that lay hidden under or among others may have come into view, or one's colour
        shows better. Nothing fell, so this is the last drop read again, weighed as the drop
        was, and posted when its counts differ or are now sure."""
        last = self._last_drop
        if last is None:
            # Strays were read or cubes taken away since the drop: the tray holds no longer
            # just that drop's cubes, so the camera's counts cannot replace the drop's.
            self._tray = reading.counts
            return
        verdict = decide(
            last.number,
            reading,
            last.sensor,
            possible=last.possible,
            kind="second look",
            notes=(LOOKED_AGAIN,),
        )
        # The same counts are news only when they are now sure where they were not: the
        # camera, able to count every cube, agrees with the sensor the person was asked about.
        settled = verdict.outcome is Outcome.ACCEPTED and last.outcome is not Outcome.ACCEPTED
        if verdict.counts is None or (verdict.counts == self._tray and not settled):
            # Still unsure, the camera deferred to the sensor's count, which stands: the
            # drop's verdict is as it was, and nothing new goes to the players.
            return
        self._tray = verdict.counts
        self._last_drop = replace(last, outcome=verdict.outcome)
        self._post(verdict)

    def _sensor(self, update: _Totals, at: float) -> None:
        previous, self._totals = self._totals, update
        last = update.last_cube_at if update.last_cube_at is not None else at
        if previous is None:
            return
        if (update.totals, update.unknown) == (previous.totals, previous.unknown):
            if self._current is not None:
                self._current.sensor_settled = update.settled
            return
        if not _at_least(update.totals, previous.totals) or update.unknown < previous.unknown:
            return
        window = self._current
        if window is None:
            baseline = previous if self._usable("sensor") else None
            window = _Window(self._drops, "stray", last, None, baseline, tray_before=self._tray)
            self._current = window
        window.last_cube = last
        window.sensor_settled = update.settled
        if update.confidence < window.sensor_confidence:
            window.sensor_confidence = update.confidence
        window.sensor_reasons = tuple(dict.fromkeys(window.sensor_reasons + update.reasons).keys())

    def _check(self, now: float) -> None:
        window = self._current
        if window is None:
            return
        timing = self.timing
        fresh = window.camera is not None and (
            window.last_cube is None or window.camera_at >= window.last_cube
        )
        camera_done = fresh or not self._usable("camera")
        if self._usable("sensor") and window.baseline is not None:
            quiet_since = window.last_cube if window.last_cube is not None else window.started
            needed = timing.sensor_quiet_s if window.last_cube is not None else timing.nothing_out_s
            # A late report (a busy link) must not cut a drop short: wait for the sensor's own
            # word that its count is settled when it gives one.
            confirmed = window.last_cube is None or window.sensor_settled is not False
            sensor_done = confirmed and now - quiet_since >= needed
        else:
            sensor_done = True
        # The camera needs its time after the last cube has landed, not after the drop began.
        waited = now - max(window.started, window.last_cube or window.started)
        if (camera_done and sensor_done) or waited >= timing.camera_wait_s:
            self._finish(window, now)

    def _finish(self, window: _Window, now: float) -> None:
        self._current = None
        notes: list[str] = []
        if (
            window.camera is not None
            and window.last_cube is not None
            and window.camera_at < window.last_cube
        ):
            # Settled before the last cube fell: a picture of a tray still filling up.
            window.camera = None
            notes.append("the camera's last settled picture was taken before the last cube fell")
        health = self.health()
        if window.camera is None:
            camera = health["camera"]
            if not camera.usable:
                notes.append(f"camera: {camera.message}")
            elif window.kind == "drop":
                notes.append("the camera gave no settled picture of the drop in time")
        sensor: SensorCount | None = None
        if health["sensor"].usable and window.baseline is not None and self._totals is not None:
            share = _difference(self._totals.totals, window.baseline.totals)
            if share is None:
                notes.append("the chute sensor restarted during the drop; its count is lost")
            else:
                doubts = [r for r in window.sensor_reasons if "still be falling" not in r]
                unknown = self._totals.unknown - window.baseline.unknown
                if unknown > 0:
                    doubts.append(f"{unknown} cube(s) fell whose colour the chute sensor missed")
                sure = unknown <= 0 and window.sensor_confidence >= SENSOR_SURE_AT
                sensor = SensorCount(share, sure, tuple(doubts) if not sure else ())
        elif health["sensor"].usable and window.kind == "drop":
            notes.append("the chute sensor was not counting when the drop began")
        elif health["sensor"].state is not Health.OFF and (
            window.camera is None or not window.camera.confident
        ):
            notes.append(f"chute sensor: {health['sensor'].message}")
        verdict = decide(
            window.number,
            window.camera,
            sensor,
            possible=window.possible,
            kind=window.kind,
            notes=tuple(notes),
        )
        before = window.tray_before if window.kind == "stray" else Counts()
        self._last_drop = (
            _LastDrop(window.number, window.possible, sensor, verdict.outcome)
            if window.kind == "drop"
            else None
        )
        if verdict.counts is not None:
            self._tray = (before or Counts()).plus(verdict.counts)
        else:
            self._tray = None
        self._post(verdict)

    def _post(self, reading: DropReading) -> None:
        self._on_reading(reading)


def _at_least(a: Counts, b: Counts) -> bool:
    return all(x >= y for x, y in zip(a.as_tuple(), b.as_tuple(), strict=True))


def _difference(now: Counts, before: Counts) -> Counts | None:
    """`now - before` colour by colour, or None when a total went down (the board restarted)."""
    try:
        return now.minus(before)
    except ValueError:
        return None
