"""A cube colour shown three ways at once: its paint, its two-letter code and its icon shape."""

from __future__ import annotations

from pathlib import Path

from kivy.graphics import Color, Line, Mesh, RoundedRectangle
from kivy.lang import Builder
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.label import Label

from companion.core.cubes import Colour
from companion.ui import palette

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class ColourChip(Label):  # type: ignore[misc]
    """A rounded swatch in the colour's paint with its icon on the left and code text.

    `colour` is the colour's value ('blue' ... 'white'); `text` defaults to its code and may be
    set to more (for example 'Rd 3'). `dimmed` greys the chip for colours not available now.
    """

    colour = StringProperty("blue")
    dimmed = BooleanProperty(False)
    icon_size = NumericProperty(0)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        # With no text of its own the chip shows the colour's code, following the colour.
        self._auto_text: bool = not str(self.text)  # type: ignore[has-type]
        self._code_shown = ""
        self.bind(pos=self.redraw, size=self.redraw, colour=self.redraw, dimmed=self.redraw)
        self.redraw()

    def redraw(self, *_args: object) -> None:
        """Repaint the swatch and icon for the current colour, size and dimming."""
        colour = Colour(self.colour)
        if self._auto_text and self.text not in ("", self._code_shown):  # type: ignore[has-type]
            # A kv rule sets a chip's text after it is made (a counter's value): that text is
            # the chip's own, and a later repaint must not put the code back over it.
            self._auto_text = False
        if self._auto_text:
            self.text = self._code_shown = colour.code
        paint = palette.paint(colour)
        ink = palette.ink(colour)
        alpha = 0.35 if self.dimmed else 1.0
        self.color = (*ink[:3], alpha)
        self.canvas.before.clear()
        radius = min(self.width, self.height) * 0.18
        # The icon stays small beside the text: it is a cue, the code and count are the message.
        icon_r = (self.icon_size or min(self.height * 0.42, self.width * 0.13, 40)) / 2
        cx = self.x + icon_r + max(4.0, self.width * 0.04)
        cy = self.center_y
        points = palette.outline_points(palette.shape(colour), cx, cy, icon_r)
        vertices: list[float] = [cx, cy, 0, 0]
        for i in range(0, len(points), 2):
            vertices += [points[i], points[i + 1], 0, 0]
        vertices += [points[0], points[1], 0, 0]
        with self.canvas.before:
            Color(*paint[:3], alpha)
            RoundedRectangle(pos=self.pos, size=self.size, radius=[radius])
            # Black and white chips vanish against some backgrounds without a rim.
            Color(0.55, 0.55, 0.55, alpha)
            Line(rounded_rectangle=(*self.pos, *self.size, radius), width=1.2)
            Color(*ink[:3], alpha)
            Mesh(vertices=vertices, indices=list(range(len(vertices) // 4)), mode="triangle_fan")
        # Leave room for the icon on the left of the text.
        self.padding = [cx - self.x + icon_r + 2, 0, 2, 0]
