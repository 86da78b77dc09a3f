"""The cubes a reading found, set against a rendered picture's true cubes by position.

Counts alone say that a picture was read wrong; pairing each found cube with the true cube
it stands on says how: a cube missed, one invented, or one seen in the wrong colour. Both
accuracy benchmarks (`vision_accuracy.py` on the simulated trays, `pathtraced/run.py` on the
path-traced ones) pair the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

# A found cube stands on a true one when their centres lie within this many cube sides (a
# lying cube's corners reach 0.71 side from its centre).
SAME_CUBE = 0.8
# An invented cube within this many sides of a true one lies beside it (in its shadow, on
# its side face, or on the print just past it); farther off, it lies alone.
BESIDE = 1.6

Point = tuple[float, float]


class Matching(NamedTuple):
    """Indices into the true and the found cubes."""

    pairs: list[tuple[int, int]]
    """(true, found) of every pair."""
    missed: list[int]
    """The true cubes no found cube stands on."""
    invented: list[int]
    """The found cubes on no true cube."""


def match(truth: Sequence[Point], found: Sequence[Point], side: float) -> Matching:
    """Pair true and found cube centres (the same units as `side`, a cube's side), nearest
    first, each at most once and within SAME_CUBE sides."""
    reach = SAME_CUBE * side
    candidates = sorted(
        (distance, ti, fi)
        for ti, t in enumerate(truth)
        for fi, f in enumerate(found)
        if (distance := math.dist(t, f)) <= reach
    )
    pairs: list[tuple[int, int]] = []
    used_true: set[int] = set()
    used_found: set[int] = set()
    for _, ti, fi in candidates:
        if ti in used_true or fi in used_found:
            continue
        used_true.add(ti)
        used_found.add(fi)
        pairs.append((ti, fi))
    missed = [i for i in range(len(truth)) if i not in used_true]
    invented = [i for i in range(len(found)) if i not in used_found]
    return Matching(pairs, missed, invented)


def beside_a_cube(point: Point, truth: Sequence[Point], side: float) -> bool:
    """Whether a point lies within BESIDE sides of any true cube."""
    return any(math.dist(point, t) <= BESIDE * side for t in truth)


__all__ = ["BESIDE", "SAME_CUBE", "Matching", "beside_a_cube", "match"]
