"""A simulated game night: the engine's seeded players at a simulated tower, read by devices.

`play_clean` applies what really came out of the tower straight to the game (the truth);
`SimulatedTable.play` lets the same tower's cubes be read by the real reading service, fed by
the simulated camera through vision's Settler and by the simulated chute board through the real
chute reader, with faults from the tower's FaultPlan. A simulated person answers the service:
when asked to confirm or to type counts, they look at the tray and give the truth; when the
reading says cubes may lie hidden, they can first spread the tray's cubes for a second look.
Played through camera and sensor loss, both runs must end in the same game.
"""

from __future__ import annotations

import queue
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.core.cubes import Counts
from companion.core.events import Drop, SetupDrop, StrayCubes
from companion.core.game import Game
from companion.core.simulate import Simulator
from companion.core.state import Stage
from companion.devices.drops import could_come_out, cubes_to_drop
from companion.devices.feeds import CameraFeed, ChuteFeed
from companion.devices.frames import FrameSource
from companion.devices.health import Health, SourceHealth
from companion.devices.readings import (
    DropReading,
    Outcome,
    ReadingService,
    Timing,
    cubes_may_hide,
)
from companion.devices.sim_camera import SimulatedCamera, calibrate_simulated
from companion.devices.simtower import FaultPlan, Landing, SimulatedTower, TowerModel


def play_clean(players: int, seed: int, tower: SimulatedTower, *, max_events: int = 5000) -> Game:
    """The game with every landing applied as it really was (no devices, no faults)."""
    simulator = Simulator(players, seed)
    game = simulator.game
    for _ in range(max_events):
        state = game.state
        if state.finished:
            return game
        if state.stage in (Stage.SETUP_DROP, Stage.DROP):
            landing = tower.drop(cubes_to_drop(state))
            event = (
                SetupDrop(counts=landing.landed)
                if state.stage is Stage.SETUP_DROP
                else Drop(counts=landing.landed)
            )
            game.apply(event)
            if not game.state.finished:
                for stray in tower.pass_time():
                    game.apply(StrayCubes(counts=stray.landed))
        else:
            simulator.step()
    raise RuntimeError(f"the game did not finish within {max_events} steps")


@dataclass
class TableReport:
    """What happened at the table: the game, and how each count reached it."""

    game: Game
    readings: list[DropReading] = field(default_factory=list)
    tower_drops: dict[int, int] = field(default_factory=dict)
    """The tower's drop number (1 = set-up drop) for each of the service's drop numbers."""
    accepted: int = 0
    """Readings the app took without asking anybody."""
    confirmed: int = 0
    """Readings the person confirmed or chose between (camera and sensor disagreed, doubts)."""
    typed: int = 0
    """Counts the person typed in (no input could count them)."""
    strays_missed: int = 0
    """Stray landings no input noticed; the person saw them in the tray and typed them."""
    wrong_accepted: int = 0
    """Accepted readings that were not the truth: the worst error there is."""
    wrong: list[str] = field(default_factory=list)
    """Each wrong accepted reading: which drop, which input, what it said, what was true."""
    by_source: dict[str, int] = field(default_factory=dict)
    health: list[SourceHealth] = field(default_factory=list)
    latencies_s: list[float] = field(default_factory=list)
    """Seconds from the last cube leaving the tower to the reading reaching the app."""
    spreads: list[tuple[bool, bool]] = field(default_factory=list)
    """Each drop whose reading doubted hidden cubes, so the person spread the tray's cubes:
    whether the camera's counts were the truth before, and after (as the second look has
    them; the first counts when the service posted none, as it does for unchanged ones)."""
    second_looks: list[DropReading] = field(default_factory=list)
    """What the service posted once the cubes lay spread."""


@dataclass
class SimulatedTable:
    """The simulated devices around one simulated tower (call `play`, or use as a context)."""

    tower: SimulatedTower
    workdir: Path
    camera: bool = True
    sensor: bool = True
    size: tuple[int, int] = (640, 480)
    setup_seed: int | None = None
    """The simulated camera's set-up; None: the first that vision calibrates from."""
    timing: Timing = field(default_factory=Timing)
    reading_timeout_s: float = 30.0
    spread_when_hidden: bool = False
    """The person spreads the tray's cubes apart when a drop's reading says some may hide."""

    def __post_init__(self) -> None:
        self._inbox: queue.Queue[DropReading] = queue.Queue()
        self._health: list[SourceHealth] = []
        self.service = ReadingService(
            self._inbox.put,
            self._health.append,
            timing=self.timing,
            camera=SourceHealth("camera", Health.OFFLINE, "starting") if self.camera else None,
            sensor=SourceHealth("sensor", Health.OFFLINE, "starting") if self.sensor else None,
        )
        self._feed: CameraFeed | None = None
        self._chute_board: Any | None = None
        self._chute_reader: Any | None = None
        self._detach: Callable[[], None] | None = None
        self._seed = 0
        self._landing_number = 0

    # ---- devices -----------------------------------------------------------------------

    def _open_camera(self) -> FrameSource:
        return SimulatedCamera(self.tower, size=self.size, setup_seed=self._seed)

    def start(self) -> SimulatedTable:
        """Calibrate the camera, plug in the chute board, start the service and the feeds.

        Raises CalibrationError or RuntimeError (devices that never come up) after stopping
        whatever had started.
        """
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> SimulatedTable:
        self.service.start()
        if self.camera:
            from companion.vision.settle import Settler

            seeds = tuple(range(10)) if self.setup_seed is None else (self.setup_seed,)
            self._seed, profile = calibrate_simulated(self.tower, self.size, seeds)
            self._feed = CameraFeed(
                self._open_camera, Settler(profile), self.service, retry_s=0.3, timeout_s=2.0
            ).start()
        if self.sensor:
            from companion.devices.chute.simdevice import SimulatedChute

            board = SimulatedChute(self.workdir / "ttyCHUTE", heartbeat_s=0.5)
            board.plug()
            self._detach = board.attach(self.tower)
            self._chute_board = board
            feed = ChuteFeed(self.service)
            reader = feed.chute_reader(
                port=str(board.link),
                offline_after_s=1.5,
                settle_s=self.timing.sensor_quiet_s,
                backoff_s=(0.1, 0.5),
            )
            reader.start()
            self._chute_reader = reader
        self._wait_for_devices()
        return self

    def _wait_for_devices(self, limit_s: float = 15.0) -> None:
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            health = self.service.health()
            ready = (not self.camera or health["camera"].state is Health.OK) and (
                not self.sensor or health["sensor"].state is Health.OK
            )
            if ready:
                return
            time.sleep(0.02)
        raise RuntimeError(f"the simulated devices did not come up: {self.service.health()}")

    def _await_devices(self, limit_s: float = 10.0) -> None:
        """Wait until every input has noticed what the tower did to it (unplugged or back):
        at a real table minutes pass between drops, here only milliseconds would."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            health = self.service.health()
            camera_ok = not self.camera or (
                health["camera"].usable
                == (self.tower.camera_connected and not self.tower.camera_stalled)
            )
            sensor_ok = not self.sensor or (health["sensor"].usable == self.tower.sensor_connected)
            if camera_ok and sensor_ok:
                return
            time.sleep(0.02)
        raise RuntimeError(
            f"the simulated devices did not follow the tower: {self.service.health()}"
        )

    def stop(self) -> None:
        """Stop every thread and unplug the simulated board."""
        if self._feed is not None:
            self._feed.stop()
        if self._chute_reader is not None:
            self._chute_reader.stop()
        if self._detach is not None:
            self._detach()
        if self._chute_board is not None:
            self._chute_board.stop()
        self.service.stop()

    def __enter__(self) -> SimulatedTable:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    # ---- the game ------------------------------------------------------------------------

    def _drain(self) -> list[DropReading]:
        late: list[DropReading] = []
        while True:
            try:
                late.append(self._inbox.get_nowait())
            except queue.Empty:
                return late

    def _next_reading(self, kind: str, timeout_s: float) -> DropReading | None:
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                reading = self._inbox.get(timeout=left)
            except queue.Empty:
                return None
            if reading.kind == kind:
                return reading

    def _resolve(self, reading: DropReading, truth: Counts, report: TableReport) -> Counts:
        """What the simulated person lets through: accepted counts as they are, otherwise the
        truth they see in the tray."""
        report.readings.append(reading)
        report.by_source[reading.source] = report.by_source.get(reading.source, 0) + 1
        if reading.outcome is Outcome.ACCEPTED:
            assert reading.counts is not None
            report.accepted += 1
            if reading.counts != truth:
                report.wrong_accepted += 1
                report.wrong.append(
                    f"{reading.kind} after tower drop {self.tower.drops}: the {reading.source} "
                    f"said {reading.counts}, truth {truth} (camera {reading.camera}, sensor "
                    f"{reading.sensor}, landing {self._landing_number})"
                )
            return reading.counts
        if reading.outcome is Outcome.CONFIRM:
            report.confirmed += 1
        else:
            report.typed += 1
        return truth

    def _look_again(self, reading: DropReading, truth: Counts, report: TableReport) -> DropReading:
        """Spread the cubes when `reading` is unsure of hidden ones; the second look, if the
        service posts one, is what the person then answers (else the first reading)."""
        if reading.outcome is Outcome.ACCEPTED or not cubes_may_hide(reading.reasons):
            return reading
        self.tower.spread()
        # The service stays silent when the camera counts as before: wait as long as it
        # waits for the camera after a drop.
        again = self._next_reading("second look", self.timing.camera_wait_s)
        if again is not None:
            report.second_looks.append(again)
        after = again if again is not None else reading
        report.spreads.append((reading.camera == truth, after.camera == truth))
        return after

    def _last_cube(self, landing: Landing, dropped_at: float) -> float | None:
        if not landing.exits:
            return None
        return dropped_at + landing.exits[-1].at_s

    def play(self, players: int, seed: int, *, max_events: int = 5000) -> TableReport:
        """Play the engine's seeded game at this table; returns the report with the game."""
        simulator = Simulator(players, seed)
        game = simulator.game
        report = TableReport(game=game)
        for _ in range(max_events):
            state = game.state
            if state.finished:
                report.health = list(self._health)
                return report
            if state.stage not in (Stage.SETUP_DROP, Stage.DROP):
                simulator.step()
                continue
            self._await_devices()
            self._drain()
            cubes = cubes_to_drop(state)
            if cubes.total == 0:
                # Nothing to drop, so nothing can fall: the phase is skipped without a reading.
                counts = self.tower.drop(cubes).landed
            else:
                number = self.service.expect_drop(could_come_out(state))
                report.tower_drops[number] = self.tower.drops + 1
                dropped_at = time.monotonic()
                landing = self.tower.drop(cubes)
                self._landing_number = landing.number
                reading = self._next_reading("drop", self.reading_timeout_s)
                if reading is None:
                    raise RuntimeError(
                        f"no reading for drop {landing.drop} in {self.reading_timeout_s} s"
                    )
                last = self._last_cube(landing, dropped_at)
                if last is not None:
                    report.latencies_s.append(reading.at - last)
                if self.spread_when_hidden:
                    reading = self._look_again(reading, landing.landed, report)
                counts = self._resolve(reading, landing.landed, report)
            event = (
                SetupDrop(counts=counts) if state.stage is Stage.SETUP_DROP else Drop(counts=counts)
            )
            game.apply(event)
            if game.state.finished:
                continue
            for stray in self.tower.pass_time():
                reading = self._next_reading("stray", self.timing.camera_wait_s + 2.0)
                if reading is None:
                    report.strays_missed += 1
                    counts = stray.landed
                else:
                    self._landing_number = stray.number
                    counts = self._resolve(reading, stray.landed, report)
                game.apply(StrayCubes(counts=counts))
        raise RuntimeError(f"the game did not finish within {max_events} steps")


def play_with_devices(
    players: int,
    seed: int,
    *,
    tower_seed: int = 0,
    model: TowerModel | None = None,
    faults: FaultPlan | None = None,
    camera: bool = True,
    sensor: bool = True,
    size: tuple[int, int] = (640, 480),
    setup_seed: int | None = None,
    timing: Timing | None = None,
    spread_when_hidden: bool = False,
) -> TableReport:
    """One whole game at a simulated table with devices (a temporary folder for the pty)."""
    tower = SimulatedTower(seed=tower_seed, model=model, faults=faults)
    with tempfile.TemporaryDirectory(prefix="simtable-") as folder:
        table = SimulatedTable(
            tower,
            Path(folder),
            camera=camera,
            sensor=sensor,
            size=size,
            setup_seed=setup_seed,
            timing=timing or Timing(),
            spread_when_hidden=spread_when_hidden,
        )
        with table:
            return table.play(players, seed)
