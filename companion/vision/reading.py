"""What a look at the tray gives: counts, each cube found, how sure, and why not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from companion.core.cubes import COLOURS, Colour, Counts
from companion.vision.images import BGRImage

# A reading is accepted without asking a person only at or above this confidence.
CONFIDENT_AT = 0.6


class CubeSighting(NamedTuple):
    """One cube: its colour, its centre in input-picture pixels, and how sure (0..1)."""

    colour: Colour
    x: float
    y: float
    confidence: float


@dataclass(frozen=True)
class TrayReading:
    """The result of reading one picture of the tray.

    `confident` is True only when the app may accept the counts without asking a person;
    otherwise `reasons` says what made it unsure. `picture` is the annotated picture when
    one was asked for.
    """

    counts: Counts
    cubes: list[CubeSighting]
    confidence: float
    confident: bool
    reasons: list[str]
    picture: BGRImage | None = field(default=None, repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The reading as the JSON fields of the command-line contract (DESIGN.md section 4)."""
        return {
            "counts": {colour.value: self.counts[colour] for colour in COLOURS},
            "confidence": round(self.confidence, 3),
            "confident": self.confident,
            "reasons": list(self.reasons),
            "cubes": [
                {
                    "colour": cube.colour.value,
                    "x": round(cube.x, 1),
                    "y": round(cube.y, 1),
                    "confidence": round(cube.confidence, 3),
                }
                for cube in self.cubes
            ],
        }


def unsure(reasons: list[str], picture: BGRImage | None = None) -> TrayReading:
    """A reading with nothing counted, confidence 0, for a picture that cannot be read."""
    return TrayReading(Counts(), [], 0.0, False, reasons, picture)
