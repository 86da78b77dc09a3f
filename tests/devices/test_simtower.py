"""The simulated tower: conservation of the 49 cubes, determinism, sticking and faults."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.simtower import (
    FaultEvent,
    FaultKind,
    FaultPlan,
    Landing,
    SimulatedTower,
    TowerError,
    TowerEvent,
    TowerModel,
)


def play(tower: SimulatedTower, phases: int) -> list[Landing]:
    """The set-up drop of all 49 cubes, then `phases` drops of one colour's outside cubes."""
    landings = [tower.drop(Counts.full())]
    for phase in range(phases):
        colour = COLOURS[phase % len(COLOURS)]
        landings.append(tower.drop(Counts().with_count(colour, tower.outside[colour])))
        landings.extend(tower.pass_time())
    return landings


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    stick=st.floats(0, 1),
    knock=st.floats(0, 1),
    stray=st.floats(0, 1),
    bump=st.floats(0, 1),
    capacity=st.integers(0, 49),
)
def test_the_49_cubes_are_conserved(
    seed: int, stick: float, knock: float, stray: float, bump: float, capacity: int
) -> None:
    model = TowerModel(stick=stick, knock=knock, stray=stray, bump=bump, capacity=capacity)
    tower = SimulatedTower(seed=seed, model=model)
    before = tower.inside
    for landing in play(tower, 10):
        assert landing.inside_after.plus(landing.landed) == before.plus(landing.dropped)
        assert landing.landed.total == len(landing.exits)
        assert Counts.of({c: sum(e.colour is c for e in landing.exits) for c in COLOURS}) == (
            landing.landed
        )
        times = [e.at_s for e in landing.exits]
        assert times == sorted(times)
        assert landing.inside_after.total <= max(capacity, before.total)
        before = landing.inside_after
        assert tower.inside.plus(tower.outside) == Counts.full()


def test_same_seed_same_game_other_seed_other_game() -> None:
    first = play(SimulatedTower(seed=7), 14)
    again = play(SimulatedTower(seed=7), 14)
    other = play(SimulatedTower(seed=8), 14)
    assert first == again
    assert [x.landed for x in first] != [x.landed for x in other]


def test_setup_drop_leaves_a_plausible_number_inside() -> None:
    # The rulebook example leaves 21 of 49 inside; the default model should be in that region.
    inside = [SimulatedTower(seed=s).drop(Counts.full()).inside_after.total for s in range(40)]
    assert 10 <= sum(inside) / len(inside) <= 28


def test_nothing_sticks_everything_lands() -> None:
    tower = SimulatedTower(model=TowerModel(stick=0))
    landing = tower.drop(Counts.full())
    assert landing.landed == Counts.full()
    assert tower.inside.total == 0
    assert tower.tray == Counts.full()


def test_sticky_tower_fills_to_capacity_then_lets_cubes_through() -> None:
    tower = SimulatedTower(model=TowerModel(stick=1, knock=0, capacity=20))
    landing = tower.drop(Counts.full())
    assert tower.inside.total == 20
    assert landing.landed.total == 29


def test_falling_cubes_knock_stuck_ones_loose() -> None:
    tower = SimulatedTower(model=TowerModel(stick=1, knock=0, capacity=10))
    tower.drop(Counts(blue=7, black=3))
    assert tower.inside == Counts(blue=7, black=3)
    tower.model = TowerModel(stick=0, knock=1)
    landing = tower.drop(Counts(red=1))
    assert landing.landed == Counts(blue=7, black=3, red=1)
    assert tower.inside.total == 0


def test_cannot_drop_cubes_that_are_inside() -> None:
    tower = SimulatedTower(model=TowerModel(stick=1, knock=0))
    tower.drop(Counts(blue=7))
    with pytest.raises(TowerError, match="outside the tower"):
        tower.drop(Counts(blue=1))


def test_scripted_stray_falls_after_the_drop_and_stays_in_the_tray() -> None:
    tower = SimulatedTower(seed=3, faults=FaultPlan(stray_after=frozenset({1})))
    first = tower.drop(Counts.full())
    assert first.inside_after.total > 0
    strays = tower.pass_time()
    assert [s.cause for s in strays] == ["stray"]
    assert strays[0].landed.total == 1
    assert strays[0].drop == 1
    assert tower.tray == first.landed.plus(strays[0].landed)
    assert tower.pass_time() == []
    # The next drop starts from an empty tray: the strays were picked up and dropped again.
    nxt = tower.drop(Counts(blue=tower.outside.blue))
    assert tower.tray == nxt.landed


def test_bumped_table_after_a_drop_is_its_own_landing() -> None:
    model = TowerModel(stick=0.6, bump_knock=1)
    tower = SimulatedTower(seed=1, model=model, faults=FaultPlan(bump_after=frozenset({1})))
    events: list[TowerEvent] = []
    tower.subscribe(events.append)
    first = tower.drop(Counts.full())
    inside = tower.inside
    (bump,) = tower.pass_time()
    assert tower.pass_time() == []
    assert [e.cause for e in events if isinstance(e, Landing)] == ["drop", "bump"]
    assert bump.landed == inside and bump.dropped == Counts() and bump.drop == 1
    assert tower.tray == first.landed.plus(inside)
    assert tower.inside.total == 0


def test_device_faults_reach_listeners_before_the_drop() -> None:
    plan = FaultPlan(
        device={
            2: (FaultKind.CAMERA_LOST, FaultKind.SENSOR_LOST),
            3: (FaultKind.CAMERA_BACK,),
        }
    )
    tower = SimulatedTower(faults=plan)
    events: list[TowerEvent] = []
    unsubscribe = tower.subscribe(events.append)
    tower.drop(Counts.full())
    assert tower.camera_connected and tower.sensor_connected
    tower.drop(Counts(blue=tower.outside.blue))
    assert not tower.camera_connected and not tower.sensor_connected
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["Landing", "FaultEvent", "FaultEvent", "Landing"]
    assert events[1] == FaultEvent(FaultKind.CAMERA_LOST, 2)
    tower.drop(Counts(black=tower.outside.black))
    assert tower.camera_connected and not tower.sensor_connected
    unsubscribe()
    count = len(events)
    tower.drop(Counts(red=tower.outside.red))
    assert len(events) == count


def test_random_bumps_happen_at_the_rate_asked() -> None:
    tower = SimulatedTower(seed=5, model=TowerModel(bump=1, bump_knock=1, stick=0.5))
    tower.drop(Counts.full())
    stuck = tower.inside
    assert stuck.total > 0
    (bump,) = tower.pass_time()
    assert bump.cause == "bump" and bump.landed == stuck


@pytest.mark.parametrize("colour", list(Colour))
def test_each_colour_can_land(colour: Colour) -> None:
    tower = SimulatedTower(model=TowerModel(stick=0))
    assert tower.drop(Counts().with_count(colour, 7)).landed[colour] == 7


def test_resumed_tower_starts_with_what_is_stuck_inside() -> None:
    stuck = Counts(blue=2, white=7)
    tower = SimulatedTower(inside=stuck, model=TowerModel(stick=0, knock=0))
    assert tower.inside == stuck
    assert tower.outside == Counts.full().minus(stuck)
    with pytest.raises(TowerError):
        tower.drop(Counts(white=1))
