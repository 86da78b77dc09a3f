"""Device status and settings: where readings come from, the settings in force, and the way to
the set-up screens (new game, calibration, box data)."""

from __future__ import annotations

from kivy.app import App
from kivy.properties import StringProperty

from companion.settings import SettingsError, load_settings
from companion.ui import i18n
from companion.ui.controller import Controller, source_name
from companion.ui.i18n import tr, trf
from companion.ui.saved_game import save_language
from companion.ui.screens.base import BaseScreen, load_kv

load_kv(__file__)


class DevicesScreen(BaseScreen):
    """What the app is connected to, the settings file's choices, and the app's language."""

    language = StringProperty("en")

    def switch_language(self) -> None:
        """Switch to the other language at once and remember it for the next start."""
        chosen = "de" if self.language == "en" else "en"
        save_language(chosen, self.controller.saved.directory)
        self.controller.message = ""
        App.get_running_app().set_language(chosen)

    def refresh(self, controller: Controller) -> None:
        self.controller = controller
        # The screen is made again after a switch, so the language shown is the one in force.
        self.language = i18n.language()
        lines = []
        bridge = getattr(App.get_running_app(), "bridge", None)
        if bridge is None:
            lines.append(tr("Readings: typed in by hand (no device connected)."))
        else:
            lines.append(trf("Readings from: {source}", source=source_name(bridge.description)))
            lines.append(trf("Readings received: {count}", count=bridge.received))
            for source, health in sorted(bridge.health.items()):
                lines.append(f"{source}: {health.state} - {health.message}")
            if bridge.last_problem:
                lines.append(trf("Last problem: {problem}", problem=bridge.last_problem))
        try:
            settings = load_settings()
        except SettingsError as error:
            lines.append(trf("Settings file cannot be used: {error}", error=str(error)))
        else:
            lines.append(trf("Camera: {source}", source=settings.camera.source))
            lines.append(trf("Chute sensor: {backend}", backend=settings.sensor.backend))
            lines.append(trf("GPIO: {backend}", backend=settings.gpio.backend))
            pins = settings.gpio.pins
            lines.append(trf("Buttons: next on GPIO {next}, undo on GPIO {undo}",
                             next=pins.next_button, undo=pins.undo_button))  # fmt: skip
        lines.append(trf("Game saved in: {path}", path=str(controller.saved.path)))
        self.ids.status.text = "\n".join(lines)
