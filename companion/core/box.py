"""Component data: the figures only the physical box shows (rules/amerigo.md section 12).

`BoxData` holds them; a field that is None is explicitly unknown. `REAL_BOX` ships what the
rule text states and leaves the rest unknown, for the owner to fill in once from their box
(docs/box-data.md). `TEST_BOX` has plausible made-up values for tests, the simulator and the
demo; its `test_box` flag says so, and it must not be used for a real game without the owner's say.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict, Field, model_validator

from companion.core.components import (
    ACTION_TOKEN_KINDS,
    NEUTRAL_TILES,
    PIRATE_MARKERS,
    PROGRESS_TOKENS,
    VILLAGE_TILES_PER_PLAYER,
    ProgressKind,
)
from companion.core.cubes import Colour


class SpecialSpace(BaseModel):
    """One space of the special action track: its colour and the VP printed on it (0: none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    colour: Colour
    vp: int = Field(default=0, ge=0)


class TokenSupply(BaseModel):
    """How many progress tokens of one kind (and, for extra-AP tokens, which actions) the box has."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ProgressKind
    actions: tuple[Colour, ...] = ()
    count: int = Field(ge=1)

    @model_validator(mode="after")
    def _actions_fit_kind(self) -> TokenSupply:
        wanted = {ProgressKind.EXTRA_AP_ONE: 1, ProgressKind.EXTRA_AP_TWO: 2}.get(self.kind, 0)
        if len(self.actions) != wanted:
            raise ValueError(f"a {self.kind} token shows {wanted} action(s)")
        return self


class TileValue(BaseModel):
    """Tiles of one size: how many there are and the VP printed for a small and a big island."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    size: int = Field(ge=1, le=6)
    count: int = Field(ge=1)
    small_vp: int = Field(ge=0)
    big_vp: int = Field(ge=0)


class BoxData(BaseModel):
    """Component data of one box; None means unknown (the engine asks only when it must)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    test_box: bool = False
    """True for made-up values (tests, simulator, demo); never for a real game unasked."""
    progress_track: tuple[int, ...] | None = None
    """VP printed on each space of the progress track, index 0 the start space; 0 = no VP."""
    special_track: tuple[SpecialSpace, ...] | None = None
    """The special action track from the white start space (index 0) to the last space."""
    progress_tokens: tuple[TokenSupply, ...] | None = None
    """The 24 progress tokens by kind."""
    pirate_markers: tuple[int, ...] | None = None
    """The strengths printed on the 6 pirate markers."""
    neutral_tiles: tuple[TileValue, ...] | None = None
    """The 37 neutral landscape tiles by size (assumes one VP pair per size)."""
    village_tiles: tuple[TileValue, ...] | None = None
    """One player's 16 village tiles by size (assumes one VP pair per size)."""

    @model_validator(mode="after")
    def _consistent(self) -> BoxData:
        if self.progress_track is not None:
            if len(self.progress_track) < 2 or self.progress_track[0] != 0:
                raise ValueError("progress_track needs a start space with 0 VP and more spaces")
            if any(v < 0 for v in self.progress_track):
                raise ValueError("progress_track VP values cannot be negative")
        if self.special_track is not None:
            track = self.special_track
            if len(track) < 2 or track[0].colour is not Colour.WHITE or track[0].vp:
                raise ValueError("special_track must start on a white space worth 0 VP")
            if any(space.colour is Colour.WHITE for space in track[1:]):
                raise ValueError("only the special track's first space is white")
        if self.progress_tokens is not None:
            total = sum(t.count for t in self.progress_tokens)
            if total != PROGRESS_TOKENS:
                raise ValueError(f"progress_tokens must add up to {PROGRESS_TOKENS}, not {total}")
        if self.pirate_markers is not None and (
            len(self.pirate_markers) != PIRATE_MARKERS or min(self.pirate_markers) < 0
        ):
            raise ValueError(f"pirate_markers needs {PIRATE_MARKERS} values, none negative")
        for field, total_wanted in (
            ("neutral_tiles", NEUTRAL_TILES),
            ("village_tiles", VILLAGE_TILES_PER_PLAYER),
        ):
            tiles: tuple[TileValue, ...] | None = getattr(self, field)
            if tiles is None:
                continue
            if sum(t.count for t in tiles) != total_wanted:
                raise ValueError(f"{field} must add up to {total_wanted} tiles")
            if len({t.size for t in tiles}) != len(tiles):
                raise ValueError(f"{field} lists a size twice")
        return self

    def token_count(self, kind: ProgressKind, actions: tuple[Colour, ...]) -> int | None:
        """How many tokens of this kind (showing these actions) the box holds; None if unknown."""
        if self.progress_tokens is None:
            return None
        return _token_table(self.progress_tokens).get(token_key(kind, actions), 0)

    def tile_value(self, kind_is_village: bool, size: int) -> TileValue | None:
        """The printed values for a tile of this size, or None if the box data lacks them."""
        tiles = self.village_tiles if kind_is_village else self.neutral_tiles
        if tiles is None:
            return None
        for tile in tiles:
            if tile.size == size:
                return tile
        return None

    def pirate_pool(self) -> Counter[int] | None:
        """The pirate strengths in the box as a multiset, or None if unknown."""
        return None if self.pirate_markers is None else Counter(self.pirate_markers)


def token_key(
    kind: ProgressKind, actions: tuple[Colour, ...]
) -> tuple[ProgressKind, tuple[Colour, ...]]:
    """A token's identity: its kind and, for extra-AP tokens, its actions in circuit order."""
    if kind not in ACTION_TOKEN_KINDS:
        return kind, ()
    if len(actions) < 2:
        return kind, actions
    return kind, tuple(sorted(actions, key=_CIRCUIT.__getitem__))


_CIRCUIT = {colour: i for i, colour in enumerate(Colour)}
# Token counts by identity, per progress_tokens tuple (a game looks them up for every token
# taken). Kept by identity with a reference, so an id is never reused while cached.
_TOKEN_TABLES: dict[int, tuple[object, dict[tuple[ProgressKind, tuple[Colour, ...]], int]]] = {}


def _token_table(
    supplies: tuple[TokenSupply, ...],
) -> dict[tuple[ProgressKind, tuple[Colour, ...]], int]:
    cached = _TOKEN_TABLES.get(id(supplies))
    if cached is not None and cached[0] is supplies:
        return cached[1]
    table: dict[tuple[ProgressKind, tuple[Colour, ...]], int] = {}
    for supply in supplies:
        key = token_key(supply.kind, supply.actions)
        table[key] = table.get(key, 0) + supply.count
    if len(_TOKEN_TABLES) >= 16:
        _TOKEN_TABLES.clear()
    _TOKEN_TABLES[id(supplies)] = (supplies, table)
    return table


REAL_BOX = BoxData(name="Amerigo (Queen Games 2013): only what the rule text states")
"""The real box as far as the rulebook text goes: every image-only figure is still unknown."""


def _special_track() -> tuple[SpecialSpace, ...]:
    # Made up, but fits the examples: a red space 4 beyond yellow's start (E15), 6 VP reachable.
    colours = [Colour.BLUE, Colour.BLACK, Colour.RED, Colour.BROWN, Colour.GREEN, Colour.YELLOW]
    vp = {3: 1, 5: 3, 8: 6, 11: 10, 14: 15}
    spaces = [SpecialSpace(colour=Colour.WHITE)]
    for i in range(1, 15):
        spaces.append(SpecialSpace(colour=colours[(i * 5) % 6], vp=vp.get(i, 0)))
    return tuple(spaces)


def _tokens() -> tuple[TokenSupply, ...]:
    k = ProgressKind
    c = Colour
    one = [c.BLUE, c.BLACK, c.BROWN, c.GREEN]
    two = [(c.RED, c.BLUE), (c.YELLOW, c.WHITE), (c.BLACK, c.BROWN)]
    singles = [
        k.SHIPS_PLUS_8,
        k.PIRATES_PLUS_2,
        k.HALF_LOSS,
        k.DEFENCE_BOUNTY,
        k.DOUBLE_PLAN,
        k.GREEN_RED,
        k.GOLD_3,
        k.GOLD_5,
        k.POST_GOLD,
        k.GOLD_2_1,
        k.ORDER_JUMP,
        k.VP_FOR_CUBES,
        k.END_GOLD,
    ]
    tokens = [TokenSupply(kind=k.EXTRA_AP_ONE, actions=(a,), count=1) for a in one]
    tokens += [TokenSupply(kind=k.EXTRA_AP_TWO, actions=pair, count=1) for pair in two]
    tokens += [TokenSupply(kind=kind, count=1) for kind in singles]
    tokens += [TokenSupply(kind=k.END_POSTS, count=2), TokenSupply(kind=k.END_7, count=2)]
    return tuple(tokens)


TEST_BOX = BoxData(
    name="TEST BOX: made-up values for tests, the simulator and the demo; not a real box",
    test_box=True,
    # 10 VP reached on the way (E25) and 15 at the end of the track (BGA help).
    progress_track=(0, 0, 0, 1, 0, 0, 3, 0, 0, 6, 0, 0, 10, 0, 0, 15),
    special_track=_special_track(),
    progress_tokens=_tokens(),
    # Two 0s and a 4 as a third-party report says; the rest plausible.
    pirate_markers=(0, 0, 2, 3, 4, 6),
    neutral_tiles=(
        TileValue(size=1, count=7, small_vp=0, big_vp=1),
        TileValue(size=2, count=8, small_vp=1, big_vp=2),
        TileValue(size=3, count=7, small_vp=1, big_vp=3),
        TileValue(size=4, count=6, small_vp=2, big_vp=4),
        TileValue(size=5, count=5, small_vp=2, big_vp=5),
        TileValue(size=6, count=4, small_vp=3, big_vp=6),
    ),
    # A 2-square village is worth 2 on a big island (E17); N2 + V4 + V3 = 10 on a big one (E11).
    village_tiles=(
        TileValue(size=1, count=4, small_vp=0, big_vp=1),
        TileValue(size=2, count=4, small_vp=1, big_vp=2),
        TileValue(size=3, count=4, small_vp=1, big_vp=3),
        TileValue(size=4, count=4, small_vp=2, big_vp=5),
    ),
)
"""Made-up, plausible component data for tests, the simulator and the demo (never a real game)."""
