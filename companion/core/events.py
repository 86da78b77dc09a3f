"""The events: everything that happens in a game, as frozen pydantic models.

An event is one thing a person reports (a tray reading, a player's choice, a revealed pirate
marker). `Event` is the discriminated union on the `kind` field; `EVENT_ADAPTER` validates one
event from JSON or Python data. Players are numbered by their place in `GameSetup.players`.
Events are versioned with the log (`log.LOG_VERSION`); see docs/game-log.md.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from companion.core.components import Good, ProgressKind, TileKind
from companion.core.cubes import Colour, Counts

PlayerIndex = Annotated[int, Field(ge=0, le=3)]
Gold = Annotated[int, Field(ge=0, le=50)]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---- the tower -----------------------------------------------------------------------------


class SetupDrop(_Event):
    """Set-up: all 49 cubes were dropped; `counts` is what landed in the tray."""

    kind: Literal["setup_drop"] = "setup_drop"
    counts: Counts


class Drop(_Event):
    """A phase's cubes (and any stray cubes) were dropped; `counts` is what landed in the tray."""

    kind: Literal["drop"] = "drop"
    counts: Counts


class StrayCubes(_Event):
    """Cubes fell out of the tower at the wrong time; they wait in the tray for the next drop."""

    kind: Literal["stray_cubes"] = "stray_cubes"
    counts: Counts


class Correction(_Event):
    """A tray reading was wrong: these counts replace it (the cubes did not move).

    `drop` names the reading corrected by its event number in the log (1-based, as error
    messages count events): a `setup_drop`, `drop` or `stray_cubes` event. None: the latest one.
    The game is re-checked from that reading on with the corrected counts (`corrections`).
    """

    kind: Literal["correction"] = "correction"
    counts: Counts
    drop: int | None = Field(default=None, ge=1)


class PirateRevealed(_Event):
    """A pirate marker was turned face up (at set-up and before rounds 2-5); its printed strength."""

    kind: Literal["pirate_revealed"] = "pirate_revealed"
    value: int = Field(ge=0, le=20)


# ---- what players report inside actions ---------------------------------------------------


class PostPlacement(BaseModel):
    """A trading post established by one ship on island `island` (a number the table chooses).

    `big` must be given the first time an island is named (20+ land squares: it has a chest).
    `completes` says the post filled the island's last empty space.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    ship: Literal[0, 1]
    island: int = Field(ge=1, le=99)
    big: bool | None = None
    completes: bool = False


class BuiltTile(BaseModel):
    """One tile built from the player's supply on island `island`.

    `vp` is the value printed on the tile for that island's size; when None it is looked up in
    the box data. `commodities` are the commodity tokens the tile covered. `completes` says the
    tile covered the island's last empty space.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    island: int = Field(ge=1, le=99)
    tile: TileKind
    size: int = Field(ge=1, le=6)
    vp: int | None = Field(default=None, ge=0, le=20)
    commodities: tuple[Good, ...] = ()
    completes: bool = False


class TokenTaken(BaseModel):
    """A progress token taken from the display: its kind, the action(s) it shows, which half."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token: ProgressKind
    actions: tuple[Colour, ...] = ()
    half: Literal["left", "right"] = "right"


class ProductionBought(BaseModel):
    """A production token bought from the display: its good and printed cost (2-4 AP)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    good: Good
    cost: Literal[2, 3, 4]


# ---- a player's turn: exactly one of these per player per played phase ----------------------


class _Action(_Event):
    player: PlayerIndex
    gold_spent: Gold = 0
    """Gold turned into AP for this action (1 gold = +1 AP)."""
    special: bool = False
    """Taken as the white special action (white cubes as jokers for the disc's space colour)."""


class MoveShips(_Action):
    """Blue: each AP moves each ship one space; `steps` per ship; posts established on the way."""

    kind: Literal["move_ships"] = "move_ships"
    steps: tuple[Annotated[int, Field(ge=0, le=60)], Annotated[int, Field(ge=0, le=60)]] = (0, 0)
    posts: tuple[PostPlacement, ...] = ()
    use_ships_token: bool = False


class LoadCannons(_Action):
    """Black: the cannon disc moves `steps` spaces (None: as far as the AP and the track allow)."""

    kind: Literal["load_cannons"] = "load_cannons"
    steps: int | None = Field(default=None, ge=0, le=60)


class Plan(_Action):
    """Red: own village tiles (1 AP each, any size) and neutral tiles (AP = size) into the supply."""

    kind: Literal["plan"] = "plan"
    villages: tuple[Annotated[int, Field(ge=1, le=4)], ...] = ()
    neutrals: tuple[Annotated[int, Field(ge=1, le=6)], ...] = ()


class Progress(_Action):
    """Brown: the progress disc moves `steps` spaces; `tokens` taken for the VP spaces passed.

    The sheet readings (`vp_spaces`, `highest_vp`, `at_end`) are what the player reads off their
    own progress track. They are needed when the box data lacks the track's layout, and are
    checked against it when it is known (None: not read).
    """

    kind: Literal["progress"] = "progress"
    steps: int | None = Field(default=None, ge=0, le=60)
    tokens: tuple[TokenTaken, ...] = ()
    vp_spaces: int | None = Field(default=None, ge=0, le=60)
    """How many VP-marked spaces the disc reached or passed in this move."""
    highest_vp: int | None = Field(default=None, ge=0, le=50)
    """The highest VP printed on a space reached or passed in this move (0: none)."""
    at_end: bool | None = None
    """The disc stands on the track's last space after the move."""


class Build(_Action):
    """Green: tiles from the personal supply built on islands where the player has a post."""

    kind: Literal["build"] = "build"
    tiles: tuple[BuiltTile, ...] = ()


class BuyProduction(_Action):
    """Yellow: production tokens bought from the display for their printed cost in AP."""

    kind: Literal["buy_production"] = "buy_production"
    tokens: tuple[ProductionBought, ...] = ()


class AdvanceOrder(_Action):
    """White option 1: the order disc moves `steps` spaces (None: as far as the AP allow).

    With `use_order_token` the disc goes on top of the current first player's disc instead.
    The sheet readings (`space_colour`, `highest_vp`, `at_end`) are what the player reads off
    the special action track; needed when the box data lacks its layout (the colour only to
    check later special actions), checked against it when it is known (None: not read).
    """

    kind: Literal["advance_order"] = "advance_order"
    steps: int | None = Field(default=None, ge=0, le=60)
    use_order_token: bool = False
    space_colour: Colour | None = None
    """The colour of the space the disc landed on."""
    highest_vp: int | None = Field(default=None, ge=0, le=50)
    """The highest VP printed on a space reached or passed in this move, landing space included."""
    at_end: bool | None = None
    """The disc stands on the track's last space after the move."""


class TakeGold(_Event):
    """Instead of an action: gold for the cubes in the action space (1 per 3, rounded up)."""

    kind: Literal["take_gold"] = "take_gold"
    player: PlayerIndex


class TakeVictoryPoints(_Event):
    """Instead of an action, with the VP-for-cubes token: 1 VP per cube in the action space."""

    kind: Literal["take_vp"] = "take_vp"
    player: PlayerIndex


class Pass(_Event):
    """The player forfeits the whole phase (all AP, no gold)."""

    kind: Literal["pass"] = "pass"
    player: PlayerIndex


# ---- any time --------------------------------------------------------------------------------


class CashChest(_Event):
    """A treasure chest is returned to the box for 3 gold (allowed at any time)."""

    kind: Literal["cash_chest"] = "cash_chest"
    player: PlayerIndex


class UseGoldToken(_Event):
    """A once-only gold progress token (3 or 5 gold) is used and turned face down."""

    kind: Literal["use_gold_token"] = "use_gold_token"
    player: PlayerIndex
    token: Literal[ProgressKind.GOLD_3, ProgressKind.GOLD_5]


ActionEvent = MoveShips | LoadCannons | Plan | Progress | Build | BuyProduction | AdvanceOrder
TurnEvent = ActionEvent | TakeGold | TakeVictoryPoints | Pass
TowerEvent = SetupDrop | Drop | StrayCubes
"""Events that record cubes really falling: undo stops at them."""

Event = Annotated[
    SetupDrop
    | Drop
    | StrayCubes
    | Correction
    | PirateRevealed
    | MoveShips
    | LoadCannons
    | Plan
    | Progress
    | Build
    | BuyProduction
    | AdvanceOrder
    | TakeGold
    | TakeVictoryPoints
    | Pass
    | CashChest
    | UseGoldToken,
    Field(discriminator="kind"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

ACTION_COLOUR: dict[type[_Action], Colour] = {
    MoveShips: Colour.BLUE,
    LoadCannons: Colour.BLACK,
    Plan: Colour.RED,
    Progress: Colour.BROWN,
    Build: Colour.GREEN,
    BuyProduction: Colour.YELLOW,
    AdvanceOrder: Colour.WHITE,
}
"""The colour whose cubes make each action available."""
