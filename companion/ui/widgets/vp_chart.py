"""Victory points over the game: one line per player, named at its end (not by colour alone)."""

from __future__ import annotations

from collections.abc import Sequence

from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.uix.widget import Widget

# Distinct line styles: colour plus width, with the name written at the line's end.
LINE_COLOURS = (
    (0.35, 0.70, 1.00, 1),
    (1.00, 0.60, 0.20, 1),
    (0.55, 0.90, 0.45, 1),
    (0.95, 0.45, 0.85, 1),
)


class VpChart(Widget):  # type: ignore[misc]
    """Plots `series[player]` = VP after each step, with the players' names at the right."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.names: list[str] = []
        self.colours: list[tuple[float, float, float, float]] = list(LINE_COLOURS)
        self.series: list[list[int]] = []
        self.font_size = 18.0
        self.bind(pos=self._redraw, size=self._redraw)

    def plot(
        self,
        names: Sequence[str],
        series: Sequence[Sequence[int]],
        font_size: float,
        colours: Sequence[tuple[float, float, float, float]] = LINE_COLOURS,
    ) -> None:
        """Show one line per player in their colour (names written at the lines' ends); all
        series have the same length (one value per step)."""
        self.colours = list(colours)
        self.names = list(names)
        self.series = [list(s) for s in series]
        self.font_size = font_size
        self._redraw()

    def _redraw(self, *_args: object) -> None:
        self.canvas.clear()
        if not self.series or not self.series[0]:
            return
        steps = len(self.series[0])
        top = max(1, max(max(s) for s in self.series))
        label_room = self.font_size * 5
        left, bottom = self.x + self.font_size * 2, self.y + self.font_size * 0.5
        width = max(10.0, self.width - label_room - self.font_size * 2)
        height = max(10.0, self.height - self.font_size)
        with self.canvas:
            Color(0.5, 0.5, 0.55, 1)
            Line(points=[left, bottom, left, bottom + height, left, bottom, left + width, bottom])
            self._text(str(top), left - self.font_size * 1.8, bottom + height - self.font_size)
            self._text("0", left - self.font_size * 1.8, bottom)
            # Names at the lines' ends, pushed apart so that equal scores stay readable.
            ends = sorted(range(len(self.series)), key=lambda k: self.series[k][-1])
            label_y: dict[int, float] = {}
            floor = bottom - self.font_size
            for k in ends:
                y = bottom + height * self.series[k][-1] / top - self.font_size / 2
                y = max(y, floor + self.font_size * 1.3)
                label_y[k] = y
                floor = y
            for i, (name, values) in enumerate(zip(self.names, self.series, strict=True)):
                colour = self.colours[i % len(self.colours)]
                points: list[float] = []
                for step, value in enumerate(values):
                    points += [
                        left + width * step / max(1, steps - 1),
                        bottom + height * value / top,
                    ]
                Color(*colour)
                Line(points=points, width=1.5 + i * 0.8)
                self._text(f"{name} {values[-1]}", left + width + 6, label_y[i])

    def _text(self, text: str, x: float, y: float) -> None:
        label = CoreLabel(text=text, font_size=self.font_size)
        label.refresh()
        Rectangle(texture=label.texture, pos=(x, y), size=label.texture.size)
