"""Shared set-ups for the engine tests: games brought to a given point by real events."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.core.box import TEST_BOX, BoxData
from companion.core.cubes import Counts
from companion.core.events import Drop, PirateRevealed, SetupDrop
from companion.core.game import Game
from companion.core.state import GameState

NAMES4 = ("red", "white", "blue", "yellow")


def at_blue_phase(
    names: tuple[str, ...] = NAMES4, box: BoxData = TEST_BOX, pirate: int = 3
) -> Game:
    """A game whose set-up drop put all 7 blue cubes in storage (the rest stayed in the tower)."""
    game = Game.new(names, box=box)
    game.apply(PirateRevealed(value=pirate))
    game.apply(SetupDrop(counts=Counts.of({"blue": 7})))
    return game


def with_tray(
    tray: dict[str, int], names: tuple[str, ...] = NAMES4, box: BoxData = TEST_BOX
) -> Game:
    """A game in round 1's blue phase whose tray (the action space) holds `tray`."""
    game = at_blue_phase(names, box)
    game.apply(Drop(counts=Counts.of(tray)))
    return game


def with_players(state: GameState, **changes: dict[str, Any]) -> GameState:
    """The state with some players' sheets changed: with_players(s, p0={"gold": 9})."""
    players = list(state.players)
    for key, fields in changes.items():
        index = int(key[1:])
        players[index] = replace(players[index], **fields)
    return replace(state, players=tuple(players))
