"""Whether the white cubes were learned in shade.

White is the lightest cube colour, so under the room's light its cubes look about as light as
the tray floor or lighter. When the white picture's cubes lay in a shadow (the tray wall's, a
hand's), their colour is learned far darker, and white cubes in the open light then fit no
colour and are missed. Calibration cannot tell that from the colour alone, but it can warn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from companion.core.cubes import Colour

if TYPE_CHECKING:  # (the profile keeps the arrays this module reads: no import cycle)
    from companion.vision.profile import Profile

# The white cubes' learned lightness this far (L) below the median of the tray's floor means
# they lay in shade. On rendered trays (23 seeds, 757 set-ups) 8 set-ups were so; their
# counts missed 130 of 171 white cubes, the other set-ups 796 of 10192 (hidden ones included).
# (Beyond 15 L: 4 set-ups, 69 of 95 missed.)
SHADED_BY = 10.0


def white_in_shade(profile: Profile) -> tuple[float, float] | None:
    """(the white cubes' learned L, the floor's median L) when the white cubes look clearly
    darker than the floor, as if they lay in shade; None when they do not."""
    prepared = profile.prepared()
    floor = float(np.median(prepared.reference.lab[..., 0][prepared.steady_floor]))
    white = float(profile.colours[Colour.WHITE].mean[0])
    return (white, floor) if white < floor - SHADED_BY else None


__all__ = ["SHADED_BY", "white_in_shade"]
