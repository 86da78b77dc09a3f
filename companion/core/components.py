"""Fixed facts of the Amerigo box that the rule text states (rules/amerigo.md section 1).

Everything here is known for certain; figures only the physical box shows live in `box.py`.
"""

from __future__ import annotations

from enum import StrEnum


class Good(StrEnum):
    """The five goods: commodity tokens on the islands, production tokens on the board."""

    COTTON = "cotton"
    TOBACCO = "tobacco"
    SUGAR = "sugar"
    COCONUT = "coconut"
    COFFEE = "coffee"


GOODS: tuple[Good, ...] = tuple(Good)


class TileKind(StrEnum):
    """A neutral landscape tile (anyone may connect through it) or a player's own village tile."""

    NEUTRAL = "neutral"
    VILLAGE = "village"


class ProgressKind(StrEnum):
    """Every kind of progress token the rules describe (rules/amerigo.md section 9)."""

    EXTRA_AP_ONE = "extra_ap_one"  # +2 AP for the one action shown
    EXTRA_AP_TWO = "extra_ap_two"  # +1 AP for either of the two actions shown
    SHIPS_PLUS_8 = "ships_plus_8"  # once: +8 AP for each ship in one blue action
    PIRATES_PLUS_2 = "pirates_plus_2"  # pirates are 2 stronger against every other player
    HALF_LOSS = "half_loss"  # a failed defence costs ceil(S/2) VP
    DEFENCE_BOUNTY = "defence_bounty"  # +2 gold for every full defence, S = 0 included
    DOUBLE_PLAN = "double_plan"  # two neutral tiles in one Plan action
    GREEN_RED = "green_red"  # green cubes count as red and red as green when choosing
    GOLD_3 = "gold_3"  # once: +3 gold
    GOLD_5 = "gold_5"  # once: +5 gold
    POST_GOLD = "post_gold"  # +1 gold per trading post established afterwards
    GOLD_2_1 = "gold_2_1"  # the gold alternative gives ceil(cubes / 2)
    ORDER_JUMP = "order_jump"  # white advance: on top of the first player's disc
    VP_FOR_CUBES = "vp_for_cubes"  # once, instead of an action: VP = cubes in the action space
    END_POSTS = "end_posts"  # final scoring: 1 VP per own trading post
    END_7 = "end_7"  # final scoring: 7 VP
    END_GOLD = "end_gold"  # final scoring: VP = gold-track level


ACTION_TOKEN_KINDS = frozenset({ProgressKind.EXTRA_AP_ONE, ProgressKind.EXTRA_AP_TWO})
END_TOKEN_KINDS = frozenset({ProgressKind.END_POSTS, ProgressKind.END_7, ProgressKind.END_GOLD})
GOLD_TOKEN_VALUE = {ProgressKind.GOLD_3: 3, ProgressKind.GOLD_5: 5}

MIN_PLAYERS = 2
MAX_PLAYERS = 4
ROUNDS = 5
CANNON_MAX = 12
GOLD_MAX = 12
TRADING_POSTS_PER_PLAYER = 12
VILLAGE_TILES_PER_PLAYER = 16
NEUTRAL_TILES = 37
SHIPS_PER_PLAYER = 2
TREASURE_CHESTS = 5
CHEST_GOLD = 3
COMMODITIES_PER_GOOD = 8
PROGRESS_TOKENS = 24
PROGRESS_HALF = 4  # each half of the progress display has 4 spaces
PIRATE_MARKERS = 6
PIRATES_ON_BOARD = 5
DISCOVERY_VP = 3
COMPLETION_VP = 3
TRACK_END_GOLD = 2
DEFENCE_BOUNTY_GOLD = 2
PIRATES_PLUS = 2
SHIPS_TOKEN_AP = 8
PRODUCTION_COSTS = (2, 3, 4)
# Per good in the box: 3 tokens costing 2, 4 costing 3, 3 costing 4 (section 1).
PRODUCTION_PER_GOOD_AND_COST = {2: 3, 3: 4, 4: 3}
PRODUCTION_TOKENS_BY_PLAYERS = {2: 30, 3: 40, 4: 50}


def production_display_size(players: int) -> int:
    """Production tokens shown each round: the player count's tokens spread over 5 rounds."""
    return PRODUCTION_TOKENS_BY_PLAYERS[players] // ROUNDS


def time_marker(round_number: int) -> int:
    """The topmost time marker in a round (1-based): 5, 4, 3, 2, then the printed 1."""
    return 6 - round_number


def starting_gold(position_in_order: int) -> int:
    """Starting gold: 1 per player ahead in the initial order (0-based position)."""
    return position_in_order


def completion_factor(posts: int) -> int:
    """The completion table's factor for n trading posts: T(n) = n(n+1)/2 (A6 beyond 6)."""
    return posts * (posts + 1) // 2
