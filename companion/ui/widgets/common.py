"""Big, readable building blocks every screen uses: buttons, labels, panels, a counter."""

from __future__ import annotations

from pathlib import Path

from kivy.lang import Builder
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.ui.widgets.colour_chip import ColourChip

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class BigButton(Button):  # type: ignore[misc]
    """A touch target at least `theme.touch` pixels tall, in a flat tint."""

    tint = ListProperty([0.28, 0.30, 0.35, 1])
    explain = StringProperty("")
    """Why the button is disabled, shown instead of acting when it is tapped."""

    def on_touch_down(self, touch: object) -> bool:
        # A hidden button (opacity 0) is not there for the person: a disabled widget would
        # still swallow the touch, from whatever shows beneath it.
        if self.opacity == 0:
            return False
        return bool(super().on_touch_down(touch))


class BigLabel(Label):  # type: ignore[misc]
    """Text that wraps inside its box and shrinks nothing: big type, read from a metre away."""


class Panel(BoxLayout):  # type: ignore[misc]
    """A box with the theme's panel background behind its children."""

    tint = ListProperty([0.20, 0.21, 0.24, 1])


class ColourButton(ButtonBehavior, ColourChip):  # type: ignore[misc]
    """A colour chip that is a button: used for actions (with their AP) and colour choices."""

    selected = BooleanProperty(False)
    payload = ObjectProperty(None, allownone=True)


class Counter(BoxLayout):  # type: ignore[misc]
    """One colour's count with big - and + buttons; never below `minimum` nor above `maximum`."""

    colour = StringProperty("blue")
    value = NumericProperty(0)
    minimum = NumericProperty(0)
    maximum = NumericProperty(7)
    label = StringProperty("")

    def step(self, delta: int) -> None:
        """Change the count by delta, clamped to [minimum, maximum]."""
        self.value = int(max(self.minimum, min(self.maximum, self.value + delta)))
