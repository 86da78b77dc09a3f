"""Derived views for the screen and the devices: pure functions of a state.

Nothing here changes a state; everything can be recomputed at any time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.core.actions import on_last_space, special_space_colour, token_bonus
from companion.core.components import GOODS, ProgressKind
from companion.core.cubes import COLOURS, Colour, Counts
from companion.core.flow import order_of
from companion.core.options import TieBreak
from companion.core.state import CATEGORIES, GameState, Stage

ACTION_NAMES = {
    Colour.BLUE: "move ships",
    Colour.BLACK: "load cannons",
    Colour.RED: "plan",
    Colour.BROWN: "progress",
    Colour.GREEN: "build",
    Colour.YELLOW: "buy production",
    Colour.WHITE: "player order",
}


@dataclass(frozen=True, slots=True)
class Choice:
    """One thing a player may choose in the current phase.

    `kind` is an action colour's value, "special" (white as another colour), "gold" or "vp".
    `ap` is the action's AP before gold (phase AP plus token bonuses); `amount` is the gold or
    VP the gold or VP alternative gives. `colour` is the action performed (None for gold/VP).
    """

    kind: str
    colour: Colour | None
    ap: int
    amount: int = 0
    label: str = ""


def available_choices(state: GameState, player: int) -> tuple[Choice, ...]:
    """Everything `player` may choose now, with its AP (bonuses included; gold adds 1 AP each).

    Empty when no phase is being played. It does not depend on whose turn it is, so the screen
    can show every player's options.
    """
    if state.stage is not Stage.TURNS:
        return ()
    sheet = state.players[player]
    space = state.action_space
    ap = state.phase_ap
    choices: list[Choice] = []
    swap = sheet.owns(ProgressKind.GREEN_RED) > 0
    for colour in COLOURS:
        present = space[colour.position] > 0
        if not present and swap and colour in (Colour.RED, Colour.GREEN):
            other = Colour.GREEN if colour is Colour.RED else Colour.RED
            present = space[other.position] > 0
        if present:
            choices.append(
                Choice(
                    colour.value,
                    colour,
                    ap + token_bonus(sheet, colour),
                    label=ACTION_NAMES[colour],
                )
            )
    white_ok = space[Colour.WHITE.position] > 0 or not state.options.white_needs_white_cubes
    if white_ok and sheet.track > 0:
        under = special_space_colour(state, sheet)
        if state.options.last_space_any_colour and on_last_space(state, sheet):
            targets: tuple[Colour, ...] = COLOURS[:-1]
        elif under is None:
            targets = COLOURS[:-1]  # the box data lacks the track: the player names the colour
        else:
            targets = (under,)
        for colour in targets:
            bonus = token_bonus(sheet, colour) if state.options.special_action_token_bonus else 0
            choices.append(
                Choice("special", colour, ap + bonus, label=f"special: {ACTION_NAMES[colour]}")
            )
    divisor = 2 if sheet.owns(ProgressKind.GOLD_2_1) else 3
    cubes = state.cubes_in_action_space
    choices.append(Choice("gold", None, 0, -(-cubes // divisor), label="take gold"))
    if sheet.unused(ProgressKind.VP_FOR_CUBES) or (
        sheet.owns(ProgressKind.VP_FOR_CUBES) and not state.options.vp_token_once
    ):
        choices.append(Choice("vp", None, 0, cubes, label="take VP"))
    return tuple(choices)


def player_order(state: GameState) -> tuple[int, ...]:
    """Player order as the special track stands now (applies from the next phase's drop)."""
    return order_of(state.players)


def whose_turn(state: GameState) -> int | None:
    """The player to act now, or None when no turn is awaited."""
    return state.current_player


def still_to_act(state: GameState) -> tuple[int, ...]:
    """The players after the current one in this phase's order."""
    if state.stage is not Stage.TURNS:
        return ()
    return state.turn_order[state.turn_index + 1 :]


def tower_contents(state: GameState) -> Counts:
    """The cubes hidden in the tower now, per colour (known exactly from conservation)."""
    return Counts.from_tuple(list(state.tower))


@dataclass(frozen=True, slots=True)
class Score:
    """One player's VP by category (zeros included); `total` is their sum and the VP track."""

    player: int
    name: str
    by_category: dict[str, int]
    total: int


def scores(state: GameState) -> tuple[Score, ...]:
    """Every player's score with its breakdown; the categories always add up to the total."""
    return tuple(
        Score(i, p.name, {c.value: v for c, v in zip(CATEGORIES, p.vp_by, strict=True)}, p.vp)
        for i, p in enumerate(state.players)
    )


def ranking(state: GameState) -> tuple[int, ...]:
    """Players from best to worst: most VP, ties broken by the chosen rule (section 8)."""
    order = order_of(state.players)
    position = {player: i for i, player in enumerate(order)}
    players = state.players
    if state.options.tie_break is TieBreak.PLAYER_ORDER:
        return tuple(sorted(range(len(players)), key=lambda i: (-players[i].vp, position[i])))
    return tuple(sorted(range(len(players)), key=lambda i: (-players[i].vp, -players[i].track, i)))


def winners(state: GameState) -> tuple[int, ...]:
    """The winner, or the still-tied players when the tie-break cannot separate them (DE rule)."""
    best = ranking(state)
    first = state.players[best[0]]
    if state.options.tie_break is TieBreak.PLAYER_ORDER:
        return best[:1]
    return tuple(
        i for i in best if state.players[i].vp == first.vp and state.players[i].track == first.track
    )


def _by_colour(values: tuple[int, ...]) -> dict[str, int]:
    return {colour.value: n for colour, n in zip(COLOURS, values, strict=True)}


def state_summary(state: GameState) -> dict[str, Any]:
    """The whole state and every score breakdown as plain JSON-ready data (for `game replay`)."""
    players = []
    for index, player in enumerate(state.players):
        colour = special_space_colour(state, player)
        players.append(
            {
                "index": index,
                "name": player.name,
                "vp": player.vp,
                "breakdown": {c.value: v for c, v in zip(CATEGORIES, player.vp_by, strict=True)},
                "gold": player.gold,
                "cannons": player.cannons,
                "progress_space": player.progress,
                "progress_vp_reached": player.progress_vp,
                "special_space": player.track,
                "special_vp_reached": player.special_vp,
                "special_space_colour": None if colour is None else colour.value,
                "treasure_chests": player.chests,
                "trading_posts_placed": player.posts_placed,
                "ships_placed": player.ships_placed,
                "progress_tokens": [
                    {"kind": t.kind.value, "actions": [a.value for a in t.actions], "used": t.used}
                    for t in player.tokens
                ],
                "tile_supply": [{"tile": kind, "size": size} for kind, size in player.supply],
                "commodities": dict(zip(GOODS, player.commodities, strict=True)),
                "production_bought": dict(zip(GOODS, player.production, strict=True)),
            }
        )
    finished = state.finished
    return {
        "finished": finished,
        "status": "finished" if finished else f"unfinished: waiting for {state.stage.value}",
        "round": state.round,
        "phase": state.colour.value,
        "stage": state.stage.value,
        "events_applied": state.events_applied,
        "current_player": state.current_player,
        "time_marker": state.time_marker,
        "phase_ap": state.phase_ap,
        "cubes": {
            "storage": _by_colour(state.storage),
            "action_space": _by_colour(state.action_space),
            "stray": _by_colour(state.stray),
            "tower": _by_colour(state.tower),
        },
        "pirates_face_up": list(state.pirates),
        "islands": [
            {"number": i.number, "big": i.big, "posts": list(i.posts), "completed": i.completed}
            for i in state.islands
        ],
        "progress_display": {"left": state.progress_left, "right": state.progress_right},
        "production_display": state.production_display,
        "skipped_phases": [{"round": r, "colour": c} for r, c in state.skipped],
        # Where the tracks end, as read off a sheet when the box data lacks the layouts.
        "track_ends_read": {"progress": state.progress_end, "special": state.special_end},
        "notes": list(state.notes),
        "player_order": list(player_order(state)),
        "ranking": list(ranking(state)),
        "winners": [state.players[i].name for i in winners(state)] if finished else [],
        "players": players,
        "options": state.options.model_dump(mode="json"),
        "box": state.box.name,
    }
