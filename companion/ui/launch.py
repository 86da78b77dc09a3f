"""Starting the app: in a window for people, or the scripted demo offscreen (no display)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from companion.ui import i18n
from companion.ui.kivy_env import WindowPlan

DEFAULT_DEMO_SHOTS = Path("out") / "demo"
"""Where the offscreen demo writes its screenshots when no directory is given."""


def build_app(data: Path | None = None) -> object:
    """A CompanionApp over the saved game in `data` (default: the data directory)."""
    from companion.ui.app import CompanionApp
    from companion.ui.controller import Controller
    from companion.ui.saved_game import SavedGame

    return CompanionApp(Controller(SavedGame(data)))


def main(
    *,
    plan: WindowPlan,
    language: str,
    demo: bool,
    screenshots: Path | None,
    seed: int,
) -> int:
    """Run the app or the demo; returns the exit status."""
    i18n.set_language(language)
    if plan.offscreen and not demo:
        print(
            "No display found (no DISPLAY, WAYLAND_DISPLAY or SDL_VIDEODRIVER): "
            "playing the scripted demo offscreen instead.",
            flush=True,
        )
        demo = True
        screenshots = screenshots or DEFAULT_DEMO_SHOTS
    if demo:
        from companion.ui.demo import play_demo

        # The demo never touches the saved game of a real evening.
        with tempfile.TemporaryDirectory(prefix="companion-demo-") as data:
            return play_demo(
                data=Path(data),
                seed=seed,
                screenshots=screenshots,
                size=(plan.width, plan.height),
                language=language,
                out=sys.stdout,
            )
    from companion.ui.app import CompanionApp
    from companion.ui.bridge import attach_devices

    app = build_app()
    assert isinstance(app, CompanionApp)
    app.controller.resume()
    attach_devices(app)
    print(
        f"Tower Companion: window open, game saved in {app.controller.saved.path}; "
        "devices starting (the device screen shows which).",
        flush=True,
    )
    app.run()
    return 0
