"""Players' turns: the seven actions, the gold and VP alternatives, passing (sections 3.1, 5)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from operator import attrgetter
from typing import Any, cast

from companion.core import tracks
from companion.core.box import token_key
from companion.core.components import (
    COMMODITIES_PER_GOOD,
    COMPLETION_VP,
    DISCOVERY_VP,
    GOODS,
    NEUTRAL_TILES,
    PRODUCTION_COSTS,
    PRODUCTION_PER_GOOD_AND_COST,
    SHIPS_TOKEN_AP,
    TRACK_END_GOLD,
    TRADING_POSTS_PER_PLAYER,
    TREASURE_CHESTS,
    VILLAGE_TILES_PER_PLAYER,
    ProgressKind,
    TileKind,
    completion_factor,
)
from companion.core.cubes import COLOURS, Colour
from companion.core.draft import Draft
from companion.core.errors import MissingBoxDataError, RuleError
from companion.core.events import (
    ACTION_COLOUR,
    ActionEvent,
    AdvanceOrder,
    Build,
    BuyProduction,
    LoadCannons,
    MoveShips,
    Plan,
    Progress,
    TakeGold,
    TakeVictoryPoints,
    TurnEvent,
)
from companion.core.flow import end_phase
from companion.core.state import Category, GameState, Island, OwnedToken, Player

_POSITION = {colour: i for i, colour in enumerate(COLOURS)}
_NUMBER = attrgetter("number")  # islands are kept sorted by number
_ACTIONS_SHOWN = {ProgressKind.EXTRA_AP_ONE: 1, ProgressKind.EXTRA_AP_TWO: 2}
_WHITE = _POSITION[Colour.WHITE]
_SWAP = {Colour.RED: Colour.GREEN, Colour.GREEN: Colour.RED}


def check_turn(state: GameState, player: int) -> Player:
    """The acting player, if it is their turn; otherwise the rule of player order is broken."""
    if player >= len(state.players):
        raise RuleError(
            "2.3 players", f"there is no player {player} in a {len(state.players)}-player game"
        )
    current = state.current_player
    if current is None:
        raise RuleError("3 game flow", f"no player's turn now (waiting for {state.stage})")
    if current != player:
        raise RuleError(
            "3.2 player order",
            f"it is {state.players[current].name}'s turn, not {state.players[player].name}'s",
        )
    return state.players[player]


def token_bonus(player: Player, colour: Colour) -> int:
    """AP from progress tokens for an action: +2 per one-action token, +1 per two-action token."""
    bonus = 0
    for token in player.tokens:
        if colour in token.actions:
            bonus += 2 if token.kind is ProgressKind.EXTRA_AP_ONE else 1
    return bonus


def special_space_colour(state: GameState, player: Player) -> Colour | None:
    """The colour of the special-track space under the player's disc; None if unknown."""
    return tracks.space_colour(state, player)


def on_last_space(state: GameState, player: Player) -> bool:
    """True when the player's disc is on the special track's last space (box data or readings)."""
    return tracks.on_last_space(state, player)


def action_ap(state: GameState, player: Player, colour: Colour, special: bool) -> int:
    """AP for one action before gold: phase AP plus token bonuses; refuses an unavailable action."""
    space = state.action_space
    if special:
        if colour is Colour.WHITE:
            raise RuleError(
                "5.7 special action", "a special action performs another colour's action"
            )
        if state.options.white_needs_white_cubes and space[_WHITE] == 0:
            raise RuleError(
                "5.7 special action (A2)", "a special action needs white cubes in the action space"
            )
        if player.track == 0:
            raise RuleError(
                "5.7 special action", f"{player.name}'s disc is still on the white start space"
            )
        under = special_space_colour(state, player)
        any_colour = state.options.last_space_any_colour and on_last_space(state, player)
        if under is not None and under is not colour and not any_colour:
            raise RuleError(
                "5.7 special action",
                f"{player.name}'s disc is on a {under.value} space, so the special action is {under.value}",
            )
        bonus = token_bonus(player, colour) if state.options.special_action_token_bonus else 0
        return state.phase_ap + bonus
    present = space[_POSITION[colour]] > 0
    if not present and player.owns(ProgressKind.GREEN_RED):
        swap = _SWAP.get(colour)
        present = swap is not None and space[_POSITION[swap]] > 0
    if not present:
        raise RuleError(
            "3 available actions",
            f"no {colour.value} cube is in the action space, so {colour.value} is not available",
        )
    return state.phase_ap + token_bonus(player, colour)


def check_gold_use(d: Draft, gold: int, cost: int, base_ap: int) -> None:
    """Refuse an action costing more AP than available, or (A10) gold spent on unusable AP."""
    if cost > base_ap + gold:
        raise RuleError(
            "3.1 action points",
            f"this needs {cost} AP but only {base_ap} + {gold} gold = {base_ap + gold} are available",
        )
    if d.base.options.refuse_wasted_gold and gold > max(0, cost - base_ap):
        raise RuleError(
            "A10 gold for AP",
            f"only {max(0, cost - base_ap)} gold is needed for {cost} AP; "
            "do not spend gold on AP that cannot be used",
        )


def _use_token(d: Draft, index: int, kind: ProgressKind, once: bool, what: str) -> None:
    """Check the player has an unused token of this kind; turn it over if it is once-only."""
    player = d.players[index]
    if (player.unused(kind) if once else player.owns(kind)) == 0:
        raise RuleError("9 progress tokens", f"{player.name} has no unused {what} token")
    if once:
        tokens = list(player.tokens)
        for i, token in enumerate(tokens):
            if token.kind is kind and not token.used:
                tokens[i] = OwnedToken(token.kind, token.actions, True)
                break
        d.update(index, tokens=tuple(tokens))


def complete_island(d: Draft, number: int, completer: int) -> None:
    """Island completion (6): +3 VP, the chest if big, and every owner of posts scores T(n) x marker."""
    islands = list(d.get("islands"))
    at = bisect_left(islands, number, key=_NUMBER)
    island = islands[at]
    islands[at] = Island(island.number, island.big, island.posts, True)
    d.set(islands=tuple(islands))
    d.add_vp(completer, Category.COMPLETION, COMPLETION_VP)
    if island.big:
        d.update(completer, chests=d.players[completer].chests + 1)
        d.set(chests_left=d.get("chests_left") - 1)
    marker = d.base.time_marker
    for index, posts in enumerate(island.posts):
        if posts:
            d.add_vp(index, Category.COMPLETION_POSTS, completion_factor(posts) * marker)


def _open_island(d: Draft, number: int) -> Island:
    islands: tuple[Island, ...] = d.get("islands")
    at = bisect_left(islands, number, key=_NUMBER)
    island = islands[at] if at < len(islands) and islands[at].number == number else None
    if island is None:
        raise RuleError(
            "5.5 build", f"island {number} has no trading post yet, so nobody can build there"
        )
    if island.completed:
        raise RuleError("6 island completion", f"island {number} is already complete")
    return island


def move_ships(d: Draft, event: MoveShips, ap: int) -> int:
    """Blue (5.1): returns the AP the action costs. Posts, discovery and completion included."""
    index = event.player
    options = d.base.options
    ship_ap = ap
    if event.use_ships_token:
        _use_token(d, index, ProgressKind.SHIPS_PLUS_8, options.ships_token_once, "ships +8")
        ship_ap += SHIPS_TOKEN_AP
    if max(event.steps) > ship_ap:
        raise RuleError("5.1 move ships", f"a ship can move at most {ship_ap} spaces this phase")
    d.update(index, ships_placed=True)
    ships = [p.ship for p in event.posts]
    if len(set(ships)) != len(ships):
        raise RuleError(
            "5.1 move ships", "each ship establishes at most one trading post per action"
        )
    player = d.players[index]
    if player.posts_placed + len(ships) > TRADING_POSTS_PER_PLAYER:
        raise RuleError("5.1 trading posts", f"{player.name} has no trading posts left")
    for placement in event.posts:
        if event.steps[placement.ship] == 0 and not options.stationary_ship_places_post:
            raise RuleError(
                "5.1 move ships (A7)", "a ship must end a movement to establish a trading post"
            )
        islands = list(d.get("islands"))
        at = bisect_left(islands, placement.island, key=_NUMBER)
        if at == len(islands) or islands[at].number != placement.island:
            if placement.big is None:
                raise RuleError(
                    "2.1 islands",
                    f"island {placement.island} is new: say whether it is big (20+ land spaces)",
                )
            if placement.big and sum(1 for isl in islands if isl.big) >= TREASURE_CHESTS:
                raise RuleError(
                    "2.1 islands", "there are only 5 treasure chests, so at most 5 big islands"
                )
            islands.insert(at, Island(placement.island, placement.big, (0,) * len(d.players)))
        island = islands[at]
        if placement.big is not None and placement.big != island.big:
            raise RuleError(
                "2.1 islands",
                f"island {island.number} was named {'big' if island.big else 'small'} before",
            )
        if island.completed:
            raise RuleError("6 island completion", f"island {island.number} is already complete")
        discovered = sum(island.posts) > 0
        posts = list(island.posts)
        posts[index] += 1
        islands[at] = Island(island.number, island.big, tuple(posts))
        d.set(islands=tuple(islands))
        player = d.update(index, posts_placed=d.players[index].posts_placed + 1)
        if not discovered:
            d.add_vp(index, Category.DISCOVERY, DISCOVERY_VP)
        post_gold = player.owns(ProgressKind.POST_GOLD)
        if post_gold:
            d.gain_gold(index, post_gold)
        if placement.completes:
            complete_island(d, island.number, index)
    return max(event.steps)


def load_cannons(d: Draft, event: LoadCannons, ap: int) -> int:
    """Black (5.2): cannons up to 12; AP lost to the cap earn 2 gold. Returns AP used."""
    player = d.players[event.player]
    moved, compensation = tracks.track_move(event.steps, ap, player.cannons, 12, "cannon track")
    d.update(event.player, cannons=player.cannons + moved)
    if compensation:
        d.gain_gold(event.player, TRACK_END_GOLD)
    return moved


def plan(d: Draft, event: Plan) -> int:
    """Red (5.3): village tiles 1 AP each, neutral tiles AP = size, one neutral (two with token)."""
    index = event.player
    player = d.players[index]
    limit = 2 if player.owns(ProgressKind.DOUBLE_PLAN) else 1
    if len(event.neutrals) > limit:
        raise RuleError(
            "5.3 plan", f"{player.name} may take only {limit} neutral tile(s) per phase"
        )
    if player.villages_planned + len(event.villages) > VILLAGE_TILES_PER_PLAYER:
        raise RuleError(
            "5.3 plan",
            f"{player.name} has only {VILLAGE_TILES_PER_PLAYER - player.villages_planned} village tiles left",
        )
    taken = list(d.get("neutrals_taken"))
    for size in event.neutrals:
        taken[size - 1] += 1
        known = d.base.box.tile_value(False, size)
        if d.base.box.neutral_tiles is not None and (
            known is None or taken[size - 1] > known.count
        ):
            raise RuleError("5.3 plan", f"no neutral tile of size {size} is left in the supply")
    if sum(taken) > NEUTRAL_TILES:
        raise RuleError("5.3 plan", "no neutral tiles are left in the supply")
    supply = list(player.supply)
    supply += [(TileKind.VILLAGE.value, s) for s in event.villages]
    supply += [(TileKind.NEUTRAL.value, s) for s in event.neutrals]
    d.set(neutrals_taken=tuple(taken))
    d.update(
        index,
        supply=tuple(sorted(supply)),
        villages_planned=player.villages_planned + len(event.villages),
    )
    return len(event.villages) + sum(event.neutrals)


def _token_taken_so_far(
    state_players: list[Player], key: tuple[ProgressKind, tuple[Colour, ...]]
) -> int:
    kind = key[0]
    return sum(
        1
        for p in state_players
        for t in p.tokens
        if t.kind is kind and token_key(t.kind, t.actions) == key
    )


def progress(d: Draft, event: Progress, ap: int) -> int:
    """Brown (5.4): the disc moves; one progress token per VP space reached or passed."""
    index = event.player
    player = d.players[index]
    reach = tracks.progress_move(d.base, player, event, ap)
    moved, due = reach.moved, reach.vp_spaces
    left, right = d.get("progress_left"), d.get("progress_right")
    must = min(due, left + right)  # A9: an empty display gives no token, the steps still count
    if len(event.tokens) != must:
        raise RuleError(
            "5.4 progress",
            f"moving {moved} spaces passes {due} VP space(s): take exactly {must} progress token(s)",
            code="progress.tokens_due",
            params={"moved": moved, "due": due, "must": must},
        )
    tokens = list(player.tokens)
    for taken in event.tokens:
        wanted = _ACTIONS_SHOWN.get(taken.token, 0)
        if len(taken.actions) != wanted or len(set(taken.actions)) != wanted:
            raise RuleError(
                "9 progress tokens", f"a {taken.token.value} token shows {wanted} action(s)"
            )
        if taken.half == "left":
            left -= 1
        else:
            right -= 1
        if left < 0 or right < 0:
            raise RuleError(
                "7.2 progress display", f"the {taken.half} half of the progress display is empty"
            )
        in_box = d.base.box.token_count(taken.token, taken.actions)
        if in_box is not None:
            key = token_key(taken.token, taken.actions)
            so_far = _token_taken_so_far(d.players, key) + sum(
                1 for t in tokens[len(player.tokens) :] if token_key(t.kind, t.actions) == key
            )
            if so_far + 1 > in_box:
                raise RuleError(
                    "9 progress tokens",
                    f"the box has only {in_box} {taken.token.value} token(s) {taken.actions or ''}".rstrip(),
                )
        tokens.append(OwnedToken(taken.token, taken.actions))
    d.set(progress_left=left, progress_right=right)
    if reach.end_learned is not None:
        d.set(progress_end=reach.end_learned)
    d.update(
        index,
        progress=player.progress + moved,
        tokens=tuple(tokens),
        progress_vp=max(player.progress_vp, reach.highest_vp),
    )
    if reach.compensation:
        d.gain_gold(index, TRACK_END_GOLD)
    return moved


def build(d: Draft, event: Build) -> int:
    """Green (5.5): tiles from the personal supply on islands with the player's post; scoring."""
    index = event.player
    supply = list(d.players[index].supply)  # sorted; removing keeps it sorted
    commodities_left = list(d.get("commodities_left"))
    cost = 0
    for tile in event.tiles:
        key = (tile.tile.value, tile.size)
        if key not in supply:
            raise RuleError(
                "5.5 build",
                f"no {tile.tile.value} tile of size {tile.size} in {d.players[index].name}'s supply: plan it first",
            )
        supply.remove(key)
        island = _open_island(d, tile.island)
        if island.posts[index] == 0:
            raise RuleError(
                "5.5 build", f"{d.players[index].name} has no trading post on island {tile.island}"
            )
        cost += 1 if tile.tile is TileKind.VILLAGE else tile.size
        vp = tile.vp
        if vp is None:
            value = d.base.box.tile_value(tile.tile is TileKind.VILLAGE, tile.size)
            if value is None:
                raise MissingBoxDataError(
                    "5.5 tile values",
                    f"the VP printed on a {tile.tile.value} tile of size {tile.size} is unknown: "
                    "give the tile's printed VP with the tile, or enter the tile values once (docs/box-data.md)",
                )
            vp = value.big_vp if island.big else value.small_vp
        d.add_vp(index, Category.TILES, vp)
        player = d.players[index]
        owned = list(player.commodities)
        for good in tile.commodities:
            g = GOODS.index(good)
            if commodities_left[g] == 0:
                raise RuleError(
                    "5.5 commodities", f"all {COMMODITIES_PER_GOOD} {good.value} tokens are taken"
                )
            commodities_left[g] -= 1
            owned[g] += 1
        d.update(index, commodities=tuple(owned))
        if tile.completes:
            complete_island(d, tile.island, index)
    d.set(commodities_left=tuple(commodities_left))
    d.update(index, supply=tuple(supply))
    return cost


def buy_production(d: Draft, event: BuyProduction) -> int:
    """Yellow (5.6): production tokens from the display, each for its printed cost in AP."""
    index = event.player
    display = d.get("production_display")
    if len(event.tokens) > display:
        raise RuleError("5.6 production", f"only {display} production token(s) are on display")
    sold = list(d.get("production_sold"))
    production = list(d.players[index].production)
    for token in event.tokens:
        g = GOODS.index(token.good)
        slot = g * len(PRODUCTION_COSTS) + PRODUCTION_COSTS.index(token.cost)
        sold[slot] += 1
        if sold[slot] > PRODUCTION_PER_GOOD_AND_COST[token.cost]:
            raise RuleError(
                "5.6 production",
                f"the box has only {PRODUCTION_PER_GOOD_AND_COST[token.cost]} {token.good.value} tokens costing {token.cost}",
            )
        production[g] += 1
    d.set(production_display=display - len(event.tokens), production_sold=tuple(sold))
    d.update(index, production=tuple(production))
    return sum(t.cost for t in event.tokens)


def advance_order(d: Draft, event: AdvanceOrder, ap: int) -> int:
    """White option 1 (5.7): the order disc moves; on an occupied space it goes on top."""
    index = event.player
    if event.special:
        raise RuleError("5.7 special action", "advancing the order disc is not a special action")
    player = d.players[index]
    top = max(p.stamp for p in d.players) + 1
    if event.use_order_token:
        if event.steps is not None:
            raise RuleError(
                "9 order jump", "with the order-jump token the disc ignores AP: give no steps"
            )
        if (event.space_colour, event.highest_vp, event.at_end) != (None, None, None):
            raise RuleError(
                "9 order jump",
                "with the order-jump token the disc takes the first player's space: "
                "give no sheet readings",
            )
        first = min(range(len(d.players)), key=lambda i: (-d.players[i].track, -d.players[i].stamp))
        if first == index:
            raise RuleError("9 order jump", f"{player.name} is already first in player order")
        _use_token(d, index, ProgressKind.ORDER_JUMP, d.base.options.order_jump_once, "order jump")
        leader = d.players[first]
        # Every space up to the leader's was reached or passed by the leader too.
        d.update(
            index,
            track=leader.track,
            stamp=top,
            track_colour=tracks.space_colour(d.base, leader),
            special_vp=max(d.players[index].special_vp, leader.special_vp),
        )
        return 0
    reach = tracks.order_move(d.base, player, event, ap)
    if reach.end_learned is not None:
        d.set(special_end=reach.end_learned)
    if reach.moved:
        d.update(
            index,
            track=player.track + reach.moved,
            stamp=top,
            track_colour=reach.colour,
            special_vp=max(player.special_vp, reach.highest_vp),
        )
    if reach.compensation:
        d.gain_gold(index, TRACK_END_GOLD)
    return reach.moved


def _plan_cost(d: Draft, event: Plan, ap: int) -> int:
    return plan(d, event)


def _build_cost(d: Draft, event: Build, ap: int) -> int:
    return build(d, event)


def _buy_cost(d: Draft, event: BuyProduction, ap: int) -> int:
    return buy_production(d, event)


def _ships_cost(d: Draft, event: MoveShips, ap: int) -> int:
    cost = move_ships(d, event, ap)
    return max(0, cost - SHIPS_TOKEN_AP) if event.use_ships_token else cost


# Each action's rules, returning the AP the action costs (gold spent included).
_ACTIONS: dict[type[Any], Callable[[Draft, Any, int], int]] = {
    MoveShips: _ships_cost,
    LoadCannons: load_cannons,
    Plan: _plan_cost,
    Progress: progress,
    Build: _build_cost,
    BuyProduction: _buy_cost,
    AdvanceOrder: advance_order,
}


def take_turn(d: Draft, event: TurnEvent) -> None:
    """One player's choice for the phase, then the next player (or the phase ends)."""
    state = d.base
    check_turn(state, event.player)
    index = event.player
    kind = type(event)
    rules = _ACTIONS.get(kind)
    if rules is not None:
        # `rules` exists only for the action kinds (a cheap test: isinstance on the union is not).
        event = cast(ActionEvent, event)
        player = state.players[index]
        base_ap = action_ap(state, player, ACTION_COLOUR[type(event)], event.special)
        gold = event.gold_spent
        if gold > player.gold:
            raise RuleError("3.4 gold", f"{player.name} has {player.gold} gold, not {gold}")
        # Gold is spent first, so gold gained by the action meets the cap afterwards.
        if gold:
            d.update(index, gold=player.gold - gold)
        cost = rules(d, event, base_ap + gold)
        check_gold_use(d, gold, cost, base_ap)
    elif kind is TakeGold:
        divisor = 2 if state.players[index].owns(ProgressKind.GOLD_2_1) else 3
        d.gain_gold(index, -(-state.cubes_in_action_space // divisor))
    elif kind is TakeVictoryPoints:
        _use_token(d, index, ProgressKind.VP_FOR_CUBES, state.options.vp_token_once, "VP-for-cubes")
        d.add_vp(index, Category.VP_TOKEN, state.cubes_in_action_space)
    turn = state.turn_index + 1
    if turn < len(state.turn_order):
        d.set(turn_index=turn)
    else:
        end_phase(d)


__all__ = ["take_turn"]
