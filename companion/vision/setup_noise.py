"""What the set-up itself changes between shots, learned from the colour calibration pictures.

Not every pixel that differs from the empty tray is a cube. Some flicker from shot to shot
alike in every picture (rim highlights, clipping, a print the exposure shifts): those are the
set-up's (`unstable_pixels`), and the profile keeps them to be left out. The rest of the floor
differs a little too, and by how much varies over the tray: the median difference where no
colour picture's cubes lie (`quiet_differences`) becomes the profile's noise map.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from companion.core.cubes import Colour
from companion.vision.images import BGRImage, FloatImage, Mask
from companion.vision.segment import Reference, compare

# A pixel that changed in this many of the seven colour pictures, looking alike in them
# (CIE76 units apart at most), belongs to the set-up. Four cube colours are never all that
# close: the closest pair, black and brown, learned 12 and 15 apart in two set-ups.
UNSTABLE_VOTES = 4
ALIKE = 12.0
# A colour picture's cube regions are grown by this many pixels before their floor is left
# out of the local noise (`quiet_differences`): a cube's blurred edge differs from the floor
# too, if less than the threshold that outlined it.
COVER_REACH = 2.0


def unstable_pixels(views: Mapping[Colour, BGRImage], reference: Reference) -> Mask:
    """Pixels that changed alike in most colour pictures: the set-up itself flickering (rim
    highlights, clipping, a print the exposure shifts), which looks the same in every shot.
    Cubes are no such pixels even where several pictures' cubes lie on the same spot (cubes
    from a tower land in the same places): each picture's cube there is its own colour."""
    comparisons = [compare(picture, reference) for picture in views.values()]
    changed = np.stack([c.changed for c in comparisons])
    lab = np.stack([c.lab for c in comparisons])
    # For each picture, the changed pictures (itself included) whose colour there is within
    # ALIKE of its own: the largest such group votes.
    votes = np.zeros(reference.inside.shape, np.int32)
    for own in range(len(comparisons)):
        distance = np.linalg.norm(lab - lab[own], axis=3)
        alike = np.sum(changed & (distance <= ALIKE), axis=0) * changed[own]
        votes = np.maximum(votes, alike)
    unstable = (votes >= UNSTABLE_VOTES).astype(np.uint8)
    grown = cv2.dilate(unstable, np.ones((3, 3), np.uint8))
    result: Mask = grown.astype(np.bool_)
    return result


def quiet_differences(differences: list[FloatImage], covered: list[Mask]) -> FloatImage:
    """How much each view pixel differs from the empty tray between shots with nothing on it:
    the median of the colour pictures' `differences` there, over the pictures whose cube
    regions (`covered`) leave it bare (0 where every picture has a cube), grown by a pixel.

    Cubes from a tower land in the same places: where four of the seven pictures had one,
    the median of all seven would be a cube's difference, and a cube lying there later
    would look like the floor's own noise.
    """
    covers = np.stack(covered)
    values = np.where(covers, np.inf, np.stack(differences))
    values.sort(axis=0)
    clean = len(differences) - np.sum(covers, axis=0)
    # The median of each pixel's clean values: they come first once sorted.
    lower = np.take_along_axis(values, (np.maximum(clean - 1, 0) // 2)[None], axis=0)[0]
    upper = np.take_along_axis(values, (clean // 2)[None], axis=0)[0]
    middle = np.where(clean > 0, 0.5 * (lower + upper), 0.0)
    return np.asarray(cv2.dilate(middle.astype(np.float32), np.ones((3, 3), np.uint8)), np.float32)


__all__ = ["ALIKE", "COVER_REACH", "UNSTABLE_VOTES", "quiet_differences", "unstable_pixels"]
