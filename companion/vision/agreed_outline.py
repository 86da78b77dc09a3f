"""The tray's outline that a calibration's pictures agree on.

Every calibration picture shows the same tray from the same camera: the empty one, and the
seven with a few cubes each. Found in one picture alone, the floor's outline can be decided by
the camera's noise where two edges score alike (the floor's edge and the edge of the walls'
shadow on it): the same set-up saved again as a JPEG found one side 14% of the floor's
diagonal off. Noise and cubes differ from picture to picture, the tray does not; so the
outline is found in each, and where most of them find another than the empty tray's, theirs
is taken (`agreed_outline`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from companion.vision.corners import Corners
from companion.vision.images import BGRImage
from companion.vision.tray import find_tray

# The empty tray's outline gives way only to one found in at least OUTVOTE of the pictures and
# lying ANOTHER_EDGE of the floor's diagonal or more from it (a corner as far): nearer, it is
# as likely the cubes in the other pictures that pull their outlines (path-traced and rendered,
# up to 1.5%), and a line of a checked print can fool a few pictures alike (path-traced A 013
# saved once more as a JPEG: three of eight found one 13% off, the empty tray's 3%). Of 200
# set-ups (path-traced A, B and C as found and saved again, rendered seeds 0-3), the empty
# tray's outline alone was 2% or more off in 24 and 5% or more in 10; so, in 14 and 6, 10
# outlines nearer the truth and 1 further (C 201, 2.1% -> 5.3%). Outvoted whatever the gap,
# in 14 and 6 too, but 4 outlines further.
OUTVOTE = 0.5
ANOTHER_EDGE = 0.02
# Two outlines are the same one when no corner lies further from its match than this share of
# the floor's diagonal. Outlines found within 1% of the true floor in the pictures of one
# set-up (path-traced) lie a median 0.06% of it apart, 95% of pairs within 0.7%.
AGREE = 0.01


def agreed_outline(own: Corners | None, others: Sequence[BGRImage]) -> Corners | None:
    """The tray floor's outline as the empty tray's picture shows it (`own`, found there by
    `find_tray`), unless most of the `others` (the colour pictures) show another (see OUTVOTE
    and ANOTHER_EDGE): then the mean of theirs. None when the empty tray's picture shows no
    tray (`own` None): the others' cubes and shadows make them no surer."""
    if own is None:
        return None
    found = [outline for outline in map(find_tray, others) if outline is not None]
    outlines = np.array([own, *found], np.float64)
    diagonal = float(np.linalg.norm(outlines[0, 2] - outlines[0, 0]))
    apart = np.linalg.norm(outlines[:, None] - outlines[None, :], axis=3).max(axis=2)
    agree = apart <= AGREE * diagonal
    votes = agree.sum(axis=1)
    most = int(np.argmax(votes))
    mean: NDArray[np.float64] = outlines[agree[most]].mean(axis=0)
    gap = float(np.linalg.norm(mean - outlines[0], axis=1).max())
    if votes[most] < OUTVOTE * (1 + len(others)) or gap < ANOTHER_EDGE * diagonal:
        return own
    corners = [(float(x), float(y)) for x, y in mean]
    return (corners[0], corners[1], corners[2], corners[3])


__all__ = ["AGREE", "ANOTHER_EDGE", "OUTVOTE", "agreed_outline"]
