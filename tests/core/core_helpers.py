"""Shared set-ups for the engine tests: games brought to a given point by real events."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.core.box import TEST_BOX, BoxData
from companion.core.components import CANNON_MAX, GOLD_MAX, TRADING_POSTS_PER_PLAYER
from companion.core.cubes import Counts
from companion.core.events import Drop, PirateRevealed, SetupDrop
from companion.core.game import Game
from companion.core.rules import check_conservation
from companion.core.state import Category, GameState
from companion.core.views import scores

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


PIRATES = list(Category).index(Category.PIRATES)


def check_state(state: GameState) -> None:
    """The invariants every state keeps: 49 cubes, no negative resources, scores add up."""
    check_conservation(state)
    assert sum(state.storage + state.action_space + state.stray + state.tower) == 49
    for player in state.players:
        assert 0 <= player.gold <= GOLD_MAX
        assert 0 <= player.cannons <= CANNON_MAX
        assert player.vp >= 0 and player.chests >= 0
        assert 0 <= player.posts_placed <= TRADING_POSTS_PER_PLAYER
        assert min(player.commodities) >= 0 and min(player.production) >= 0
        assert player.vp_by[PIRATES] <= 0
        assert all(v >= 0 for i, v in enumerate(player.vp_by) if i != PIRATES)
    for score in scores(state):
        assert sum(score.by_category.values()) == score.total
    assert state.progress_left >= 0 and state.progress_right >= 0 and state.progress_bag >= 0
    assert state.production_display >= 0 and min(state.commodities_left) >= 0
    assert state.chests_left >= 0
