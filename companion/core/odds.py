"""The chances of the next drop, under a simple, stated sticking model.

Model: every cube in the tower when a drop is made (the cubes just dropped and those already
inside) comes out on its own with probability `p_out`, independently of the others. The
default 4/7 is the set-up example's share: 28 of 49 cubes came out (rules/amerigo.md E2).
Under that model each colour's count is binomial and the phase AP (the largest count) has an
exact distribution. The simulator draws its drops from the same model.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import comb

from companion.core.cubes import COLOURS
from companion.core.state import GameState, Stage

DEFAULT_P_OUT = 28 / 49
"""Chance that one cube in the tower falls out in a drop (4/7, from the set-up example)."""


@dataclass(frozen=True, slots=True)
class DropOdds:
    """The next drop's chances: which colour, how many AP, per colour in circuit order."""

    colour: str  # the phase whose cubes will be dropped
    in_tower: tuple[int, ...]  # cubes in the tower once that phase's cubes are dropped in
    p_out: float
    colour_appears: tuple[float, ...]  # P(at least one cube of each colour comes out)
    expected: tuple[float, ...]  # expected count of each colour in the tray
    ap: tuple[float, ...]  # P(phase AP = k) for k = 0..7; AP 0 means the phase is skipped


def _binomial_cdf(n: int, p: float, k: int) -> float:
    if k < 0:
        return 0.0
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(min(k, n) + 1))


def next_drop_tower(state: GameState) -> tuple[int, tuple[int, ...]]:
    """The phase index of the next drop and the tower's contents once its cubes go in."""
    storage = list(state.storage)
    phase = state.phase
    if state.stage is Stage.TURNS:
        storage = [a + b for a, b in zip(storage, state.action_space, strict=True)]
        phase = (phase + 1) % len(COLOURS)
    inside = [t + s for t, s in zip(state.tower, state.stray, strict=True)]
    inside[phase] += storage[phase]
    return phase, tuple(inside)


def drop_odds(state: GameState, p_out: float = DEFAULT_P_OUT) -> DropOdds:
    """The chances for the next drop (this phase's if it is due, else the next phase's)."""
    phase, inside = next_drop_tower(state)
    appears = tuple(1 - (1 - p_out) ** n for n in inside)
    expected = tuple(n * p_out for n in inside)
    below = [1.0]  # P(max <= k) for k = 0..7
    for k in range(1, 8):
        product = 1.0
        for n in inside:
            product *= _binomial_cdf(n, p_out, k)
        below.append(product)
    product0 = 1.0
    for n in inside:
        product0 *= (1 - p_out) ** n
    below[0] = product0
    ap = tuple([below[0]] + [below[k] - below[k - 1] for k in range(1, 8)])
    return DropOdds(COLOURS[phase].value, inside, p_out, appears, expected, ap)


def draw_drop(
    rng: random.Random, inside: tuple[int, ...], p_out: float = DEFAULT_P_OUT
) -> tuple[int, ...]:
    """A random tray reading under the model: each cube in the tower falls out with p_out."""
    return tuple(sum(1 for _ in range(n) if rng.random() < p_out) for n in inside)
