"""Colours the tray's own floor hides.

A cube changes the picture where it differs from the floor beneath it. Where the print looks
like the cube (white on a cream patch, brown on brown), only its outline and shadow change, and
counting may miss it. Calibration knows both the floor (the empty tray) and every colour, so it
can say so before the game, while the person can still change the light or the tray; and a
reading that holds such a colour says one more of it may lie unseen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour

if TYPE_CHECKING:  # (the profile keeps the shares this module works out: no import cycle)
    from companion.vision.profile import Profile

# A floor pixel this close (CIE76) to a colour's learned mean hides a cube of that colour:
# the change threshold is at least 4.5 units and a pixel's neighbours may stretch it by 6.
LOOKS_ALIKE = 10.0
# A colour the floor looks like over this share of the tray is worth a warning. On rendered
# trays (benchmarks/vision_accuracy.py, 11 seeds, 297 set-ups) a colour past it was
# under-counted in 10.9% of the clear pictures that held it, the others in 1.2%.
WARN_SHARE = 0.2
# Every fifth floor pixel tells the share as well as all of them (a view has tens of thousands).
STEP = 5


def floor_shares(floor: NDArray[np.float32], means: NDArray[np.float32]) -> NDArray[np.float64]:
    """For each colour mean (rows of `means`, Lab), the share (0..1) of the floor's Lab pixels
    (rows of `floor`) that look like it."""
    if len(floor) == 0:
        return np.zeros(len(means), np.float64)
    sampled = floor[::STEP]
    return np.array(
        [float(np.mean(np.linalg.norm(sampled - mean, axis=1) < LOOKS_ALIKE)) for mean in means]
    )


def hiding_floor(profile: Profile) -> dict[Colour, float]:
    """For each colour, the share (0..1) of the tray's floor that looks like its cubes."""
    shares = profile.prepared().hiding
    return {colour: float(share) for colour, share in zip(COLOURS, shares, strict=True)}


def camouflaged(profile: Profile) -> dict[Colour, float]:
    """The colours the floor looks like over at least WARN_SHARE of the tray, with that share."""
    return {c: share for c, share in hiding_floor(profile).items() if share >= WARN_SHARE}


__all__ = ["LOOKS_ALIKE", "WARN_SHARE", "camouflaged", "floor_shares", "hiding_floor"]
