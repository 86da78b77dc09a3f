"""Corrections of earlier tray readings: a re-fold of the log, refused when it would break it."""

from __future__ import annotations

import json

import pytest

from companion.core.box import TEST_BOX
from companion.core.corrections import latest_reading
from companion.core.cubes import Counts
from companion.core.errors import RuleError, UndoError
from companion.core.events import (
    Correction,
    Drop,
    MoveShips,
    Pass,
    PirateRevealed,
    SetupDrop,
    StrayCubes,
    TakeGold,
)
from companion.core.game import Game
from companion.core.log import parse_log, replay
from companion.core.rules import apply
from companion.core.state import Stage


def _two_phases() -> Game:
    """Events 1-6: pirate, set-up, blue drop (3 cubes), two gold turns, black drop (AP 2)."""
    game = Game.new(("a", "b"), box=TEST_BOX)
    game.apply(PirateRevealed(value=0))
    game.apply(SetupDrop(counts=Counts.of({"blue": 3, "black": 2})))
    game.apply(Drop(counts=Counts.of({"blue": 2, "black": 1})))
    game.apply(TakeGold(player=0))
    game.apply(TakeGold(player=1))
    game.apply(Drop(counts=Counts.of({"black": 2})))
    return game


def test_an_earlier_drop_is_corrected_and_later_turns_rescored() -> None:
    game = _two_phases()
    assert [p.gold for p in game.state.players] == [1, 2]
    state = game.apply(Correction(counts=Counts.of({"blue": 2, "black": 2}), drop=3))
    # Four cubes in the blue phase's tray: each gold turn gave 2, not 1.
    assert [p.gold for p in state.players] == [2, 3]
    assert state.stage is Stage.TURNS and state.colour.value == "black"
    assert state.tower == (5, 5, 7, 7, 7, 7, 7)
    assert (
        len(state.notes) == 1
        and "event 3" in state.notes[0]
        and "2 player turn(s)" in state.notes[0]
    )
    # The note is about an earlier phase: the current phase's reading was not corrected.
    assert not state.reading_corrected_after_action
    assert state.events_applied == 7
    assert replay(parse_log(game.to_json()))[-1] == state


def test_a_correction_that_breaks_a_later_event_is_refused_and_changes_nothing() -> None:
    game = Game.new(("a", "b"), box=TEST_BOX)
    game.apply(PirateRevealed(value=0))
    game.apply(SetupDrop(counts=Counts.of({"blue": 3})))
    game.apply(Drop(counts=Counts.of({"blue": 3})))
    game.apply(MoveShips(player=0, steps=(3, 0)))
    before, events = game.state, game.events
    with pytest.raises(RuleError, match=r"event 4 \(move_ships\) would break rule 5.1"):
        game.apply(Correction(counts=Counts.of({"blue": 1})))
    assert game.state is before and game.events == events
    # Taking the turn back first lets the correction through.
    game.undo()
    assert game.apply(Correction(counts=Counts.of({"blue": 1}))).phase_ap == 1


def test_a_skipped_phase_read_as_empty_is_then_played() -> None:
    game = Game.new(("a", "b"), box=TEST_BOX)
    game.apply(PirateRevealed(value=0))
    game.apply(SetupDrop(counts=Counts.of({"blue": 2})))
    skipped = game.apply(Drop(counts=Counts()))
    assert skipped.skipped[0] == (1, "blue") and skipped.stage is Stage.REVEAL_PIRATE
    played = game.apply(Correction(counts=Counts.of({"blue": 1})))
    assert played.stage is Stage.TURNS and played.round == 1 and played.colour.value == "blue"
    assert played.skipped == () and played.phase_ap == 1
    # Once the next round began, the skipped drop can no longer become a played phase.
    game.undo()
    game.apply(PirateRevealed(value=2))
    with pytest.raises(RuleError, match=r"event 4 \(pirate_revealed\) would no longer come"):
        game.apply(Correction(counts=Counts.of({"blue": 1}), drop=3))


def test_correcting_the_setup_drop_after_phases_were_played() -> None:
    game = _two_phases()
    state = game.apply(Correction(counts=Counts.of({"blue": 3, "black": 2, "red": 1}), drop=2))
    assert state.storage[2] == 1 and state.colour.value == "black"
    assert "event 2 (setup_drop" in state.notes[0] and "acted on it" not in state.notes[0]
    assert "2 player turn(s) recorded after it" in state.notes[0]
    # Moving cubes so that a played phase becomes skipped breaks the log's order.
    with pytest.raises(RuleError, match="would"):
        game.apply(Correction(counts=Counts.of({"black": 2}), drop=2))


def test_undo_of_a_correction_is_exact_and_undo_still_stops_at_drops() -> None:
    game = _two_phases()
    before = game.state
    correction = Correction(counts=Counts.of({"black": 3}))
    game.apply(correction)
    assert game.can_undo and game.undo() == correction
    assert game.state is before
    with pytest.raises(UndoError):
        game.undo()


def test_stray_cubes_are_corrected_by_number() -> None:
    game = _two_phases()
    game.apply(StrayCubes(counts=Counts.of({"red": 1})))
    game.apply(Pass(player=0))
    state = game.apply(Correction(counts=Counts.of({"red": 2}), drop=7))
    assert state.stray[2] == 2 and state.tower[2] == 5
    with pytest.raises(RuleError, match=r"event 7 \(stray_cubes\).*at least one cube"):
        game.apply(Correction(counts=Counts(), drop=7))


@pytest.mark.parametrize(
    ("drop", "message"),
    [(1, "pirate_revealed, not a tray reading"), (99, "no event 99"), (6, "already has these")],
)
def test_corrections_that_name_no_reading_are_refused(drop: int, message: str) -> None:
    game = _two_phases()
    with pytest.raises(RuleError, match=message):
        game.apply(Correction(counts=Counts.of({"black": 2}), drop=drop))


def test_corrections_of_corrected_readings_and_rules_apply_refuses_them() -> None:
    game = _two_phases()
    game.apply(Correction(counts=Counts.of({"black": 3})))
    game.apply(Correction(counts=Counts.of({"blue": 2, "black": 2}), drop=3))
    state = game.apply(Correction(counts=Counts.of({"black": 1}), drop=6))
    assert state.phase_ap == 1 and [p.gold for p in state.players] == [2, 3]
    assert game.apply(Correction(counts=Counts.of({"blue": 3}), drop=3)).phase_ap == 1
    assert replay(parse_log(game.to_json())) == list(game.states)
    with pytest.raises(RuleError, match="needs the log"):
        apply(game.state, Correction(counts=Counts()))


def test_the_latest_reading_is_the_one_a_correction_replaces_with_its_counts_in_effect() -> None:
    game = Game.new(("a", "b"), box=TEST_BOX)
    assert latest_reading(game.events) is None
    game = _two_phases()
    assert latest_reading(game.events) == (5, Counts.of({"black": 2}))
    game.apply(Correction(counts=Counts.of({"black": 3})))
    game.apply(Correction(counts=Counts.of({"blue": 1, "black": 2}), drop=3))
    assert latest_reading(game.events) == (5, Counts.of({"black": 3}))
    game.apply(StrayCubes(counts=Counts.of({"red": 1})))
    assert latest_reading(game.events) == (8, Counts.of({"red": 1}))


def test_a_version_1_log_is_upgraded_on_read() -> None:
    game = _two_phases()
    game.apply(Correction(counts=Counts.of({"black": 3})))
    data = json.loads(game.to_json())
    data["version"] = 1
    del data["events"][-1]["drop"]
    log = parse_log(json.dumps(data))
    assert log.version == 2 and log.events[-1] == Correction(counts=Counts.of({"black": 3}), drop=6)
    assert Game(log).state == game.state
