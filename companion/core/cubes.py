"""The seven cube colours and the count of cubes per colour, shared by every part of the app."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Colour(StrEnum):
    """A cube colour, declared in action-circuit order (the order phases are played in)."""

    BLUE = "blue"
    BLACK = "black"
    RED = "red"
    BROWN = "brown"
    GREEN = "green"
    YELLOW = "yellow"
    WHITE = "white"

    @property
    def code(self) -> str:
        """A two-letter code that differs from every other colour's (three colours start with B)."""
        return _CODES[self]

    @property
    def position(self) -> int:
        """Position in the action circuit, 0 for blue to 6 for white."""
        return _POSITION[self]


COLOURS: tuple[Colour, ...] = tuple(Colour)
_CODES = {
    Colour.BLUE: "Bu",
    Colour.BLACK: "Bk",
    Colour.RED: "Rd",
    Colour.BROWN: "Br",
    Colour.GREEN: "Gn",
    Colour.YELLOW: "Ye",
    Colour.WHITE: "Wh",
}
_POSITION = {colour: i for i, colour in enumerate(COLOURS)}

CUBES_PER_COLOUR = 7
"""The box holds 7 cubes of each colour, 49 in all."""


class Counts(BaseModel):
    """A number of cubes per colour, none negative. Immutable; arithmetic returns new counts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    blue: int = Field(default=0, ge=0)
    black: int = Field(default=0, ge=0)
    red: int = Field(default=0, ge=0)
    brown: int = Field(default=0, ge=0)
    green: int = Field(default=0, ge=0)
    yellow: int = Field(default=0, ge=0)
    white: int = Field(default=0, ge=0)

    @classmethod
    def of(cls, mapping: Mapping[Colour, int] | Mapping[str, int]) -> Counts:
        """Counts from a mapping of colour (or colour name) to number; missing colours are 0."""
        return cls(**{str(colour): int(n) for colour, n in mapping.items()})

    @classmethod
    def from_tuple(cls, values: tuple[int, ...] | list[int]) -> Counts:
        """Counts from seven numbers in action-circuit order."""
        if len(values) != len(COLOURS):
            raise ValueError(
                f"need {len(COLOURS)} counts in action-circuit order, got {len(values)}"
            )
        return cls(**{str(colour): int(n) for colour, n in zip(COLOURS, values, strict=True)})

    @classmethod
    def full(cls) -> Counts:
        """All 49 cubes: 7 of every colour."""
        return cls.from_tuple([CUBES_PER_COLOUR] * len(COLOURS))

    def __getitem__(self, colour: Colour) -> int:
        value: int = getattr(self, colour.value)
        return value

    def as_tuple(self) -> tuple[int, ...]:
        """The seven numbers in action-circuit order."""
        # Spelled out: the engine reads every drop through this, and enum lookups cost.
        return (self.blue, self.black, self.red, self.brown, self.green, self.yellow, self.white)

    def items(self) -> Iterator[tuple[Colour, int]]:
        """(colour, number) pairs in action-circuit order, zeros included."""
        for colour in COLOURS:
            yield colour, getattr(self, colour.value)

    def as_dict(self) -> dict[str, int]:
        """All seven colours by name, in action-circuit order."""
        return {colour.value: n for colour, n in self.items()}

    @property
    def total(self) -> int:
        """How many cubes in all."""
        return sum(self.as_tuple())

    @property
    def largest(self) -> int:
        """The largest count of a single colour (0 when empty)."""
        return max(self.as_tuple())

    def present(self) -> tuple[Colour, ...]:
        """The colours with at least one cube, in action-circuit order."""
        return tuple(colour for colour, n in self.items() if n > 0)

    def plus(self, other: Counts) -> Counts:
        """Colour-wise sum."""
        return Counts.from_tuple(
            [a + b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True)]
        )

    def minus(self, other: Counts) -> Counts:
        """Colour-wise difference; raises ValueError if any colour would go below zero."""
        values = [a - b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True)]
        short = [c.value for c, v in zip(COLOURS, values, strict=True) if v < 0]
        if short:
            raise ValueError(f"not enough cubes of {', '.join(short)} to take away")
        return Counts.from_tuple(values)

    def with_count(self, colour: Colour, n: int) -> Counts:
        """The same counts with one colour set to n."""
        return Counts(**{**self.as_dict(), colour.value: n})

    def __str__(self) -> str:
        shown = [f"{colour.code}{n}" for colour, n in self.items() if n]
        return " ".join(shown) if shown else "none"
