"""Settled readings from frame sequences: rolling, hands, lost camera, one reading per drop."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.core.cubes import Counts
from companion.devices.tray_render import (
    CalibrationSet,
    HandPose,
    TrayScene,
    drop_frames,
    hand_frames,
    render,
)
from companion.vision import Profile
from companion.vision.settle import SettledReading, Settler, Status, StatusChange

FPS = 15.0


def _feed(settler: Settler, images: list[np.ndarray], start: float = 0.0) -> list:
    events = []
    for i, image in enumerate(images):
        events.extend(settler.feed(image, start + i / FPS))
    return events


@pytest.fixture(scope="module")
def drop(cal: CalibrationSet) -> tuple[TrayScene, list[np.ndarray]]:
    """A drop of a few cubes: frames while they roll, then a second of the settled tray."""
    scene = TrayScene.random(41, "neutral", counts=Counts(blue=1, red=2, yellow=1), setup=cal.setup)
    rolling = [shot.image for shot in drop_frames(scene, frames=12, fps=FPS)]
    still = [render(scene, frame=100 + k).image for k in range(15)]
    return scene, rolling + still


def test_one_reading_per_drop(profile: Profile, drop: tuple[TrayScene, list[np.ndarray]]) -> None:
    scene, frames = drop
    settler = Settler(profile)
    events = _feed(settler, frames)
    statuses = [e.status for e in events if isinstance(e, StatusChange)]
    readings = [e for e in events if isinstance(e, SettledReading)]
    assert Status.ROLLING in statuses
    assert len(readings) == 1
    reading = readings[0].reading
    assert reading.counts == scene.counts or not reading.confident
    # The tray stays as it is: more still frames never report the same drop again.
    more = _feed(settler, frames[-5:] * 3, start=10.0)
    assert not [e for e in more if isinstance(e, SettledReading)]


def test_empty_tray_stream_reports_nothing(cal: CalibrationSet, profile: Profile) -> None:
    settler = Settler(profile)
    empty = [
        render(TrayScene.random(7, counts=Counts(), setup=cal.setup), frame=k).image
        for k in range(12)
    ]
    events = _feed(settler, empty)
    assert not [e for e in events if isinstance(e, SettledReading)]


def test_cubes_spread_by_hand_are_read_again_and_marked_as_moved_by_hand(
    profile: Profile, drop: tuple[TrayScene, list[np.ndarray]]
) -> None:
    scene, frames = drop
    settler = Settler(profile)
    first = [e for e in _feed(settler, frames) if isinstance(e, SettledReading)]
    # A hand reaches in and spreads the same cubes out: a new layout, nothing added.
    hand = hand_frames(replace(scene, hand=HandPose.random(12)), frames=8)
    spread = scene.with_counts(scene.counts, seed=scene.seed + 1000)
    after = [shot.image for shot in hand] + [render(spread, frame=300 + k).image for k in range(15)]
    events = _feed(settler, after, start=5.0)
    again = [e for e in events if isinstance(e, SettledReading)]
    assert Status.HAND in [e.status for e in events if isinstance(e, StatusChange)]
    assert [e.moved_by_hand for e in first + again] == [False, True]
    # A hand passing over the tray without moving anything leaves no mark either: cubes
    # rolling in after it come from the tower.
    passing = hand_frames(replace(spread, hand=HandPose.random(13)), frames=8)
    resting = [render(spread, frame=400 + k).image for k in range(15)]
    events = _feed(settler, [shot.image for shot in passing] + resting, start=10.0)
    assert not [e for e in events if isinstance(e, SettledReading)]
    more = drop_frames(spread.with_counts(scene.counts.plus(Counts(green=1)), seed=7), frames=12)
    still = render(spread.with_counts(scene.counts.plus(Counts(green=1)), seed=7), frame=500)
    events = _feed(settler, [shot.image for shot in more] + [still.image] * 15, start=15.0)
    assert [e.moved_by_hand for e in events if isinstance(e, SettledReading)] == [False]


def test_hand_in_view_is_reported(cal: CalibrationSet, profile: Profile) -> None:
    scene = TrayScene.random(5, "hand", counts=Counts(green=2), setup=cal.setup)
    frames = [shot.image for shot in hand_frames(scene, frames=8)]
    events = _feed(Settler(profile), frames)
    assert Status.HAND in [e.status for e in events if isinstance(e, StatusChange)]
    assert not [e for e in events if isinstance(e, SettledReading)]


def test_lost_camera_dark_frames_and_wrong_size(profile: Profile) -> None:
    settler = Settler(profile)
    lost = settler.lost(1.0, "unplugged")
    assert [e.status for e in lost] == [Status.CAMERA_LOST]
    assert settler.lost(1.5) == []  # no repeat while still lost
    black = np.zeros((profile.picture_height, profile.picture_width, 3), np.uint8)
    assert [e.status for e in settler.feed(black, 2.0)] == [Status.DARK]
    small = np.zeros((10, 10, 3), np.uint8)
    changes = settler.feed(small, 3.0)
    assert [e.status for e in changes] == [Status.CAMERA_LOST]
    assert "10x10" in changes[0].message


def test_a_stream_ending_before_the_tray_settles_says_the_drop_went_unread(
    cal: CalibrationSet, profile: Profile, drop: tuple[TrayScene, list[np.ndarray]]
) -> None:
    _, frames = drop
    rolling = Settler(profile)
    _feed(rolling, frames[:6])
    assert (
        rolling.unread() == "the source ended while cubes were moving: the last drop was not read"
    )
    # At rest from the eighth frame on: ending 0.5 s later, short of the 0.6 s a reading
    # waits for.
    resting = Settler(profile)
    events = _feed(resting, frames[:15])
    assert not [e for e in events if isinstance(e, SettledReading)]
    assert resting.unread() == (
        "the source ended 0.5 s after the tray came to rest, before the 0.6 s a reading "
        "waits for: the last drop was not read"
    )
    # Read in full: nothing left unread.
    settled = Settler(profile)
    _feed(settled, frames)
    assert settled.unread() is None
    # A short stream of the empty tray holds nothing to read.
    empty = Settler(profile)
    _feed(empty, [render(TrayScene.random(7, counts=Counts(), setup=cal.setup)).image] * 3)
    assert empty.unread() is None
