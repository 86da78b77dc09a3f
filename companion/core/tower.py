"""Tower events: the set-up drop, phase drops, stray cubes (corrections: `corrections`)."""

from __future__ import annotations

from operator import add, gt, sub

from companion.core.cubes import COLOURS, CUBES_PER_COLOUR
from companion.core.draft import Draft
from companion.core.errors import InconsistentReadingError, RuleError
from companion.core.events import Drop, SetupDrop, StrayCubes
from companion.core.flow import EMPTY7, begin_phase, end_phase, order_of, skip_phase
from companion.core.state import Stage

Seven = tuple[int, ...]


def _check_came_out(reading: Seven, could: Seven, what: str) -> None:
    """Refuse a reading with more cubes of a colour than could have come out of the tower."""
    too_many = [
        f"{colour.value} {n} > {limit}"
        for colour, n, limit in zip(COLOURS, reading, could, strict=True)
        if n > limit
    ]
    if too_many:
        raise InconsistentReadingError(
            "3 the 49 cubes are conserved",
            f"{what} shows more cubes than could have come out ({', '.join(too_many)}): "
            "count the tray again",
        )


def _minus(a: Seven, b: Seven) -> Seven:
    return tuple(map(sub, a, b))


def _plus(a: Seven, b: Seven) -> Seven:
    return tuple(map(add, a, b))


def setup_drop(d: Draft, event: SetupDrop) -> None:
    """Set-up (2.6): the cubes in the tray go to storage; the rest stay hidden in the tower."""
    if d.base.stage is not Stage.SETUP_DROP:
        raise RuleError(
            "2.6 set-up drop", f"the set-up drop is already done (waiting for {d.base.stage})"
        )
    reading = event.counts.as_tuple()
    _check_came_out(reading, (CUBES_PER_COLOUR,) * 7, "the set-up reading")
    d.set(storage=reading, tower=_minus((CUBES_PER_COLOUR,) * 7, reading))
    begin_phase(d)


def drop(d: Draft, event: Drop) -> None:
    """A phase's drop (3): its storage cubes and any strays go in; the tray is the action space."""
    state = d.base
    if state.stage is not Stage.DROP:
        raise RuleError("3 game flow", f"no drop is due now (waiting for {state.stage})")
    phase = state.phase
    tower = list(state.tower)
    tower[phase] += state.storage[phase]
    tower_in = _plus(tuple(tower), state.stray)
    storage = list(state.storage)
    storage[phase] = 0
    reading = event.counts.as_tuple()
    if any(map(gt, reading, tower_in)):
        _check_came_out(reading, tower_in, f"the {state.colour.value} phase's reading")
    d.set(
        tower=_minus(tower_in, reading),
        storage=tuple(storage),
        stray=EMPTY7,
        action_space=reading,
    )
    if sum(reading) == 0:
        skip_phase(d)
        return
    d.set(stage=Stage.TURNS, turn_order=order_of(state.players), turn_index=0)


def stray_cubes(d: Draft, event: StrayCubes) -> None:
    """Cubes that fell out at the wrong time wait in the tray for the next drop (3)."""
    state = d.base
    if state.stage in (Stage.SETUP_DROP, Stage.FINISHED) or state.tower_event_count == 0:
        raise RuleError(
            "3 stray cubes", "stray cubes can only fall between the set-up drop and the game's end"
        )
    reading = event.counts.as_tuple()
    if sum(reading) == 0:
        raise RuleError("3 stray cubes", "a stray-cubes reading needs at least one cube")
    _check_came_out(reading, state.tower, "the stray cubes")
    d.set(
        tower=_minus(state.tower, reading),
        stray=_plus(state.stray, reading),
    )


__all__ = ["drop", "end_phase", "setup_drop", "stray_cubes"]
