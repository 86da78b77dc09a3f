"""The pairing both accuracy benchmarks use to tell missed, invented and miscoloured cubes."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "scoring"))

# (A module of the benchmark scripts, not of the package.)
from matching import beside_a_cube, match


def test_each_cube_pairs_with_its_nearest_and_only_once() -> None:
    truth = [(10.0, 10.0), (30.0, 10.0)]
    # Two found near the first true cube (the nearer one pairs), none on the second.
    found = [(14.0, 10.0), (11.0, 11.0)]
    pairing = match(truth, found, side=10.0)
    assert pairing.pairs == [(0, 1)]
    assert pairing.missed == [1]
    assert pairing.invented == [0]


def test_a_found_cube_beyond_the_reach_is_invented_and_tells_where_it_lies() -> None:
    truth = [(0.0, 0.0)]
    pairing = match(truth, [(9.0, 0.0), (40.0, 0.0)], side=10.0)
    assert pairing.pairs == []
    assert pairing.missed == [0]
    assert pairing.invented == [0, 1]
    assert beside_a_cube((9.0, 0.0), truth, side=10.0)
    assert not beside_a_cube((40.0, 0.0), truth, side=10.0)
