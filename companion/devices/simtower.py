"""A virtual dice tower: cubes stick inside and get knocked loose, with faults on demand.

It feeds the simulated camera (what lies in the tray) and the simulated chute sensor (the colour
and time of every cube leaving the tower), so a whole game can be played on a laptop and in
end-to-end tests. The 49 cubes are conserved: every cube is either inside the tower or outside
it (in the tray, on the board, in a hand), and `inside + outside` is always 7 of each colour.

The model is a tunable guess at a cardboard tower, not a measurement: each dropped cube sticks
on a baffle with some probability while there is room; each stuck cube is knocked loose by each
cube that falls past it with a smaller probability. Everything is drawn from one seeded
generator, so the same seed, model, fault plan and drops give the same landings.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.core.cubes import COLOURS, Colour, Counts


class TowerModel(BaseModel):
    """The knobs of the sticking model and of the random faults; probabilities are 0..1."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stick: float = Field(default=0.35, ge=0, le=1, description="a dropped cube sticks")
    knock: float = Field(
        default=0.06, ge=0, le=1, description="one falling cube frees one stuck cube"
    )
    capacity: int = Field(default=28, ge=0, le=49, description="at most this many stuck cubes")
    stray: float = Field(
        default=0.0, ge=0, le=1, description="after a drop, a stuck cube falls out later"
    )
    bump: float = Field(default=0.0, ge=0, le=1, description="between drops, the table is bumped")
    bump_knock: float = Field(
        default=0.4, ge=0, le=1, description="a bump frees each stuck cube with this chance"
    )
    first_exit_s: float = Field(default=0.25, ge=0, description="drop to first cube out, s")
    gap_s: tuple[float, float] = Field(
        default=(0.02, 0.12), description="seconds between cubes leaving, drawn uniformly"
    )


class FaultKind(StrEnum):
    """A device fault the simulated devices act out."""

    CAMERA_LOST = "camera_lost"
    """The camera is unplugged: frames stop."""
    CAMERA_STALLED = "camera_stalled"
    """The camera stays open but frames stop coming (a hung driver, a saturated USB bus)."""
    CAMERA_BACK = "camera_back"
    """The camera is plugged back in, or frames come again."""
    SENSOR_LOST = "sensor_lost"
    """The chute sensor drops out: cubes leaving the tower are not reported."""
    SENSOR_BACK = "sensor_back"
    """The chute sensor is back."""


class FaultPlan(BaseModel):
    """Faults scripted against drop numbers (1 = the first drop), for repeatable tests.

    Device faults happen just before the numbered drop; `bump_after` bumps the table after that
    drop has settled, `stray_after` makes a stuck cube (if any) fall out then (both in
    `pass_time`, so their cubes lie in the tray as strays until the next drop).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    device: dict[int, tuple[FaultKind, ...]] = Field(default_factory=dict)
    bump_after: frozenset[int] = frozenset()
    stray_after: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Exit:
    """One cube leaving the tower: its colour and seconds since its landing began."""

    colour: Colour
    at_s: float


Cause = Literal["drop", "stray", "bump"]


@dataclass(frozen=True, slots=True)
class Landing:
    """Cubes that came out together: a drop's, or strays falling later, or a bump's.

    `landed` is what came out (the colour-wise count of `exits`); `dropped` what was put in
    (zero for strays and bumps); `inside_after` is the tower's hidden content afterwards.
    `number` counts landings from 1; `drop` is the drop it follows or belongs to (0: none yet).
    """

    number: int
    drop: int
    cause: Cause
    dropped: Counts
    landed: Counts
    exits: tuple[Exit, ...]
    inside_after: Counts


@dataclass(frozen=True, slots=True)
class FaultEvent:
    """A device fault happening now, before drop number `drop`."""

    kind: FaultKind
    drop: int


@dataclass(frozen=True, slots=True)
class Spread:
    """A player's hand spreading the tray's cubes apart so the camera sees each one; nothing
    moves between tower and tray, so there is nothing more to say."""


TowerEvent = Landing | FaultEvent | Spread
Listener = Callable[[TowerEvent], None]


class TowerError(ValueError):
    """A drop that the tower cannot take (more cubes than are outside it)."""


class SimulatedTower:
    """The virtual tower; `drop` and `pass_time` return landings and tell every listener.

    `inside` is what is stuck inside at the start (a resumed game; default: nothing).

    Listeners (the simulated camera and chute sensor) are called on the caller's thread, in
    subscription order, with every Landing, FaultEvent and Spread as it happens.
    """

    def __init__(
        self,
        seed: int = 0,
        model: TowerModel | None = None,
        faults: FaultPlan | None = None,
        *,
        inside: Counts | None = None,
    ) -> None:
        self.model = model or TowerModel()
        self.faults = faults or FaultPlan()
        self._rng = random.Random(seed)
        # A resumed game: the engine knows what is stuck inside, so the tower starts with it.
        self._inside = list((inside or Counts()).as_tuple())
        self._tray = Counts()
        self._drops = 0
        self._landings = 0
        self._pending_stray = False
        self._bumped = False
        self._camera_connected = True
        self._camera_stalled = False
        self._sensor_connected = True
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def reset_inside(self, inside: Counts) -> None:
        """Make the tower hold exactly `inside` and the tray nothing: the game's own account
        wins when a person typed other counts than the simulation let out."""
        self._inside = list(inside.as_tuple())
        self._tray = Counts()
        self._pending_stray = False

    @property
    def inside(self) -> Counts:
        """Cubes stuck inside the tower now (hidden from the players)."""
        return Counts.from_tuple(self._inside)

    @property
    def outside(self) -> Counts:
        """Every cube not inside the tower: 7 of each colour minus `inside`."""
        return Counts.full().minus(self.inside)

    @property
    def tray(self) -> Counts:
        """Cubes lying in the tray now: the last drop's landing plus any strays since."""
        return self._tray

    @property
    def camera_connected(self) -> bool:
        """False between a CAMERA_LOST fault and the next CAMERA_BACK."""
        return self._camera_connected

    @property
    def camera_stalled(self) -> bool:
        """True between a CAMERA_STALLED fault and the next CAMERA_BACK."""
        return self._camera_stalled

    @property
    def sensor_connected(self) -> bool:
        """False between a SENSOR_LOST fault and the next SENSOR_BACK."""
        return self._sensor_connected

    def inject(self, kind: FaultKind) -> None:
        """Act out a device fault now (scripted faults come from the FaultPlan)."""
        if kind is FaultKind.CAMERA_STALLED:
            self._camera_stalled = True
        elif kind in (FaultKind.CAMERA_LOST, FaultKind.CAMERA_BACK):
            self._camera_connected = kind is FaultKind.CAMERA_BACK
            self._camera_stalled = False
        else:
            self._sensor_connected = kind is FaultKind.SENSOR_BACK
        self._tell(FaultEvent(kind=kind, drop=self._drops + 1))

    @property
    def drops(self) -> int:
        """How many drops so far."""
        return self._drops

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every future event; returns a function that unsubscribes."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _tell(self, event: TowerEvent) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)

    def drop(self, cubes: Counts) -> Landing:
        """Drop `cubes` (taken from outside the tower) and return what lands in the tray.

        Before the drop, the scripted device faults for this drop number happen. The tray is
        emptied first: players pick up the last phase's cubes and any strays, which they drop
        now with `cubes`.
        Raises TowerError when `cubes` holds more of a colour than is outside the tower.
        """
        outside = self.outside
        try:
            outside.minus(cubes)
        except ValueError as error:
            raise TowerError(
                f"cannot drop {cubes}: only {outside} are outside the tower ({error})"
            ) from None
        number = self._drops + 1
        for kind in self.faults.device.get(number, ()):
            self.inject(kind)
        self._drops = number
        self._tray = Counts()

        stuck_before = list(self._inside)
        out: list[Colour] = []
        # Cubes fall in action-circuit order of colour so that one seed gives one result.
        for colour in COLOURS:
            for _ in range(cubes[colour]):
                room = sum(self._inside) < self.model.capacity
                if room and self._rng.random() < self.model.stick:
                    self._inside[colour.position] += 1
                else:
                    out.append(colour)
        passing = len(out)
        freed = 1.0 - (1.0 - self.model.knock) ** passing if passing else 0.0
        for colour in COLOURS:
            for _ in range(stuck_before[colour.position]):
                if self._rng.random() < freed:
                    self._inside[colour.position] -= 1
                    out.append(colour)
        landing = self._land(number, "drop", cubes, out)
        self._bumped = False
        if number in self.faults.stray_after or self._rng.random() < self.model.stray:
            self._pending_stray = True
        return landing

    def spread(self) -> None:
        """A hand spreads the cubes lying in the tray apart (the camera looks again)."""
        self._tell(Spread())

    def pass_time(self) -> list[Landing]:
        """Time passes between drops: a pending stray falls, the table may be bumped.

        Returns the landings that happened (possibly none); their cubes stay in the tray.
        """
        happened: list[Landing] = []
        if self._pending_stray:
            self._pending_stray = False
            stuck = [c for c in COLOURS for _ in range(self._inside[c.position])]
            if stuck:
                colour = self._rng.choice(stuck)
                self._inside[colour.position] -= 1
                happened.append(self._land(self._drops, "stray", Counts(), [colour]))
        scripted = self._drops in self.faults.bump_after and not self._bumped
        if scripted or (self.model.bump and self._rng.random() < self.model.bump):
            self._bumped = True
            landing = self._bump(self._drops)
            if landing is not None:
                happened.append(landing)
        return happened

    def _bump(self, after_drop: int) -> Landing | None:
        out: list[Colour] = []
        for colour in COLOURS:
            for _ in range(self._inside[colour.position]):
                if self._rng.random() < self.model.bump_knock:
                    out.append(colour)
        if not out:
            return None
        for colour in out:
            self._inside[colour.position] -= 1
        return self._land(after_drop, "bump", Counts(), out)

    def _land(self, drop: int, cause: Cause, dropped: Counts, out: list[Colour]) -> Landing:
        self._rng.shuffle(out)
        low, high = self.model.gap_s
        at = self.model.first_exit_s
        exits: list[Exit] = []
        for colour in out:
            exits.append(Exit(colour=colour, at_s=round(at, 4)))
            at += self._rng.uniform(low, high)
        landed = Counts.of({colour: out.count(colour) for colour in COLOURS})
        self._landings += 1
        self._tray = self._tray.plus(landed)
        landing = Landing(
            number=self._landings,
            drop=drop,
            cause=cause,
            dropped=dropped,
            landed=landed,
            exits=tuple(exits),
            inside_after=self.inside,
        )
        self._tell(landing)
        return landing
