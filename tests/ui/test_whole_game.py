"""A whole simulated 4-player game entered through the app's widgets alone."""

from __future__ import annotations

from typing import Any

from companion.core.simulate import simulate_game
from companion.core.views import scores
from companion.ui.autoplay import enter
from companion.ui.bridge import ReadingBridge


def test_four_player_game_through_touches_matches_the_engine(app: Any) -> None:
    from companion.core.events import Drop, SetupDrop
    from companion.ui import harness
    from companion.ui.controller import PendingReading

    script = simulate_game(4, seed=3)
    controller = app.controller
    controller.new_game([p.name for p in script.state.players], script.log.options,
                        script.log.box)  # fmt: skip
    bridge = ReadingBridge(controller, "test camera")
    for event in script.events:
        if isinstance(event, SetupDrop | Drop):
            # The camera's reading arrives first, as with real hardware; one tap confirms.
            bridge.post_reading(PendingReading(event.counts, "camera", True, 1.0))
            harness.frames(1)
        enter(app, event)
    state = controller.state
    assert state is not None and state.finished
    assert controller.game.events == script.events
    assert scores(state) == scores(script.state)
    saved = controller.saved.path.read_text(encoding="utf-8")
    assert saved == controller.game.to_json()
