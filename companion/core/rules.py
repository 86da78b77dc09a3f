"""The rules as a fold: `new_game` gives the state before any event, `apply` one event more.

`apply(state, event)` returns the next state or raises a `RuleError` (a ValueError) naming the
rule broken; the given state is never changed, so nothing is ever half-applied. The 49-cube
conservation is checked after every event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from operator import add
from typing import Any

from companion.core import actions, tower
from companion.core.box import BoxData
from companion.core.components import (
    CHEST_GOLD,
    GOLD_TOKEN_VALUE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PIRATES_ON_BOARD,
    production_display_size,
    starting_gold,
)
from companion.core.cubes import CUBES_PER_COLOUR
from companion.core.draft import Draft
from companion.core.errors import RuleError
from companion.core.events import (
    AdvanceOrder,
    Build,
    BuyProduction,
    CashChest,
    Drop,
    Event,
    LoadCannons,
    MoveShips,
    Pass,
    PirateRevealed,
    Plan,
    Progress,
    SetupDrop,
    StrayCubes,
    TakeGold,
    TakeVictoryPoints,
    UseGoldToken,
)
from companion.core.flow import begin_phase
from companion.core.options import RuleOptions
from companion.core.state import GameState, OwnedToken, Player, Stage


def new_game(players: Iterable[str], options: RuleOptions, box: BoxData) -> GameState:
    """The state after set-up steps 1-5: `players` in the starting stack, top (first) first.

    Starting gold is 1 per player ahead (2.5). The game then waits for the first pirate marker
    to be revealed, then for the set-up drop.
    """
    names = tuple(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise RuleError("1 players", f"Amerigo is for 2 to 4 players, not {len(names)}")
    if any(not name.strip() for name in names) or len(set(names)) != len(names):
        raise RuleError("2.3 players", "every player needs a name of their own")
    sheets = tuple(
        Player(name=name, gold=starting_gold(i), stamp=len(names) - i)
        for i, name in enumerate(names)
    )
    return GameState(
        options=options,
        box=box,
        players=sheets,
        production_display=production_display_size(len(names)),
    )


def _reveal_pirate(d: Draft, event: PirateRevealed) -> None:
    state = d.base
    if state.stage is not Stage.REVEAL_PIRATE:
        raise RuleError(
            "7.2 pirates", f"no pirate marker is to be revealed now (waiting for {state.stage})"
        )
    pool = state.box.pirate_pool()
    if pool is not None:
        left = pool - Counter(state.pirates)
        if left[event.value] == 0:
            values = sorted(left.elements())
            raise RuleError(
                "2.4 pirate markers",
                f"no pirate marker of strength {event.value} is left (face down: {values})",
            )
    if len(state.pirates) >= PIRATES_ON_BOARD:
        raise RuleError("2.4 pirate markers", "all 5 pirate markers are already face up")
    d.set(pirates=(*state.pirates, event.value))
    if state.tower_event_count == 0:
        d.set(stage=Stage.SETUP_DROP)
    else:
        begin_phase(d)


def _cash_chest(d: Draft, event: CashChest) -> None:
    _check_player(d.base, event.player)
    player = d.players[event.player]
    if player.chests == 0:
        raise RuleError("3.4 treasure chests", f"{player.name} has no treasure chest")
    d.update(event.player, chests=player.chests - 1)
    d.gain_gold(event.player, CHEST_GOLD)


def _use_gold_token(d: Draft, event: UseGoldToken) -> None:
    _check_player(d.base, event.player)
    player = d.players[event.player]
    tokens = list(player.tokens)
    for i, token in enumerate(tokens):
        if token.kind is event.token and not token.used:
            tokens[i] = OwnedToken(token.kind, token.actions, True)
            d.update(event.player, tokens=tuple(tokens))
            d.gain_gold(event.player, GOLD_TOKEN_VALUE[event.token])
            return
    raise RuleError("9 progress tokens", f"{player.name} has no unused {event.token.value} token")


def _check_player(state: GameState, player: int) -> None:
    if player >= len(state.players):
        raise RuleError(
            "2.3 players", f"there is no player {player} in a {len(state.players)}-player game"
        )
    if state.stage is Stage.FINISHED:
        raise RuleError("8 end of the game", "the game is over")


_HANDLERS: dict[type[Any], Callable[[Draft, Any], None]] = {
    SetupDrop: tower.setup_drop,
    Drop: tower.drop,
    StrayCubes: tower.stray_cubes,
    PirateRevealed: _reveal_pirate,
    CashChest: _cash_chest,
    UseGoldToken: _use_gold_token,
    **{
        kind: actions.take_turn
        for kind in (
            MoveShips,
            LoadCannons,
            Plan,
            Progress,
            Build,
            BuyProduction,
            AdvanceOrder,
            TakeGold,
            TakeVictoryPoints,
            Pass,
        )
    },
}
_TOWER_EVENTS = (SetupDrop, Drop, StrayCubes)
_TOWER_KINDS = frozenset(_TOWER_EVENTS)


_SEVEN_EACH = [CUBES_PER_COLOUR] * 7


def apply(state: GameState, event: Event) -> GameState:
    """The state after one more event; raises RuleError (a ValueError) if the event is illegal.

    Every event but a `Correction`, which needs the log (`corrections.correct`).
    """
    kind = type(event)
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise RuleError(
            "3 corrections",
            "a correction re-checks the game from the corrected reading on, so it needs the log: "
            "apply it with Game.apply or replay a log (companion.core.corrections)",
        )
    draft = Draft(state)
    handler(draft, event)
    fields = draft.fields
    fields["events_applied"] = state.events_applied + 1
    if kind in _TOWER_KINDS:
        fields["tower_event_count"] = state.tower_event_count + 1
    # Cubes move only where one of these fields changed; an unchanged one was checked before.
    moved = (
        fields["storage"] is not state.storage
        or fields["action_space"] is not state.action_space
        or fields["stray"] is not state.stray
        or fields["tower"] is not state.tower
    )
    new = draft.finish()
    if moved:
        check_conservation(new)
    return new


def check_conservation(state: GameState) -> None:
    """Per colour: storage + action space + stray + tower = 7, none below zero (section 3)."""
    storage, space, stray, tower = state.storage, state.action_space, state.stray, state.tower
    if min(storage) < 0 or min(space) < 0 or min(stray) < 0 or min(tower) < 0:
        raise RuleError("3 the 49 cubes are conserved", "a cube location went below zero")
    if list(map(add, map(add, storage, space), map(add, stray, tower))) != _SEVEN_EACH:
        raise RuleError("3 the 49 cubes are conserved", "the cubes of a colour do not add up to 7")


def is_tower_event(event: Event) -> bool:
    """True for events that record cubes really falling (undo stops at them)."""
    return isinstance(event, _TOWER_EVENTS)
