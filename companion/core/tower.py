"""Tower events: the set-up drop, phase drops, stray cubes, corrections of a reading."""

from __future__ import annotations

from companion.core.cubes import COLOURS, CUBES_PER_COLOUR, Counts
from companion.core.draft import Draft
from companion.core.errors import InconsistentReadingError, RuleError
from companion.core.events import Correction, Drop, SetupDrop, StrayCubes
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
    return tuple(x - y for x, y in zip(a, b, strict=True))


def _plus(a: Seven, b: Seven) -> Seven:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def setup_drop(d: Draft, event: SetupDrop) -> None:
    """Set-up (2.6): the cubes in the tray go to storage; the rest stay hidden in the tower."""
    if d.base.stage is not Stage.SETUP_DROP:
        raise RuleError(
            "2.6 set-up drop", f"the set-up drop is already done (waiting for {d.base.stage})"
        )
    reading = event.counts.as_tuple()
    _check_came_out(reading, (CUBES_PER_COLOUR,) * 7, "the set-up reading")
    d.set(storage=reading, tower=_minus((CUBES_PER_COLOUR,) * 7, reading), last_reading="setup")
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
    _check_came_out(reading, tower_in, f"the {state.colour.value} phase's reading")
    d.set(
        tower=_minus(tower_in, reading),
        storage=tuple(storage),
        stray=EMPTY7,
        action_space=reading,
        last_reading="drop",
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
        last_reading="stray",
        last_stray=reading,
    )


def correction(d: Draft, event: Correction) -> None:
    """Replace the counts of the latest reading; the cubes themselves did not move."""
    state = d.base
    new = event.counts.as_tuple()
    if state.last_reading == "drop" and state.stage is Stage.TURNS:
        old = state.action_space
        _check_came_out(new, _plus(state.tower, old), "the corrected reading")
        tower = _minus(_plus(state.tower, old), new)
        if sum(new) == 0:
            if state.turn_index > 0:
                raise RuleError(
                    "3 skipped phases",
                    "players already acted on this reading, so it cannot become empty",
                )
            d.set(tower=tower, action_space=EMPTY7)
            skip_phase(d)
            return
        d.set(tower=tower, action_space=new)
        if state.turn_index > 0:
            d.set(
                reading_corrected_after_action=True,
                notes=(
                    *state.notes,
                    f"round {state.round} {state.colour.value}: reading corrected from "
                    f"{Counts.from_tuple(list(old))} to {Counts.from_tuple(list(new))} after "
                    f"{state.turn_index} player(s) had acted on it",
                ),
            )
        return
    if state.last_reading == "setup" and state.tower_event_count == 1 and state.stage is Stage.DROP:
        # Nothing was dropped since set-up: redo the set-up with the right counts.
        _check_came_out(new, (CUBES_PER_COLOUR,) * 7, "the corrected set-up reading")
        d.set(
            storage=new,
            tower=_minus((CUBES_PER_COLOUR,) * 7, new),
            phase=0,
            skipped=tuple(s for s in state.skipped if s[0] != state.round),
        )
        begin_phase(d)
        return
    if state.last_reading == "stray":
        old = state.last_stray
        _check_came_out(new, _plus(state.tower, old), "the corrected stray cubes")
        d.set(
            tower=_minus(_plus(state.tower, old), new),
            stray=_plus(_minus(state.stray, old), new),
            last_stray=new,
        )
        return
    raise RuleError(
        "3 corrections",
        "there is no reading to correct now: a reading can be corrected while its phase is "
        "being played (or, for the set-up drop, before the first phase's drop)",
    )


__all__ = ["correction", "drop", "end_phase", "setup_drop", "stray_cubes"]
