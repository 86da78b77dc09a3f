"""Small forms built from data: steppers, yes/no toggles and one-of choices, as big touch rows.

An action's outcome (steps, islands, tile sizes, ...) is described as a list of `Field`s, and the
form turns taps into a dict of values. Keeping the widgets generic keeps each screen thin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.ui.widgets.common import BigButton

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


@dataclass(frozen=True)
class Field:
    """One input: `kind` is 'stepper' (int in [low, high]), 'toggle' (bool) or 'choice'.

    For 'choice', `options` holds (value, label) pairs; `default` is the starting value.
    `label` is already translated. A stepper whose `low` is -1 shows -1 as `unset_text` and
    its value is then None (for example "as far as the AP allow").
    """

    name: str
    label: str
    kind: str
    default: Any = 0
    low: int = 0
    high: int = 99
    options: tuple[tuple[Any, str], ...] = field(default_factory=tuple)
    unset_text: str = ""


class FieldRow(BoxLayout):  # type: ignore[misc]
    """A label on the left and the field's control on the right."""

    label = StringProperty("")
    name = StringProperty("")
    value = ObjectProperty(None, allownone=True)
    low = NumericProperty(0)
    high = NumericProperty(99)
    options = ListProperty([])
    kind = StringProperty("stepper")
    label_share = NumericProperty(0.42)
    """The part of the row's width the label takes (long labels wrap onto two lines)."""
    unset_text = StringProperty("")

    def build(self, spec: Field) -> None:
        """Create the control for the field spec."""
        self.label, self.name, self.kind = spec.label, spec.name, spec.kind
        self.low, self.high = spec.low, spec.high
        self.options = list(spec.options)
        self.unset_text = spec.unset_text
        self.value = spec.default
        box = self.ids.control
        box.clear_widgets()
        if spec.kind == "stepper":
            minus = BigButton(text="-", on_release=lambda *_: self.step(-1))
            shown = BigButton(text=str(self.value), disabled=True)
            plus = BigButton(text="+", on_release=lambda *_: self.step(1))
            minus.name, shown.name, plus.name = "minus", "shown", "plus"
            box.cols = 3
            for widget in (minus, shown, plus):
                box.add_widget(widget)
            self._shown = shown
        elif spec.kind == "toggle":
            button = BigButton(on_release=lambda *_: self.flip())
            button.name = "toggle"
            box.add_widget(button)
            self._shown = button
            box.cols = 1
        else:
            box.cols = min(4, len(spec.options)) if len(spec.options) <= 4 else 3
            if len(spec.options) > 4:
                # Many options: a grid of buttons under the label, three to a row.
                rows = -(-len(spec.options) // 3)
                self.orientation = "vertical"
                self.ids.label.size_hint_x = 1
                self.ids.label.size_hint_y = None
                row_height = float(self.height)  # type: ignore[has-type]
                self.ids.label.height = row_height * 0.6
                self.height = row_height * (rows + 0.6) + self.spacing * rows
            for value, text in spec.options:
                button = BigButton(text=text)
                button.name = f"option:{value}"
                button.bind(on_release=lambda _b, v=value: self.choose(v))
                box.add_widget(button)
        self._update()

    def fits(self, spec: Field) -> bool:
        """True when this row can show the spec by `reset` (same name, kind and options)."""
        return bool(
            self.name == spec.name
            and self.kind == spec.kind
            and self.label == spec.label
            and self.options == list(spec.options)
        )

    def reset(self, spec: Field) -> None:
        """Back to the spec's default value and bounds, keeping the widgets."""
        self.low, self.high = spec.low, spec.high
        self.unset_text = spec.unset_text
        self.value = spec.default
        self._update()

    def control(self, name: str) -> BigButton:
        """The button called name ('minus', 'plus', 'toggle', 'option:<value>') for taps."""
        for widget in self.ids.control.children:
            if getattr(widget, "name", None) == name:
                found: BigButton = widget
                return found
        raise KeyError(f"field {self.name!r} has no control {name!r}")

    def step(self, delta: int) -> None:
        """Change a stepper's value, kept within its bounds."""
        self.value = int(max(self.low, min(self.high, int(self.value) + delta)))
        self._update()

    def flip(self) -> None:
        """Turn a toggle on or off."""
        self.value = not self.value
        self._update()

    def choose(self, value: Any) -> None:
        """Select one option of a choice."""
        self.value = value
        self._update()

    def _update(self) -> None:
        from companion.ui.i18n import tr

        if self.kind == "stepper":
            unset = self.low < 0 and self.value < 0
            self._shown.text = self.unset_text if unset else str(self.value)
            self.control("minus").disabled = self.value <= self.low
            self.control("plus").disabled = self.value >= self.high
        elif self.kind == "toggle":
            self._shown.text = tr("Yes") if self.value else tr("No")
            self._shown.tint = (0.18, 0.55, 0.30, 1) if self.value else (0.28, 0.30, 0.35, 1)
        else:
            for widget in self.ids.control.children:
                chosen = widget.name == f"option:{self.value}"
                widget.tint = (0.20, 0.50, 0.85, 1) if chosen else (0.28, 0.30, 0.35, 1)


class Form(BoxLayout):  # type: ignore[misc]
    """A column of field rows; `values()` gives name -> value."""

    label_share = NumericProperty(0.42)

    def build(self, fields: list[Field]) -> None:
        """One row per field. Rows of the same shape as before are reset in place instead of
        rebuilt: every new label costs a text rendering, and forms are set up for every turn."""
        rows = list(reversed(self.children))
        same = len(rows) == len(fields) and all(
            row.fits(spec) for row, spec in zip(rows, fields, strict=True)
        )
        if same:
            for row, spec in zip(rows, fields, strict=True):
                row.reset(spec)
            return
        self.clear_widgets()
        for spec in fields:
            row = FieldRow(label_share=self.label_share)
            row.build(spec)
            self.add_widget(row)

    def row(self, name: str) -> FieldRow:
        """The row of the named field."""
        for child in self.children:
            if child.name == name:
                found: FieldRow = child
                return found
        raise KeyError(f"no field {name!r} in this form")

    def values(self) -> dict[str, Any]:
        """Every field's current value by name (an unset stepper gives None)."""
        found: dict[str, Any] = {}
        for child in self.children:
            unset = child.kind == "stepper" and child.low < 0 and child.value < 0
            found[child.name] = None if unset else child.value
        return found
