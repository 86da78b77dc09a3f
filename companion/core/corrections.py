"""Corrections of tray readings, as a fold over the log.

A `Correction` replaces the counts of one earlier reading (a set-up drop, a drop or stray
cubes; by default the latest). The cubes did not move, so the game is re-folded from that
reading on with the corrected counts: every later event is applied again and must still be
legal, in the same round and phase as before. If one is not, the correction is refused with an
error naming the first event it would break and why. If players' turns were recorded after the
corrected reading, they are re-scored with the new counts and the state keeps a note saying so.

Undo of a correction is exact like any other player's input: the state before it comes back.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.core.cubes import Counts
from companion.core.draft import evolve
from companion.core.errors import RuleError
from companion.core.events import (
    CashChest,
    Correction,
    Drop,
    Event,
    SetupDrop,
    StrayCubes,
    TurnEvent,
    UseGoldToken,
)
from companion.core.rules import apply, is_tower_event
from companion.core.state import GameState, Stage

# Events that may happen at any time: re-folded, they need not fall in the same phase.
_ANY_TIME = (StrayCubes, CashChest, UseGoldToken)


def targets(events: Sequence[Event]) -> dict[int, int]:
    """For every correction in `events`, the index (0-based) of the reading it corrects."""
    found: dict[int, int] = {}
    latest = -1
    for index, event in enumerate(events):
        if is_tower_event(event):
            latest = index
        elif isinstance(event, Correction):
            found[index] = latest if event.drop is None else event.drop - 1
    return found


def latest_reading(events: Sequence[Event]) -> tuple[int, Counts] | None:
    """The latest tray reading in `events` (the one a correction corrects by default): its
    index (0-based) and its counts after any corrections; None before the first reading."""
    latest = next((i for i in range(len(events) - 1, -1, -1) if is_tower_event(events[i])), None)
    if latest is None:
        return None
    reading = events[latest]
    assert isinstance(reading, SetupDrop | Drop | StrayCubes)
    in_effect = _counts_in_effect(events, targets(events))
    return latest, in_effect.get(latest, reading.counts)


def target_of(events: Sequence[Event], correction: Correction) -> int:
    """The index (0-based) of the reading `correction` corrects; RuleError if it names none."""
    if correction.drop is None:
        for index in range(len(events) - 1, -1, -1):
            if is_tower_event(events[index]):
                return index
        raise RuleError("3 corrections", "there is no tray reading to correct yet")
    index = correction.drop - 1
    if index >= len(events):
        raise RuleError(
            "3 corrections", f"there is no event {correction.drop} yet (the log has {len(events)})"
        )
    if not is_tower_event(events[index]):
        raise RuleError(
            "3 corrections",
            f"event {correction.drop} is a {events[index].kind}, not a tray reading: name a "
            "setup_drop, drop or stray_cubes event",
        )
    return index


def _counts_in_effect(events: Sequence[Event], corrected_at: dict[int, int]) -> dict[int, Counts]:
    """The latest corrected counts of every reading corrected in `events`, by index."""
    return {target: events[at].counts for at, target in corrected_at.items()}  # type: ignore[union-attr]


def correct(
    states: Sequence[GameState], events: Sequence[Event], correction: Correction
) -> GameState:
    """The state after `correction` follows `events` (`states[i]`: the state after `events[:i]`).

    Raises RuleError naming the first later event the corrected counts would make illegal.
    """
    target = target_of(events, correction)
    reading = events[target]
    assert isinstance(reading, SetupDrop | Drop | StrayCubes)
    corrected_at = targets(events)
    counts = _counts_in_effect(events, corrected_at)
    old = counts.get(target, reading.counts)
    if correction.counts == old:
        raise RuleError(
            "3 corrections", f"event {target + 1} already has these counts: nothing to correct"
        )
    counts[target] = correction.counts
    # Re-fold from the earliest reading whose counts changed since the state there was made.
    start = target
    while True:
        earlier = [t for at, t in corrected_at.items() if at >= start and t < start]
        if not earlier:
            break
        start = min(earlier)
    state = states[start]
    for index in range(start, len(events)):
        event = events[index]
        before = states[index]
        if isinstance(event, Correction):
            # Its counts are already in `counts`: here it only counts as an event.
            state = evolve(state, {"events_applied": state.events_applied + 1})
            continue
        if not isinstance(event, _ANY_TIME) and (state.round, state.phase, state.stage) != (
            before.round,
            before.phase,
            before.stage,
        ):
            raise RuleError(
                "3 corrections",
                f"with these counts event {index + 1} ({event.kind}) would no longer come in "
                f"round {before.round}'s {before.colour.value} phase ({before.stage.value}) but "
                f"in round {state.round}'s {state.colour.value} phase ({state.stage.value})",
            )
        if index in counts:
            event = event.model_copy(update={"counts": counts[index]})
        try:
            state = apply(state, event)
        except RuleError as error:
            raise RuleError(
                "3 corrections",
                f"with these counts event {index + 1} ({event.kind}) would break rule "
                f"{error.rule}: {error.detail}",
            ) from None
    last = states[-1]
    acted, later = _turns_after(events, target)
    notes = last.notes
    flag = last.reading_corrected_after_action and (state.round, state.phase) == (
        last.round,
        last.phase,
    )
    if acted or later:
        before = states[target]
        told = [f"{acted} player turn(s) had acted on it"] if acted else []
        told += [f"{later} player turn(s) recorded after it"] if later else []
        notes = (
            *notes,
            f"event {target + 1} ({reading.kind}, round {before.round} {before.colour.value}) "
            f"corrected from {old} to {correction.counts}; {' and '.join(told)}: "
            "checked and scored again with the corrected counts",
        )
        current_phase = (
            isinstance(reading, Drop)
            and state.stage is Stage.TURNS
            and (state.round, state.phase) == (before.round, before.phase)
        )
        flag = flag or (acted > 0 and current_phase)
    return evolve(
        state,
        {
            "notes": notes,
            "reading_corrected_after_action": flag,
            "events_applied": state.events_applied + 1,
        },
    )


def _turns_after(events: Sequence[Event], target: int) -> tuple[int, int]:
    """Player turns after the reading at `target`: (in its phase, when a drop; in later phases)."""
    acted = later = 0
    in_phase = isinstance(events[target], Drop)
    for event in events[target + 1 :]:
        if isinstance(event, Drop | SetupDrop):
            in_phase = False
        elif isinstance(event, TurnEvent):
            if in_phase:
                acted += 1
            else:
                later += 1
    return acted, later
