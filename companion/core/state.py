"""The game state: immutable snapshots, one after every event (frozen dataclasses, cheap to copy).

A state never changes; `rules.apply` returns a new one. Cube counts are 7-tuples in
action-circuit order (see `cubes.COLOURS`); goods are 5-tuples in `components.GOODS` order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.core.box import BoxData
from companion.core.components import ProgressKind
from companion.core.cubes import COLOURS, Colour
from companion.core.options import RuleOptions

Seven = tuple[int, int, int, int, int, int, int]


class Stage(StrEnum):
    """What the game waits for next."""

    REVEAL_PIRATE = "reveal_pirate"  # a pirate marker to turn face up (set-up, rounds 2-5)
    SETUP_DROP = "setup_drop"  # the set-up drop of all 49 cubes
    DROP = "drop"  # the current phase's cubes to be dropped
    TURNS = "turns"  # a player's turn in the current phase
    FINISHED = "finished"  # final scoring done


class Category(StrEnum):
    """Where victory points came from, in the order the score sheet lists them."""

    DISCOVERY = "discovery"
    TILES = "tiles"
    COMPLETION = "completion"
    COMPLETION_POSTS = "completion_posts"
    GOLD_OVERFLOW = "gold_overflow"
    VP_TOKEN = "vp_token"
    PIRATES = "pirates"  # negative: VP lost to pirates (the 0 floor applied)
    FINAL_GOLD_OVERFLOW = "final_gold_overflow"
    FINAL_GOLD = "final_gold"
    FINAL_GOODS = "final_goods"
    FINAL_PROGRESS_TOKENS = "final_progress_tokens"
    FINAL_PROGRESS_TRACK = "final_progress_track"
    FINAL_SPECIAL_TRACK = "final_special_track"


CATEGORIES: tuple[Category, ...] = tuple(Category)
CATEGORY_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
NO_VP: tuple[int, ...] = (0,) * len(CATEGORIES)


@dataclass(frozen=True, slots=True)
class OwnedToken:
    """A progress token a player owns; `used` once a once-only token has been turned over."""

    kind: ProgressKind
    actions: tuple[Colour, ...] = ()
    used: bool = False


# Player and GameState keep a __dict__ (no slots) so `draft.evolve` can copy them in one step.
@dataclass(frozen=True)
class Player:
    """One player's sheet, supplies and score."""

    name: str
    gold: int
    cannons: int = 0
    progress: int = 0  # space on the progress track, 0 = start
    track: int = 0  # space on the special action track, 0 = the white start space
    stamp: int = 0  # higher = higher in a stack of discs on the same space
    posts_placed: int = 0
    ships_placed: bool = False
    chests: int = 0
    tokens: tuple[OwnedToken, ...] = ()
    villages_planned: int = 0  # village tiles taken from the general supply so far
    supply: tuple[tuple[str, int], ...] = ()  # planned, unbuilt tiles: (tile kind, size), sorted
    commodities: tuple[int, ...] = (0, 0, 0, 0, 0)
    production: tuple[int, ...] = (0, 0, 0, 0, 0)  # bought, the printed sheet token not counted
    vp_by: tuple[int, ...] = NO_VP
    # What the player's discs have reached, known from the box data or read off the sheet: final
    # scoring and special actions need it even when the box data lacks the track layouts.
    progress_vp: int = 0  # highest VP printed on a progress-track space reached or passed
    special_vp: int = 0  # highest VP printed on a special-track space reached or passed
    track_colour: Colour | None = (
        Colour.WHITE
    )  # the special-track space under the disc; None: unread

    @property
    def vp(self) -> int:
        """Victory points on the VP track (never below 0)."""
        return sum(self.vp_by)

    def owns(self, kind: ProgressKind) -> int:
        """How many tokens of this kind the player owns (used ones included)."""
        return sum(1 for t in self.tokens if t.kind is kind)

    def unused(self, kind: ProgressKind) -> int:
        """How many tokens of this kind the player owns and has not turned over."""
        return sum(1 for t in self.tokens if t.kind is kind and not t.used)


@dataclass(frozen=True, slots=True)
class Island:
    """An island as a ledger entry: its size class, trading posts per player, completion."""

    number: int
    big: bool
    posts: tuple[int, ...]  # per player
    completed: bool = False


@dataclass(frozen=True)
class GameState:
    """Everything about a game after some events. Compare with ==; never mutate."""

    options: RuleOptions
    box: BoxData
    players: tuple[Player, ...]
    stage: Stage = Stage.REVEAL_PIRATE
    round: int = 1
    phase: int = 0  # index into COLOURS of the current phase
    storage: Seven = (0, 0, 0, 0, 0, 0, 0)
    action_space: Seven = (0, 0, 0, 0, 0, 0, 0)
    stray: Seven = (0, 0, 0, 0, 0, 0, 0)
    tower: Seven = (7, 7, 7, 7, 7, 7, 7)  # CUBES_PER_COLOUR of each colour
    turn_order: tuple[int, ...] = ()
    turn_index: int = 0
    pirates: tuple[int, ...] = ()  # face-up pirate strengths
    islands: tuple[Island, ...] = ()  # sorted by number
    progress_left: int = 4
    progress_right: int = 4
    progress_bag: int = 16
    production_display: int = 0
    production_sold: tuple[int, ...] = (0,) * 15  # by good then cost (2, 3, 4)
    neutrals_taken: tuple[int, ...] = (0,) * 6  # by size 1-6
    commodities_left: tuple[int, ...] = (8, 8, 8, 8, 8)
    chests_left: int = 5
    skipped: tuple[tuple[int, str], ...] = ()  # (round, colour) of every skipped phase
    notes: tuple[str, ...] = ()  # corrections after players acted, and similar remarks
    reading_corrected_after_action: bool = False  # this phase's drop corrected after turns
    # The last space of each track as learned from a sheet reading ("the disc reached the end")
    # when the box data lacks the layout; None: not learned (or the box data knows it).
    progress_end: int | None = None
    special_end: int | None = None
    events_applied: int = 0
    tower_event_count: int = 0  # drops, set-up drop and stray cubes applied so far

    @property
    def colour(self) -> Colour:
        """The current phase's colour."""
        return COLOURS[self.phase]

    @property
    def current_player(self) -> int | None:
        """Whose turn it is (index into players), or None when no turn is awaited."""
        if self.stage is not Stage.TURNS:
            return None
        return self.turn_order[self.turn_index]

    @property
    def time_marker(self) -> int:
        """The topmost time marker: 5 in round 1 down to the printed 1 in round 5."""
        return 6 - self.round

    @property
    def phase_ap(self) -> int:
        """The phase's AP: the largest single-colour count in the action space."""
        return max(self.action_space)

    @property
    def cubes_in_action_space(self) -> int:
        """All cubes in the action space."""
        return sum(self.action_space)

    def island(self, number: int) -> Island | None:
        """The island with this number, or None if nobody has named it yet."""
        for island in self.islands:
            if island.number == number:
                return island
        return None

    @property
    def finished(self) -> bool:
        """True once final scoring is done."""
        return self.stage is Stage.FINISHED
