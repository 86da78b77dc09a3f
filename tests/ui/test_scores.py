"""Scores at the end: final scoring revealed step by step, then the engine's winner."""

from __future__ import annotations

from typing import Any

from companion.core.game import Game
from companion.core.simulate import simulate_game
from companion.core.state import Category
from companion.core.views import winners
from companion.ui import harness


def _finished(app: Any, seed: int) -> Game:
    script = simulate_game(3, seed=seed)
    controller = app.controller
    controller.new_game([p.name for p in script.state.players], script.log.options,
                        script.log.box)  # fmt: skip
    for event in script.events:
        assert controller.apply(event), controller.message
    harness.frames(2)
    return script


def _cells(screen: Any) -> list[str]:
    return [cell.text for cell in reversed(screen.ids.table.children)]


def test_final_scoring_step_by_step_then_the_winner(app: Any) -> None:
    script = _finished(app, seed=5)
    assert app.root.manager.current == "scores"
    screen = app.screen("scores")
    app.show("scores")
    harness.frames(2)
    from companion.ui.screens.scores import category_name

    final_gold = category_name(Category.FINAL_GOLD)
    final_special = category_name(Category.FINAL_SPECIAL_TRACK)
    assert final_gold not in _cells(screen)
    shown_special_at = None
    for step in range(1, 5):
        harness.tap(screen.ids.next_step)
        if final_special in _cells(screen) and shown_special_at is None:
            shown_special_at = step
    assert final_gold in _cells(screen)
    assert shown_special_at in (4, None)  # the special track comes last (or scores nothing)
    assert screen.ids.next_step.disabled
    best = script.state.players[winners(script.state)[0]]
    assert best.name in screen.ids.winner.text
    assert str(best.vp) in screen.ids.winner.text
    # The totals row shows every player's final VP.
    cells = _cells(screen)
    total_row = cells[-len(script.state.players) :]
    assert total_row == [str(p.vp) for p in script.state.players]
