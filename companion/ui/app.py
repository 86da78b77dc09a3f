"""The Kivy application: a header with the phase and the always-there buttons, and the screens."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

from kivy.app import App
from kivy.lang import Builder
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion.core.views import Choice
from companion.ui import i18n
from companion.ui.controller import Controller
from companion.ui.screens.base import BaseScreen
from companion.ui.theme import Theme
from companion.ui.widgets import colour_chip, common, form, tray_view

# app.kv and the screens' .kv files use these widgets: register them before any rule loads.
_WIDGET_MODULES = (colour_chip, common, form, tray_view)

# name -> "module:Class"; one module (and .kv file) per screen under companion/ui/screens.
SCREENS: dict[str, str] = {
    "new_game": "companion.ui.screens.new_game:NewGameScreen",
    "phase": "companion.ui.screens.phase:PhaseScreen",
    "turn": "companion.ui.screens.turn:TurnScreen",
    "round_end": "companion.ui.screens.round_end:RoundEndScreen",
    "scores": "companion.ui.screens.scores:ScoresScreen",
    "calibration": "companion.ui.screens.calibration:CalibrationScreen",
    "box_data": "companion.ui.screens.box_data:BoxDataScreen",
    "devices": "companion.ui.screens.devices:DevicesScreen",
}


class Root(BoxLayout):  # type: ignore[misc]
    """The header above the screen manager; defined in app.kv."""

    manager = ObjectProperty(None)


class CompanionApp(App):  # type: ignore[misc]
    """The touchscreen app. `controller` holds the game; screens only show it and forward taps."""

    theme = ObjectProperty(None)
    controller = ObjectProperty(None)
    status = StringProperty("")
    """One line at the bottom of the header: the latest message for the players."""

    def __init__(self, controller: Controller, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.controller = controller
        self.title = "Tower Companion"

    def build(self) -> Root:
        self.theme = Theme()
        kv = Path(__file__).with_name("app.kv")
        if str(kv) not in Builder.files:
            Builder.load_file(str(kv))
        root = self._make_root()
        self.root = root
        self.controller.subscribe(self.refresh)
        self.controller.navigate_to = self.controller.screen_for_stage()
        self.refresh()
        return root

    def _make_root(self) -> Root:
        """The header and every screen, their texts taken from the catalogue in force now."""
        root = Root()
        manager: ScreenManager = root.manager
        manager.transition = NoTransition()
        for name, target in SCREENS.items():
            module_name, class_name = target.split(":")
            screen_class = getattr(import_module(module_name), class_name)
            manager.add_widget(screen_class(name=name))
        return root

    def set_language(self, language: str) -> None:
        """Switch the language at once: every screen is made again from its .kv rules, which
        take their texts from the catalogue when a widget is made. The game lives in the
        controller, so nothing recorded is touched; a turn being filled in is left for the
        phase screen (its form would show the old language)."""
        from kivy.core.window import Window

        i18n.set_language(language)
        old = self.root
        current = old.manager.current
        new = self._make_root()
        Window.remove_widget(old)
        Window.add_widget(new)
        self.root = new
        self.controller.refresh_texts()
        self.show("phase" if current == "turn" else current)

    def screen(self, name: str) -> BaseScreen:
        """The screen of that name (see SCREENS)."""
        manager: ScreenManager = self.root.manager
        found: BaseScreen = manager.get_screen(name)
        return found

    def show(self, name: str) -> None:
        """Bring a screen to the front and redraw it."""
        manager: ScreenManager = self.root.manager
        manager.current = name
        self.screen(name).refresh(self.controller)

    def refresh(self) -> None:
        """Redraw the header and the visible screen, and go where the game wants to be."""
        wanted = self.controller.take_navigation()
        manager: ScreenManager = self.root.manager
        if wanted is not None and manager.current != wanted:
            manager.current = wanted
        self.status = self.controller.message
        manager.current_screen.refresh(self.controller)

    def start_turn(self, choice: Choice) -> None:
        """Open the turn screen for the current player taking this choice."""
        turn = self.screen("turn")
        turn.start(self.controller, choice)
        manager: ScreenManager = self.root.manager
        manager.current = "turn"

    def tr(self, message: str) -> str:
        """Text from the catalogue, for .kv files that hold `app`."""
        return i18n.tr(message)
