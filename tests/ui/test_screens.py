"""Real touches on the real (offscreen) window, checked against the engine's state."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from companion.core.cubes import Counts
from companion.core.events import LoadCannons, PirateRevealed, SetupDrop
from companion.core.game import Game
from companion.core.state import Stage
from companion.ui import harness
from companion.ui.autoplay import enter
from companion.ui.controller import Controller, PendingReading
from companion.ui.saved_game import SavedGame


def _start_two_player_game(app: Any) -> None:
    screen = app.screen("new_game")
    harness.tap(screen.ids.count_2)
    harness.tap(screen.ids.start)
    state = app.controller.state
    assert state is not None and [p.name for p in state.players] == ["Ada", "Bruno"]


def test_new_game_by_touch_saves_the_log(app: Any) -> None:
    _start_two_player_game(app)
    assert app.root.manager.current == "round_end"
    saved = Game.from_json(app.controller.saved.path.read_text(encoding="utf-8"))
    assert len(saved.state.players) == 2


def test_pirate_and_setup_drop_by_plus_and_minus(app: Any) -> None:
    _start_two_player_game(app)
    pirates = app.screen("round_end")
    for _ in range(3):
        harness.tap(pirates.ids.plus)
    harness.tap(pirates.ids.confirm)
    state = app.controller.state
    assert state.pirates == (3,) and state.stage is Stage.SETUP_DROP
    assert app.root.manager.current == "phase"
    counts = Counts.of({"blue": 2, "red": 1})
    enter(app, SetupDrop(counts=counts))
    state = app.controller.state
    assert state.storage[0] == 2 and state.tower[0] == 5 and state.tower[2] == 6


def test_reading_from_another_thread_is_confirmed_with_one_tap(app: Any) -> None:
    from companion.ui.bridge import ReadingBridge

    _start_two_player_game(app)
    enter(app, PirateRevealed(value=2))
    bridge = ReadingBridge(app.controller, "test thread")
    counts = Counts.of({"black": 4, "white": 3})
    reading = PendingReading(counts=counts, source="camera", confident=True, confidence=0.9)
    worker = threading.Thread(target=bridge.post_reading, args=(reading,))
    worker.start()
    worker.join()
    # The reading waits for the UI thread's clock.
    assert app.screen("phase").drop_panel.counts() != counts
    assert harness.wait_until(lambda: bridge.received == 1)
    harness.frames(2)
    assert app.screen("phase").drop_panel.counts() == counts
    harness.tap(app.screen("phase").drop_panel.ids.confirm)
    assert app.controller.game.events[-1] == SetupDrop(counts=counts)


def _to_first_turn(app: Any) -> None:
    _start_two_player_game(app)
    enter(app, PirateRevealed(value=2))
    enter(app, SetupDrop(counts=Counts.of({"blue": 3, "black": 3, "red": 2})))
    # Blue phase: the three blue cubes go in; what lands decides the actions.
    from companion.core.events import Drop

    enter(app, Drop(counts=Counts.of({"blue": 2, "black": 1})))
    assert app.controller.state.stage is Stage.TURNS


def test_illegal_turn_is_explained_before_it_is_confirmed(app: Any) -> None:
    _to_first_turn(app)
    phase = app.screen("phase")
    black = [b for b in phase.turn_panel.ids.actions.children if b.payload.kind == "black"]
    harness.tap(black[0])
    harness.frames(3)
    turn = app.screen("turn")
    form = turn.main_form
    # The stepper starts at "as far as possible"; 3 cannons is more than the 2 AP allow:
    # the engine refuses and the screen says why.
    for _ in range(4):
        harness.tap(form.row("steps").control("plus"))
    assert form.row("steps").value == 3
    assert turn.ids.confirm.disabled
    assert "Not allowed" in turn.ids.verdict.text
    harness.tap(form.row("steps").control("minus"))
    assert not turn.ids.confirm.disabled
    harness.tap(turn.ids.confirm)
    player = app.controller.game.events[-1]
    assert isinstance(player, LoadCannons) and player.steps == 2
    assert app.controller.state.players[player.player].cannons == 2


def test_undo_is_one_tap_and_stops_at_the_drop(app: Any) -> None:
    _to_first_turn(app)
    harness.tap(app.screen("phase").turn_panel.ids.pass_turn)
    events = len(app.controller.game.events)
    header = app.root.ids.header.ids
    harness.tap(header.undo)
    assert len(app.controller.game.events) == events - 1
    assert header.undo.disabled  # the drop before it cannot be undone


def test_resume_after_restart_from_the_saved_log(app: Any, tmp_path: Path) -> None:
    _to_first_turn(app)
    fresh = Controller(SavedGame(tmp_path))
    assert fresh.resume()
    assert fresh.game is not None
    assert fresh.game.events == app.controller.game.events


def test_unreadable_saved_game_is_kept_not_lost(tmp_path: Path) -> None:
    saved = SavedGame(tmp_path)
    saved.save('{"not": "a game log"}')
    controller = Controller(saved)
    assert not controller.resume()
    kept = list(tmp_path.glob("unreadable-*"))
    assert any(p.suffix == ".json" for p in kept)
    assert "kept" in controller.message


def test_a_new_game_archives_the_previous_log(app: Any) -> None:
    _start_two_player_game(app)
    first = app.controller.saved.path.read_text(encoding="utf-8")
    app.show("new_game")
    harness.tap(app.screen("new_game").ids.start)
    archived = list((app.controller.saved.directory / "games").glob("game-*.json"))
    assert [p.read_text(encoding="utf-8") for p in archived] == [first]


def test_archiving_twice_in_one_second_keeps_both(tmp_path: Path) -> None:
    saved = SavedGame(tmp_path)
    saved.save("first")
    one = saved.finish()
    saved.save("second")
    two = saved.finish()
    assert one is not None and two is not None and one != two
    assert one.read_text(encoding="utf-8") == "first"
    assert two.read_text(encoding="utf-8") == "second"


def test_language_switch_applies_at_once_and_is_remembered(app: Any) -> None:
    from companion.ui import i18n
    from companion.ui.saved_game import load_language

    _start_two_player_game(app)
    app.show("devices")
    harness.tap(app.screen("devices").ids.language)
    try:
        assert load_language(app.controller.saved.directory) == "de"
        # The screens were made again: their fixed texts and the header are German now.
        assert app.root.manager.current == "devices"
        assert app.screen("devices").ids.language.text == "English"
        assert app.root.ids.header.ids.undo.text == i18n.tr("Undo") != "Undo"
        assert app.screen("phase").ids.fix_reading.text != "Fix reading"
        assert app.controller.state is not None  # the game is untouched
    finally:
        harness.tap(app.screen("devices").ids.language)
    assert load_language(app.controller.saved.directory) == "en"
    assert app.root.ids.header.ids.undo.text == "Undo"


HEAP = "a cube may be hidden in a heap"


def test_a_second_look_replaces_the_reading_waiting_to_be_confirmed(app: Any) -> None:
    _start_two_player_game(app)
    enter(app, PirateRevealed(value=2))
    phase = app.screen("phase")
    unsure = PendingReading(
        counts=Counts.of({"blue": 4, "red": 2}),
        source="manual",
        confident=False,
        confidence=0.5,
        reasons=(f"camera unsure: {HEAP}",),
    )
    app.controller.offer_reading(unsure)
    harness.frames(2)
    # A cube may lie hidden: the note says how to let the camera see it.
    assert phase.ids.reading_note.text.startswith("Spread the cubes apart")
    spread = Counts.of({"blue": 5, "red": 2})
    looked = PendingReading(
        counts=spread,
        source="manual",
        confident=False,
        confidence=0.5,
        reasons=(
            "the cubes were moved by hand and the camera looked again",
            f"camera unsure: {HEAP}",
        ),
        kind="second look",
    )
    app.controller.offer_reading(looked)
    harness.frames(2)
    assert phase.drop_panel.counts() == spread
    assert "Spread the cubes" not in phase.ids.reading_note.text
    harness.tap(phase.drop_panel.ids.confirm)
    assert app.controller.game.events[-1] == SetupDrop(counts=spread)


def test_a_second_look_during_the_turns_is_offered_as_a_correction(app: Any) -> None:
    from companion.core.events import Correction

    _to_first_turn(app)
    phase = app.screen("phase")
    recorded = Counts.of({"blue": 2, "black": 1})

    def look(counts: Counts) -> None:
        app.controller.offer_reading(
            PendingReading(counts, "camera", True, 1.0, kind="second look")
        )
        harness.frames(2)

    events = len(app.controller.game.events)
    look(recorded)  # the same counts as recorded: nothing to offer
    assert app.controller.pending is None and phase.drop_panel.mode == "drop"
    more = Counts.of({"blue": 3, "black": 1})
    look(more)
    assert phase.drop_panel.mode == "correct" and phase.drop_panel.counts() == more
    assert phase.drop_panel in phase.ids.body.children
    harness.tap(phase.drop_panel.ids.confirm)
    assert app.controller.game.events[-1] == Correction(counts=more)
    assert len(app.controller.game.events) == events + 1
    # Turned down: the counts set back to those recorded keep them, and nothing is logged.
    look(Counts.of({"blue": 3, "black": 2}))
    assert phase.drop_panel.mode == "correct"
    phase.drop_panel.preset(more)
    harness.tap(phase.drop_panel.ids.confirm)
    harness.frames(2)
    assert len(app.controller.game.events) == events + 1
    assert app.controller.pending is None and phase.drop_panel.mode == "drop"
    assert phase.turn_panel in phase.ids.body.children


def test_a_counter_shows_its_value_after_the_layout_changes(app: Any) -> None:
    from companion.ui.widgets.common import Counter

    counter = Counter(colour="red")
    counter.value = 3
    chip = counter.children[-1]
    counter.size = (240, 300)
    chip.size = (200, 90)  # a repaint, as when the screen's layout moves the chip
    assert chip.text == "3"
    counter.colour = "green"
    assert chip.text == "3"
    # A chip with no text of its own shows its colour's code, and follows the colour.
    from companion.ui.widgets.colour_chip import ColourChip

    plain = ColourChip(colour="blue")
    plain.colour = "white"
    assert plain.text == "Wh"
