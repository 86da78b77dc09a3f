"""Settled readings from a stream of frames: wait until the tray is still, read it once.

The Settler watches a small grey top-down view of the tray. Movement means cubes are rolling
(or, when much of the tray changes, a hand is in view); once nothing has moved for
`settle_seconds`, the tray is read, but only if it differs from what was last reported, so
one drop is never reported twice. A reading after a hand was in view says so
(`moved_by_hand`): what changed is more likely cubes people moved than cubes that fell.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision import reasons as doubt
from companion.vision.count import TOO_DARK, read_tray
from companion.vision.errors import ImageError
from companion.vision.images import BGRImage
from companion.vision.profile import Profile
from companion.vision.reading import TrayReading

# Grey-level change (0..255) that counts as movement, at least; noise raises it per frame.
MOTION_LEVEL = 14.0
# Share of the tray that must change between frames to call it movement (about 1/5 cube).
MOTION_SHARE = 0.0015
# Share of the tray changing at once that means a hand or arm, not cubes.
HAND_SHARE = 0.08
# The outer band of the view (share of its size), and the share of it changed by a hand.
BORDER_BAND = 0.04
HAND_BORDER = 0.025
# Share of the tray that must differ from the last reported state to be worth a new reading.
NEW_CONTENT_SHARE = 0.002


def _border_share(current: NDArray[np.float32], reported: NDArray[np.float32]) -> float:
    """Share of the view's outer band that differs from the last reported tray.

    Cubes roll inside the tray; a hand or arm reaches in over the rim, through this band.
    """
    band = max(2, int(BORDER_BAND * min(current.shape)))
    changed = np.abs(current - reported) > MOTION_LEVEL
    strips = (changed[:band], changed[-band:], changed[:, :band], changed[:, -band:])
    return float(np.mean(np.concatenate([s.ravel() for s in strips])))


class Status(StrEnum):
    """What the camera sees, when it is not a settled tray."""

    ROLLING = "rolling"
    HAND = "hand in view"
    STILL = "still"
    EMPTY = "tray empty"
    DARK = "picture too dark"
    CAMERA_LOST = "camera lost"


@dataclass(frozen=True)
class StatusChange:
    """The camera's status changed at `timestamp` (seconds, the frames' clock)."""

    status: Status
    timestamp: float
    message: str


@dataclass(frozen=True)
class SettledReading:
    """The tray settled after a drop and was read from the frame taken at `timestamp`.

    `moved_by_hand`: a hand was in view since the tray last lay still, so people, not only
    the tower, may have changed it (spread a heap to show a hidden cube, say).
    """

    reading: TrayReading
    timestamp: float
    moved_by_hand: bool = False


Event = StatusChange | SettledReading
Reader = Callable[[BGRImage, Profile], TrayReading]


def _default_reader(image: BGRImage, profile: Profile) -> TrayReading:
    return read_tray(image, profile, annotate=True)


class Settler:
    """Turns frames into status changes and one reading per settled drop.

    Feed frames in time order with `feed`; call `lost` when the source gives none. Each call
    returns the events it caused, oldest first (often none).
    """

    def __init__(
        self,
        profile: Profile,
        *,
        settle_seconds: float = 0.6,
        reader: Reader = _default_reader,
    ) -> None:
        self.profile = profile
        self.settle_seconds = settle_seconds
        self._reader = reader
        self._previous: NDArray[np.float32] | None = None
        self._reported = self._signature(profile.empty_view(), warped=True)
        self._still_since: float | None = None
        self._checked = False
        self._status: Status | None = None
        self._last: float | None = None
        self._hand_since_report = False

    def _signature(self, image: BGRImage, *, warped: bool = False) -> NDArray[np.float32]:
        """A small blurred grey top-down view of the tray (about half the view's size)."""
        view = image if warped else self.profile.view.warp(image)
        grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        blurred = np.asarray(cv2.GaussianBlur(small, (3, 3), 0), np.float32)
        # Auto exposure breathes between frames: compare patterns, not absolute brightness.
        return blurred * np.float32(128.0 / max(float(blurred.mean()), 1.0))

    def _set(self, status: Status, timestamp: float, message: str) -> list[Event]:
        """A StatusChange event if the status is new, else nothing."""
        if status == Status.HAND:
            self._hand_since_report = True
        if status == self._status:
            return []
        self._status = status
        return [StatusChange(status, timestamp, message)]

    def lost(self, timestamp: float, message: str = "no frame from the camera") -> list[Event]:
        """The source gave no frame (unplugged, stalled, ended with an error)."""
        self._previous = None
        self._still_since = None
        return self._set(Status.CAMERA_LOST, timestamp, message)

    def feed(self, image: BGRImage, timestamp: float) -> list[Event]:
        """Take one frame (BGR, the profile's picture size; `timestamp` in seconds)."""
        self._last = timestamp
        size = (image.shape[1], image.shape[0]) if image.ndim == 3 else (0, 0)
        if size != (self.profile.picture_width, self.profile.picture_height):
            return self.lost(
                timestamp,
                f"frames are {size[0]}x{size[1]} but the profile expects "
                f"{self.profile.picture_width}x{self.profile.picture_height}",
            )
        if float(np.mean(cv2.mean(image)[:3])) < TOO_DARK:
            self._previous = None
            self._still_since = None
            return self._set(
                Status.DARK, timestamp, "the picture is black: light off or lens covered"
            )
        current = self._signature(image)
        previous, self._previous = self._previous, current
        if previous is None:
            self._still_since = timestamp
            self._checked = False
            return []
        change = np.abs(current - previous)
        level = max(MOTION_LEVEL, 4.0 * float(np.median(change)))
        moving = float(np.mean(change > level))
        if moving >= HAND_SHARE or _border_share(current, self._reported) >= HAND_BORDER:
            self._still_since = None
            self._checked = False
            return self._set(Status.HAND, timestamp, "something large is moving over the tray")
        if moving >= MOTION_SHARE:
            self._still_since = None
            self._checked = False
            if self._status == Status.HAND:
                return []
            return self._set(Status.ROLLING, timestamp, "cubes are moving")
        if self._still_since is None:
            self._still_since = timestamp
        if self._checked or timestamp - self._still_since < self.settle_seconds:
            return []
        self._checked = True
        return self._settled(image, current, timestamp)

    def _new_content(self, current: NDArray[np.float32]) -> bool:
        """Whether the tray's signature differs from the one last reported (or the empty
        tray's) by more than camera noise."""
        difference = np.abs(current - self._reported)
        level = max(MOTION_LEVEL, 4.0 * float(np.median(difference)))
        return float(np.mean(difference > level)) >= NEW_CONTENT_SHARE

    def unread(self) -> str | None:
        """Why the last frames fed gave no reading of what the tray now holds, when the
        source has ended with something new in it; None when nothing is left unread.

        A video that stops while the cubes still roll, or too soon after they come to rest,
        ends before any reading is settled; saying so beats ending in silence.
        """
        if self._previous is None or self._last is None or self._checked:
            return None
        if not self._new_content(self._previous):
            return None
        if self._still_since is None:
            moving = "a hand was in view" if self._status == Status.HAND else "cubes were moving"
            return f"the source ended while {moving}: the last drop was not read"
        rest = self._last - self._still_since
        return (
            f"the source ended {rest:.1f} s after the tray came to rest, before the "
            f"{self.settle_seconds:.1f} s a reading waits for: the last drop was not read"
        )

    def _settled(
        self, image: BGRImage, current: NDArray[np.float32], timestamp: float
    ) -> list[Event]:
        """The tray has been still long enough: read it if it changed since the last report."""
        if not self._new_content(current):
            # A hand passed and left the tray as it was: what comes next is not its doing.
            self._hand_since_report = False
            return self._set(Status.STILL, timestamp, "nothing new in the tray")
        try:
            reading = self._reader(image, self.profile)
        except ImageError as error:
            return self.lost(timestamp, str(error))
        if doubt.HAND in reading.reasons:
            return self._set(Status.HAND, timestamp, "a hand rests in the picture")
        self._reported = current
        by_hand, self._hand_since_report = self._hand_since_report, False
        if reading.counts.total == 0 and reading.confident:
            return self._set(Status.EMPTY, timestamp, "the tray is empty")
        self._status = Status.STILL
        return [SettledReading(reading, timestamp, moved_by_hand=by_hand)]
