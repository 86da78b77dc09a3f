"""One offscreen Kivy window for all UI tests (Kivy's window is a process singleton).

The environment is set before Kivy is first imported: no argv parsing, a throw-away KIVY_HOME,
no console or file logging.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ["KIVY_NO_ARGS"] = "1"
os.environ["KIVY_NO_CONSOLELOG"] = "1"
os.environ["KIVY_NO_FILELOG"] = "1"
os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="companion-test-kivy-"))

from companion.ui import kivy_env

kivy_env.prepare((800, 480))


@pytest.fixture(scope="session")
def app_session() -> Iterator[object]:
    """The app, built once on the offscreen window, with Kivy's loop started (not blocking)."""
    from companion.ui import harness, i18n
    from companion.ui.app import CompanionApp
    from companion.ui.controller import Controller
    from companion.ui.saved_game import SavedGame

    i18n.set_language("en")
    data = Path(tempfile.mkdtemp(prefix="companion-test-data-"))
    app = CompanionApp(Controller(SavedGame(data)))
    app._run_prepare()
    harness.start()
    harness.frames(3)
    yield app
    app.stop()


@pytest.fixture()
def app(app_session: object, tmp_path: Path) -> object:
    """The app reset to no game, saving into this test's own directory."""
    from companion.ui import harness
    from companion.ui.app import CompanionApp
    from companion.ui.saved_game import SavedGame

    assert isinstance(app_session, CompanionApp)
    controller = app_session.controller
    controller.saved = SavedGame(tmp_path)
    controller.game = None
    controller.pending = None
    controller.message = ""
    phase = app_session.screen("phase")
    phase.drop_panel.mode = "drop"
    app_session.show("new_game")
    controller._changed()
    harness.frames(2)
    return app_session
