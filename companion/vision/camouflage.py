"""Colours the tray's own floor hides, told at calibration.

A cube changes the picture where it differs from the floor beneath it. Where the print looks
like the cube (white on a cream patch, brown on brown), only its outline and shadow change, and
counting may miss it. Calibration knows both the floor (the empty tray) and every colour, so it
can say so before the game, while the person can still change the light or the tray.
"""

from __future__ import annotations

import numpy as np

from companion.core.cubes import COLOURS, Colour
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


def hiding_floor(profile: Profile) -> dict[Colour, float]:
    """For each colour, the share (0..1) of the tray's floor that looks like its cubes."""
    prepared = profile.prepared()
    floor = prepared.reference.lab[prepared.steady_floor][::STEP].astype(np.float32)
    if len(floor) == 0:
        return dict.fromkeys(COLOURS, 0.0)
    shares: dict[Colour, float] = {}
    for colour in COLOURS:
        mean = np.array(profile.colours[colour].mean, np.float32)
        distance = np.linalg.norm(floor - mean, axis=1)
        shares[colour] = float(np.mean(distance < LOOKS_ALIKE))
    return shares


def camouflaged(profile: Profile) -> dict[Colour, float]:
    """The colours the floor looks like over at least WARN_SHARE of the tray, with that share."""
    return {c: share for c, share in hiding_floor(profile).items() if share >= WARN_SHARE}


__all__ = ["LOOKS_ALIKE", "WARN_SHARE", "camouflaged", "hiding_floor"]
