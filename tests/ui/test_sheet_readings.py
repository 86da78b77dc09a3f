"""Brown and white turns with the real box (track layouts unknown): the sheet readings are
tapped in on the turn screen, and a reading the engine refuses is explained before confirming."""

from __future__ import annotations

from typing import Any

from companion.core.box import REAL_BOX, TEST_BOX
from companion.core.events import AdvanceOrder, Progress
from companion.core.simulate import simulate_game
from companion.ui import harness
from companion.ui.autoplay import enter


def _open_turn(app: Any, colour: str) -> Any:
    phase = app.screen("phase")
    buttons = [b for b in phase.turn_panel.ids.actions.children if b.payload.kind == colour]
    harness.tap(buttons[0])
    harness.frames(3)
    return app.screen("turn")


def test_real_box_brown_and_white_turns_carry_the_sheet_readings(app: Any) -> None:
    script = simulate_game(2, seed=5, box=REAL_BOX)
    controller = app.controller
    controller.new_game([p.name for p in script.state.players], script.log.options, REAL_BOX)
    seen: set[type] = set()
    refused_once = False
    for event in script.events:
        if isinstance(event, Progress) and event.vp_spaces and not refused_once:
            turn = _open_turn(app, "brown")
            form = turn.main_form
            assert {"vp_spaces", "highest_vp", "at_end"} <= {r.name for r in form.children}
            # More VP spaces than the AP can move: the engine's refusal shows before Confirm.
            for _ in range(12):
                harness.tap(form.row("vp_spaces").control("plus"), settle_frames=0)
            harness.tap(form.row("highest_vp").control("plus"))
            assert turn.ids.confirm.disabled
            assert "Not allowed" in turn.ids.verdict.text
            turn.back()
            refused_once = True
        enter(app, event)
        if isinstance(event, Progress | AdvanceOrder) and event.steps != 0:
            seen.add(type(event))
        if seen == {Progress, AdvanceOrder} and refused_once:
            break
    assert seen == {Progress, AdvanceOrder} and refused_once
    recorded = controller.game.events
    assert recorded == script.events[: len(recorded)]


def test_known_layout_asks_for_no_readings(app: Any) -> None:
    script = simulate_game(2, seed=5, box=TEST_BOX)
    controller = app.controller
    controller.new_game([p.name for p in script.state.players], script.log.options, TEST_BOX)
    for event in script.events:
        if isinstance(event, Progress):
            turn = _open_turn(app, "brown")
            names = {r.name for r in turn.main_form.children}
            assert not names & {"vp_spaces", "highest_vp", "at_end"}
            turn.back()
            return
        enter(app, event)
    raise AssertionError("the simulated game had no brown turn")
