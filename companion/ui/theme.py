"""Sizes for a 7-inch screen read from a metre away, scaled to the window.

At the reference 800x480 the body text is 26 px (about 5 mm on a 7-inch panel) and a touch target
is at least 64 px (about 12 mm); larger windows scale everything up by the same factor.
"""

from __future__ import annotations

from kivy.core.window import Window
from kivy.event import EventDispatcher
from kivy.properties import ListProperty, NumericProperty

REFERENCE = (800.0, 480.0)
"""The window size, in pixels, the base sizes below are designed for."""


class Theme(EventDispatcher):  # type: ignore[misc]
    """Font sizes, spacing and colours the .kv files read; follows the window's size."""

    scale = NumericProperty(1.0)
    font_s = NumericProperty(20)
    font_m = NumericProperty(26)
    font_l = NumericProperty(34)
    font_xl = NumericProperty(48)
    touch = NumericProperty(64)
    pad = NumericProperty(8)
    background = ListProperty([0.13, 0.14, 0.16, 1])
    panel = ListProperty([0.20, 0.21, 0.24, 1])
    text = ListProperty([0.96, 0.96, 0.96, 1])
    muted = ListProperty([0.70, 0.72, 0.76, 1])
    accent = ListProperty([0.20, 0.55, 0.90, 1])
    good = ListProperty([0.18, 0.62, 0.30, 1])
    warn = ListProperty([0.90, 0.55, 0.10, 1])
    bad = ListProperty([0.80, 0.20, 0.20, 1])

    def __init__(self) -> None:
        super().__init__()
        Window.bind(size=self._resized)
        self._resized(Window, Window.size)

    def _resized(self, _window: object, size: tuple[int, int]) -> None:
        width, height = size
        self.scale = max(0.6, min(width / REFERENCE[0], height / REFERENCE[1]))
        self.font_s = round(20 * self.scale)
        self.font_m = round(26 * self.scale)
        self.font_l = round(34 * self.scale)
        self.font_xl = round(48 * self.scale)
        self.touch = round(64 * self.scale)
        self.pad = round(8 * self.scale)
