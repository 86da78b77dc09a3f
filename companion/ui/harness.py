"""Driving the app without a person: frames, taps at widget centres, screenshots.

The demo, the screenshot target, the benchmark and the UI tests all use this, so what they
exercise is the real window, the real touch dispatch and the real clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.input.motionevent import MotionEvent
from kivy.uix.widget import Widget


class Touch(MotionEvent):  # type: ignore[misc]
    """A finger on the window at (x, y) pixels, dispatched like a real touchscreen's."""

    def __init__(self, x: float, y: float) -> None:
        width, height = Window.size
        super().__init__(
            "harness",
            id(self),
            {"x": x / max(1.0, width - 1.0), "y": y / max(1.0, height - 1.0)},
            is_touch=True,
            type_id="touch",
        )
        self.profile = ["pos"]

    def depack(self, args: dict[str, float]) -> None:
        self.sx = args["x"]
        self.sy = args["y"]
        super().depack(args)


def start() -> None:
    """Start Kivy's event loop (clock and input) without entering its blocking main loop."""
    EventLoop.ensure_window()
    EventLoop.start()


def frames(count: int = 2) -> None:
    """Run `count` frames: tick the clock, dispatch input, lay out and draw."""
    for _ in range(count):
        EventLoop.idle()


def settle(seconds: float = 0.0, *, min_frames: int = 3) -> None:
    """Run frames until `seconds` of clock time have passed (at least `min_frames` frames)."""
    deadline = time.perf_counter() + seconds
    done = 0
    while done < min_frames or time.perf_counter() < deadline:
        EventLoop.idle()
        done += 1


def centre_in_window(widget: Widget) -> tuple[float, float]:
    """The widget's centre in window pixels."""
    x, y = widget.to_window(*widget.center)
    return float(x), float(y)


def tap(widget: Widget, *, settle_frames: int = 1, prepare: bool = True) -> None:
    """Press and release a finger on the widget's centre, as a person would.

    `prepare` runs one frame first so the layout is current; repeated taps on a widget that
    does not move may skip it. Raises ValueError when the widget is not on the window or off
    screen, so a test cannot pass by tapping something invisible.
    """
    if prepare:
        frames(1)
    if widget.get_root_window() is None:
        raise ValueError(f"{widget!r} is not on the window; cannot tap it")
    x, y = centre_in_window(widget)
    width, height = Window.size
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"{widget!r} is off screen at ({x:.0f}, {y:.0f})")
    touch = Touch(x, y)
    EventLoop.post_dispatch_input("begin", touch)
    touch.move({"x": touch.sx, "y": touch.sy})
    EventLoop.post_dispatch_input("end", touch)
    frames(settle_frames)


def screenshot(path: Path) -> Path:
    """Draw a fresh frame and save the window to exactly `path` (PNG); returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    frames(2)
    # Kivy inserts a counter before the extension of the name it is given; move it into place.
    written = Window.screenshot(name=str(path))
    if not written:
        raise RuntimeError(f"the window could not be saved to {path}")
    Path(written).replace(path)
    return path


def wait_until(condition: Callable[[], bool], *, timeout: float = 5.0) -> bool:
    """Run frames until condition() is true or `timeout` seconds pass; returns the condition."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if condition():
            return True
        EventLoop.idle()
    return condition()


def resize(width: int, height: int) -> None:
    """Resize the window (offscreen or not) and lay everything out again."""
    Window.size = (width, height)
    frames(3)
