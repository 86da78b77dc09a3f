"""What every screen shares: its .kv file is loaded with it, and it redraws from the controller."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kivy.lang import Builder
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

if TYPE_CHECKING:
    from companion.ui.controller import Controller


def load_kv(module_file: str) -> None:
    """Load the .kv rules that sit next to a screen's module (same name, .kv suffix)."""
    path = Path(module_file).with_suffix(".kv")
    if str(path) not in Builder.files:
        Builder.load_file(str(path))


class BaseScreen(Screen):  # type: ignore[misc]
    """A screen that shows part of the controller's state; `refresh` redraws it."""

    title = StringProperty("")

    def refresh(self, controller: Controller) -> None:
        """Redraw from the controller's current state (called after every change)."""
