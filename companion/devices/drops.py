"""What goes into the tower at a drop, and the most that can come out, from the game's state."""

from __future__ import annotations

from companion.core.cubes import COLOURS, Counts
from companion.core.state import GameState, Stage


def cubes_to_drop(state: GameState) -> Counts:
    """What the players put into the tower now: all set-up cubes, or the phase's storage plus
    the strays lying in the tray."""
    if state.stage is Stage.SETUP_DROP:
        return Counts.full()
    phase = [0] * len(COLOURS)
    phase[state.phase] = state.storage[state.phase]
    return Counts.from_tuple(phase).plus(Counts.from_tuple(list(state.stray)))


def could_come_out(state: GameState) -> Counts:
    """The most of each colour a reading of the coming drop may show (dropped plus inside)."""
    if state.stage is Stage.SETUP_DROP:
        return Counts.full()
    return Counts.from_tuple(list(state.tower)).plus(cubes_to_drop(state))
