"""The tray picture with every detected cube marked by its colour's icon and code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Mesh, Rectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.properties import StringProperty
from kivy.uix.widget import Widget

from companion.core.cubes import Colour
from companion.ui import palette

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


@dataclass(frozen=True)
class Marker:
    """A cube found in the picture: its colour and centre in picture pixels (x right, y down)."""

    colour: Colour
    x: float
    y: float


class TrayView(Widget):  # type: ignore[misc]
    """Shows a BGR picture fitted into the widget (aspect kept) with a marker on every cube.

    With no picture it shows `empty_text` (for example: no camera, counts are typed in).
    """

    empty_text = StringProperty("")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._texture: Texture | None = None
        self._picture_size = (0, 0)
        self._markers: tuple[Marker, ...] = ()
        self.bind(pos=self._redraw, size=self._redraw, empty_text=self._redraw)

    @property
    def marker_count(self) -> int:
        """How many cubes are marked now."""
        return len(self._markers)

    def show(self, picture: npt.NDArray[np.uint8] | None, markers: Sequence[Marker] = ()) -> None:
        """Display a picture (BGR uint8, height x width x 3) or none, and its cube markers."""
        if picture is None and self._texture is None and not markers and not self._markers:
            return  # nothing changes: keep the drawing (text textures are costly to redo)
        if picture is None:
            self._texture = None
            self._picture_size = (0, 0)
        else:
            height, width = picture.shape[:2]
            if self._texture is None or self._picture_size != (width, height):
                self._texture = Texture.create(size=(width, height), colorfmt="rgb")
                self._texture.flip_vertical()
            # Kivy textures start at the bottom row; flipping the texture keeps rows as given.
            rgb = np.ascontiguousarray(picture[:, :, ::-1])
            self._texture.blit_buffer(rgb.tobytes(), colorfmt="rgb", bufferfmt="ubyte")
            self._picture_size = (width, height)
        self._markers = tuple(markers)
        self._redraw()

    def _fit(self) -> tuple[float, float, float]:
        """(left, bottom, scale) of the picture fitted inside the widget."""
        width, height = self._picture_size
        scale = min(self.width / width, self.height / height)
        left = self.x + (self.width - width * scale) / 2
        bottom = self.y + (self.height - height * scale) / 2
        return left, bottom, scale

    def _redraw(self, *_args: object) -> None:
        self.canvas.after.clear()
        with self.canvas.after:
            Color(0.09, 0.09, 0.10, 1)
            Rectangle(pos=self.pos, size=self.size)
            if self._texture is None:
                if self.empty_text:
                    label = CoreLabel(
                        text=self.empty_text,
                        font_size=max(14, self.height * 0.08),
                        text_size=(self.width * 0.9, None),
                        halign="center",
                    )
                    label.refresh()
                    texture = label.texture
                    Color(0.75, 0.76, 0.80, 1)
                    Rectangle(
                        texture=texture,
                        size=texture.size,
                        pos=(
                            self.center_x - texture.width / 2,
                            self.center_y - texture.height / 2,
                        ),
                    )
                return
            left, bottom, scale = self._fit()
            width, height = self._picture_size
            Color(1, 1, 1, 1)
            Rectangle(
                texture=self._texture, pos=(left, bottom), size=(width * scale, height * scale)
            )
            radius = max(6.0, min(self.width, self.height) * 0.035)
            for marker in self._markers:
                cx = left + marker.x * scale
                cy = bottom + (height - marker.y) * scale
                self._draw_marker(marker.colour, cx, cy, radius)

    def _draw_marker(self, colour: Colour, cx: float, cy: float, radius: float) -> None:
        """A ring in contrasting ink around the cube, with the colour's icon in its paint."""
        paint = palette.paint(colour)
        ink = palette.ink(colour)
        Color(*ink)
        Line(circle=(cx, cy, radius * 1.9), width=2.5)
        Color(*paint)
        Line(circle=(cx, cy, radius * 1.9 + 2.5), width=1.5)
        points = palette.outline_points(palette.shape(colour), cx, cy, radius)
        vertices: list[float] = [cx, cy, 0, 0]
        for i in range(0, len(points), 2):
            vertices += [points[i], points[i + 1], 0, 0]
        vertices += [points[0], points[1], 0, 0]
        Color(*ink)
        Mesh(vertices=vertices, indices=list(range(len(vertices) // 4)), mode="triangle_fan")
