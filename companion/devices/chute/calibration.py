"""The chute sensor's calibration on the host: reference colours, built from raw sensor readings.

The host keeps the table (a JSON file, or the default below) and sends it to the board, which
keeps it in flash and classifies every cube with it (see cubeproto.CalTable for the arithmetic).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from companion.core.cubes import COLOURS, Colour
from companion.devices.chute import cubeproto

RGBC = tuple[int, int, int, int]
"""Raw red, green, blue and clear counts from the TCS34725."""

FULL_SCALE_2_4_MS = 1024
"""The largest count of one channel at the firmware's 2.4 ms integration time."""

# Typical raw readings of each cube colour at 2.4 ms and gain 16 under the chute's LED, a starting
# point until the owner calibrates their own sensor (the simulated board shows the same values).
TYPICAL_RGBC: dict[Colour, RGBC] = {
    Colour.BLUE: (60, 110, 230, 390),
    Colour.BLACK: (35, 38, 34, 105),
    Colour.RED: (300, 70, 65, 430),
    Colour.BROWN: (130, 85, 60, 270),
    Colour.GREEN: (70, 190, 100, 360),
    Colour.YELLOW: (380, 330, 110, 810),
    Colour.WHITE: (330, 350, 330, 990),
}


class CalibrationError(ValueError):
    """A calibration that cannot be used; the message says what to do."""


class ChuteCalibration(BaseModel):
    """Reference features per colour (per-mille r/c, g/c, b/c and brightness), a reject distance
    (per-mille, a reading further than this from every reference is no known colour) and the
    sensor's full scale (counts)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    references: dict[Colour, tuple[int, int, int, int]]
    reject: int = Field(default=150, gt=0, le=4000)
    full_scale: int = Field(default=FULL_SCALE_2_4_MS, gt=0, le=0xFFFF)

    def to_table(self) -> cubeproto.CalTable:
        """The table the protocol carries (colours by action-circuit index)."""
        refs: list[tuple[int, int, int, int] | None] = [
            self.references.get(colour) for colour in COLOURS
        ]
        return cubeproto.CalTable(refs, self.reject, self.full_scale)

    @property
    def table_id(self) -> int:
        """The id the board reports when it holds this table."""
        return self.to_table().table_id()

    def classify(self, rgbc: RGBC) -> tuple[Colour | None, float]:
        """(colour or None when rejected, confidence 0..1) for one raw reading, as the board does."""
        index, conf = self.to_table().classify(rgbc)
        if index == cubeproto.NO_COLOUR:
            return None, 0.0
        return COLOURS[index], conf / cubeproto.PERMILLE

    @classmethod
    def from_samples(
        cls,
        samples: Mapping[Colour, Sequence[RGBC]],
        *,
        reject: int = 150,
        full_scale: int = FULL_SCALE_2_4_MS,
    ) -> ChuteCalibration:
        """A calibration whose reference for each colour is the mean feature of its samples.

        Raises CalibrationError when a colour has no samples or a sample is all dark.
        """
        references: dict[Colour, tuple[int, int, int, int]] = {}
        for colour, readings in samples.items():
            if not readings:
                raise CalibrationError(f"no readings for {colour}: drop a few {colour} cubes")
            feats = [cubeproto.features(reading, full_scale) for reading in readings]
            if any(reading[3] <= 0 for reading in readings):
                raise CalibrationError(
                    f"a {colour} reading has no light at all: check the chute's LED and wiring"
                )
            references[colour] = (
                round(sum(f[0] for f in feats) / len(feats)),
                round(sum(f[1] for f in feats) / len(feats)),
                round(sum(f[2] for f in feats) / len(feats)),
                round(sum(f[3] for f in feats) / len(feats)),
            )
        return cls(references=references, reject=reject, full_scale=full_scale)

    @classmethod
    def default(cls) -> ChuteCalibration:
        """The calibration built from TYPICAL_RGBC, used until the owner calibrates."""
        return cls.from_samples({colour: [rgbc] for colour, rgbc in TYPICAL_RGBC.items()})

    @classmethod
    def load(cls, path: Path) -> ChuteCalibration:
        """Read a calibration JSON file; CalibrationError says what is wrong with it."""
        try:
            return cls.model_validate_json(path.read_bytes())
        except OSError as error:
            raise CalibrationError(f"cannot read chute calibration {path}: {error}") from error
        except ValidationError as error:
            raise CalibrationError(
                f"{path} is not a chute calibration ({error.error_count()} problems, first: "
                f"{error.errors()[0]['msg']}); recalibrate or delete it to use the default"
            ) from error

    def save(self, path: Path) -> None:
        """Write the calibration as JSON (atomically: the old file survives a crash)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(self.model_dump_json(indent=2) + "\n")
        tmp.replace(path)
