"""The rule options: where the English and German rulebooks differ or are silent.

Each option is named after the question in rules/amerigo.md sections 10-11 (A1-A12) and
defaults to the answer suggested there. A game log records the options it was played with.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class TieBreak(StrEnum):
    """How a tie on VP is broken (section 10.2)."""

    PLAYER_ORDER = "player_order"  # EN: earlier in player order (stack order counts)
    TRACK_POSITION = "track_position"  # DE: farther on the special track; a shared space stays tied


class RuleOptions(BaseModel):
    """The answers to the rules' open questions; every field has the suggested default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    special_action_token_bonus: bool = True
    """A3: progress-token AP bonuses also apply to an action taken as a white special action."""
    white_needs_white_cubes: bool = True
    """A2: a white special action needs white cubes in the action space."""
    last_space_any_colour: bool = True
    """A4 (DE only): a disc on the special track's last space may use white as any colour."""
    order_jump_once: bool = True
    """A5: the order-jump token is used once (DE "einmalig"); False: every time."""
    ships_token_once: bool = True
    """Section 10.5: the ships +8 token is used once (DE)."""
    vp_token_once: bool = True
    """Section 10.5: the VP-for-cubes token is used once (DE)."""
    stationary_ship_places_post: bool = False
    """A7: a ship that moved 0 spaces may still place a trading post."""
    pirate_tokens_additive: bool = True
    """A8: several "+2 pirates" tokens of other players add up; False: at most +2."""
    refuse_wasted_gold: bool = True
    """A10: refuse gold spent on AP that the action cannot use (e.g. beyond a track end)."""
    drop_strays_with_empty_storage: bool = True
    """A12: stray cubes are dropped even when the phase's storage space is empty."""
    tie_break: TieBreak = TieBreak.PLAYER_ORDER
    """Section 10.2: EN player order (default) or DE position on the special track."""
