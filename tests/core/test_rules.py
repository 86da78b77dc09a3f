"""Refusals, corrections, undo, box data, options and the log format."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from core_helpers import NAMES4, at_blue_phase, with_players, with_tray

from companion.core.box import REAL_BOX, TEST_BOX, BoxData
from companion.core.components import ProgressKind, TileKind
from companion.core.cubes import Counts
from companion.core.errors import (
    InconsistentReadingError,
    LogError,
    MissingBoxDataError,
    RuleError,
    UndoError,
)
from companion.core.events import (
    AdvanceOrder,
    Build,
    BuiltTile,
    CashChest,
    Correction,
    Drop,
    LoadCannons,
    MoveShips,
    Pass,
    PirateRevealed,
    Plan,
    PostPlacement,
    Progress,
    SetupDrop,
    StrayCubes,
    TakeGold,
    TakeVictoryPoints,
    TokenTaken,
    UseGoldToken,
)
from companion.core.game import Game
from companion.core.log import parse_log
from companion.core.odds import drop_odds
from companion.core.options import RuleOptions, TieBreak
from companion.core.rules import apply
from companion.core.state import GameState, OwnedToken, Stage
from companion.core.views import available_choices, player_order, still_to_act, winners


def test_rule_errors_are_value_errors_that_name_the_rule() -> None:
    game = with_tray({"blue": 4})
    with pytest.raises(RuleError) as caught:
        game.apply(LoadCannons(player=1))
    assert isinstance(caught.value, ValueError)
    assert caught.value.rule == "3.2 player order" and "red's turn" in str(caught.value)
    with pytest.raises(RuleError, match="no black cube"):
        game.apply(LoadCannons(player=0))


def test_nothing_is_half_applied() -> None:
    game = with_tray({"blue": 4})
    before = game.state
    # The first post is fine, the second (ship 1 did not move) is not: nothing may stick.
    bad = MoveShips(
        player=0,
        steps=(2, 0),
        posts=(
            PostPlacement(ship=0, island=1, big=False),
            PostPlacement(ship=1, island=2, big=False),
        ),
    )
    with pytest.raises(RuleError, match="A7"):
        game.apply(bad)
    assert game.state is before and game.state.islands == () and len(game.events) == 2 + 1


def test_inconsistent_reading_is_refused() -> None:
    game = at_blue_phase()
    with pytest.raises(InconsistentReadingError, match="blue 8 > 7"):
        game.apply(Drop(counts=Counts.of({"blue": 8})))
    game.apply(Drop(counts=Counts.of({"blue": 7, "red": 7})))
    with pytest.raises(InconsistentReadingError, match="red 1 > 0"):
        game.apply(StrayCubes(counts=Counts.of({"red": 1})))


def test_undo_stops_at_a_drop_and_a_correction_fixes_the_reading() -> None:
    game = with_tray({"blue": 4, "black": 1})
    with pytest.raises(UndoError, match="correction"):
        game.undo()
    game.apply(TakeGold(player=0))
    assert game.undo() == TakeGold(player=0) and game.state.players[0].gold == 0
    assert game.apply(LoadCannons(player=0)).players[0].cannons == 4
    state = game.apply(Correction(counts=Counts.of({"blue": 2, "black": 3})))
    assert state.phase_ap == 3 and state.reading_corrected_after_action
    assert state.notes and "1 player turn(s) had acted on it" in state.notes[0]
    # The turn recorded on the wrong reading is scored again with the corrected counts.
    assert state.players[0].cannons == 3
    assert state.tower[0] == 7 - 2 and state.tower[1] == 7 - 3
    assert game.apply(LoadCannons(player=1)).players[1].cannons == 3


def test_correction_to_empty_before_anyone_acted_skips_the_phase() -> None:
    game = with_tray({"blue": 1})
    state = game.apply(Correction(counts=Counts()))
    # Every later phase of round 1 has empty storage too, so the round ends.
    assert state.skipped[0] == (1, "blue") and state.round == 2
    assert state.stage is Stage.REVEAL_PIRATE


def test_correcting_the_setup_drop_before_the_first_drop() -> None:
    game = Game.new(("a", "b"), box=TEST_BOX)
    game.apply(PirateRevealed(value=0))
    game.apply(SetupDrop(counts=Counts.of({"black": 3})))
    assert game.state.colour.value == "black" and game.state.skipped == ((1, "blue"),)
    state = game.apply(Correction(counts=Counts.of({"blue": 2, "black": 3})))
    assert state.colour.value == "blue" and state.skipped == () and state.storage[0] == 2


def test_nothing_to_correct() -> None:
    game = Game.new(("a", "b"), box=TEST_BOX)
    with pytest.raises(RuleError, match="no tray reading to correct"):
        game.apply(Correction(counts=Counts()))


def test_stray_cubes_join_the_next_drop_even_with_empty_storage() -> None:
    game = with_tray({"blue": 1})
    game.apply(StrayCubes(counts=Counts.of({"red": 1})))
    assert game.state.stray[2] == 1
    game.apply(Pass(player=0))
    game.apply(Pass(player=1))
    game.apply(Pass(player=2))
    # Black's storage is empty, but the stray red cube is dropped anyway (A12).
    state = game.apply(Pass(player=3))
    assert state.colour.value == "black" and state.stage is Stage.DROP
    state = game.apply(Drop(counts=Counts.of({"red": 1})))
    assert state.stray == (0,) * 7 and state.action_space[2] == 1
    off = RuleOptions(drop_strays_with_empty_storage=False)
    game2 = Game.new(NAMES4, box=TEST_BOX, options=off)
    game2.apply(PirateRevealed(value=0))
    game2.apply(SetupDrop(counts=Counts.of({"blue": 7})))
    game2.apply(StrayCubes(counts=Counts.of({"red": 1})))
    game2.apply(Drop(counts=Counts()))
    assert game2.state.skipped[:2] == ((1, "blue"), (1, "black"))


def test_skipped_phase_when_storage_is_empty() -> None:
    state = at_blue_phase().state
    assert state.colour.value == "blue"
    game = Game.new(("a", "b"), box=TEST_BOX)
    game.apply(PirateRevealed(value=0))
    state = game.apply(SetupDrop(counts=Counts.of({"white": 1})))
    assert [c for _, c in state.skipped] == ["blue", "black", "red", "brown", "green", "yellow"]
    assert state.colour.value == "white" and state.stage is Stage.DROP


def test_missing_box_data_is_refused_only_where_needed() -> None:
    game = with_tray({"brown": 3, "white": 3, "green": 3, "blue": 3}, box=REAL_BOX)
    with pytest.raises(MissingBoxDataError, match="progress_track"):
        game.apply(Progress(player=0))
    with pytest.raises(MissingBoxDataError, match="special_track"):
        game.apply(AdvanceOrder(player=0))
    game.apply(
        MoveShips(player=0, steps=(1, 1), posts=(PostPlacement(ship=0, island=3, big=True),))
    )
    state = with_players(game.state, p1={"supply": (("village", 2), ("village", 3))})
    tile = BuiltTile(island=3, tile=TileKind.VILLAGE, size=2)
    state = with_players(state, p1={"supply": (("village", 2),)})
    state = replace(state, islands=(replace(state.islands[0], posts=(1, 1, 0, 0)),))
    with pytest.raises(MissingBoxDataError, match="printed VP"):
        apply(state, Build(player=1, tiles=(tile,)))
    # The event may carry the printed value instead.
    built = apply(state, Build(player=1, tiles=(tile.model_copy(update={"vp": 2}),)))
    assert built.players[1].vp == 2
    # Any pirate strength is accepted when the box's markers are unknown.
    assert Game.new(("a", "b"), box=REAL_BOX).apply(PirateRevealed(value=5)).pirates == (5,)


def test_pirate_values_checked_against_a_known_box() -> None:
    game = Game.new(("a", "b"), box=TEST_BOX)
    with pytest.raises(RuleError, match="strength 5"):
        game.apply(PirateRevealed(value=5))


def test_special_action_needs_white_cubes_and_an_advanced_disc() -> None:
    state = with_tray({"red": 3}).state
    state = with_players(state, p0={"track": 4})
    with pytest.raises(RuleError, match="A2"):
        apply(state, Plan(player=0, special=True, villages=(1,)))
    state = with_tray({"white": 3}).state
    with pytest.raises(RuleError, match="white start space"):
        apply(state, Plan(player=0, special=True, villages=(1,)))
    assert not [c for c in available_choices(state, 0) if c.kind == "special"]


def test_last_space_any_colour_option() -> None:
    state = with_tray({"white": 3}).state
    assert TEST_BOX.special_track is not None
    last = len(TEST_BOX.special_track) - 1
    state = with_players(state, p0={"track": last})
    assert apply(state, LoadCannons(player=0, special=True)).players[0].cannons == 3
    strict = replace(state, options=RuleOptions(last_space_any_colour=False))
    with pytest.raises(RuleError, match="green space"):
        apply(strict, LoadCannons(player=0, special=True))


def test_token_bonuses_and_green_red_swap() -> None:
    state = with_tray({"green": 2}).state
    tokens = (
        OwnedToken(ProgressKind.GREEN_RED),
        OwnedToken(ProgressKind.EXTRA_AP_ONE, ("red",)),  # type: ignore[arg-type]
    )
    state = with_players(state, p0={"tokens": tokens})
    choices = {c.kind: c.ap for c in available_choices(state, 0)}
    assert choices["red"] == 4 and choices["green"] == 2
    after = apply(state, Plan(player=0, villages=(1, 2, 3, 4)))
    assert len(after.players[0].supply) == 4


def test_once_only_tokens() -> None:
    state = with_tray({"blue": 1, "black": 1}).state
    state = with_players(
        state,
        p0={
            "tokens": (OwnedToken(ProgressKind.SHIPS_PLUS_8), OwnedToken(ProgressKind.VP_FOR_CUBES))
        },
    )
    moved = apply(state, MoveShips(player=0, steps=(9, 9), use_ships_token=True))
    assert moved.players[0].tokens[0].used
    again = replace(moved, turn_index=0, turn_order=(0, 1, 2, 3))
    with pytest.raises(RuleError, match="no unused ships"):
        apply(again, MoveShips(player=0, steps=(9, 0), use_ships_token=True))
    vp = apply(state, TakeVictoryPoints(player=0))
    assert vp.players[0].vp == 2 and vp.players[0].tokens[1].used


def test_gold_tokens_chests_and_post_gold() -> None:
    state = with_tray({"blue": 2}).state
    state = with_players(
        state,
        p0={
            "gold": 11,
            "chests": 1,
            "tokens": (OwnedToken(ProgressKind.GOLD_3), OwnedToken(ProgressKind.POST_GOLD)),
        },
    )
    state = apply(state, UseGoldToken(player=0, token=ProgressKind.GOLD_3))
    assert state.players[0].gold == 12 and state.players[0].vp == 2
    state = apply(state, CashChest(player=0))
    assert state.players[0].chests == 0 and state.players[0].vp == 5
    with pytest.raises(RuleError, match="no treasure chest"):
        apply(state, CashChest(player=0))
    state = apply(
        state,
        MoveShips(player=0, steps=(1, 1), posts=(PostPlacement(ship=0, island=1, big=False),)),
    )
    assert state.players[0].vp == 5 + 3 + 1  # discovery, then 1 post-gold over the cap


def test_wasted_gold_is_refused_and_track_end_compensation() -> None:
    state = with_players(with_tray({"black": 3}).state, p0={"cannons": 10, "gold": 2})
    with pytest.raises(RuleError, match="A10"):
        apply(state, LoadCannons(player=0, gold_spent=1))
    with pytest.raises(RuleError, match="cannon track"):
        apply(state, LoadCannons(player=0, steps=3))
    after = apply(state, LoadCannons(player=0))
    assert after.players[0].cannons == 12 and after.players[0].gold == 4


def test_order_jump_token() -> None:
    state = with_tray({"white": 1}).state
    state = with_players(
        state, p0={"track": 3, "stamp": 9}, p3={"tokens": (OwnedToken(ProgressKind.ORDER_JUMP),)}
    )
    state = replace(state, turn_order=(0, 3, 1, 2), turn_index=1)
    assert still_to_act(state) == (1, 2)
    after = apply(state, AdvanceOrder(player=3, use_order_token=True))
    assert after.players[3].track == 3 and player_order(after)[0] == 3
    assert after.players[3].tokens[0].used


def test_progress_tokens_come_from_the_display_halves() -> None:
    state = with_players(with_tray({"brown": 3}).state, p0={"progress": 2})
    token = TokenTaken(token=ProgressKind.EXTRA_AP_TWO, actions=("red",), half="left")  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="shows 2 action"):
        apply(state, Progress(player=0, tokens=(token,)))
    state = replace(state, progress_left=0)
    ok = TokenTaken(token=ProgressKind.END_7, half="left")
    with pytest.raises(RuleError, match="left half"):
        apply(state, Progress(player=0, tokens=(ok,)))


def test_tie_break_options() -> None:
    state = Game.new(("A", "B"), box=TEST_BOX).state
    same = (5,) + (0,) * 12
    state = with_players(
        state,
        p0={"track": 5, "stamp": 1, "vp_by": same},
        p1={"track": 5, "stamp": 2, "vp_by": same},
    )
    assert winners(state) == (1,)
    german = replace(state, options=RuleOptions(tie_break=TieBreak.TRACK_POSITION))
    assert set(winners(german)) == {0, 1}


def test_drop_odds_add_up() -> None:
    state = at_blue_phase().state
    odds = drop_odds(state)
    assert odds.colour == "blue" and odds.in_tower == (7, 7, 7, 7, 7, 7, 7)
    assert abs(sum(odds.ap) - 1) < 1e-9
    assert all(0 < p < 1 for p in odds.colour_appears)
    certain = drop_odds(state, p_out=1.0)
    assert certain.ap[7] == 1.0 and certain.expected[0] == 7


def test_players_and_options_recorded_in_the_log() -> None:
    options = RuleOptions(order_jump_once=False)
    game = Game.new(("a", "b", "c"), box=TEST_BOX, options=options)
    data = json.loads(game.to_json())
    assert data["options"]["order_jump_once"] is False and data["players"] == ["a", "b", "c"]
    assert data["box"]["test_box"] is True and data["version"] == 2
    with pytest.raises(RuleError, match="2 to 4"):
        Game.new(("solo",))


def test_log_errors_name_the_event_number() -> None:
    game = with_tray({"blue": 2})
    data = json.loads(game.to_json())
    data["events"].append({"kind": "drop", "counts": {"blue": -1}})
    with pytest.raises(LogError, match="event 4") as caught:
        parse_log(json.dumps(data))
    assert caught.value.event_number == 4
    data["events"][-1] = {"kind": "teleport"}
    with pytest.raises(LogError, match="event 4"):
        parse_log(json.dumps(data))
    data["events"][-1] = {"kind": "load_cannons", "player": 1}
    with pytest.raises(LogError, match=r"event 4: load_cannons: .*red's turn"):
        Game.from_json(json.dumps(data))
    with pytest.raises(LogError, match="header"):
        parse_log("{}")


def test_box_data_validation() -> None:
    with pytest.raises(ValueError, match="24"):
        BoxData(name="x", progress_tokens=TEST_BOX.progress_tokens[:3])  # type: ignore[index]
    with pytest.raises(ValueError, match="white"):
        BoxData(name="x", special_track=TEST_BOX.special_track[1:])  # type: ignore[index]
    assert BoxData.model_validate_json(TEST_BOX.model_dump_json()) == TEST_BOX


def _state_at(game: Game) -> GameState:
    return game.state


def test_whose_turn_follows_the_special_track() -> None:
    game = with_tray({"blue": 1})
    assert _state_at(game).turn_order == (0, 1, 2, 3)
    for player in (0, 1, 2, 3):
        game.apply(Pass(player=player))
    # Black to white have no cubes in storage: skipped, and round 2 begins.
    assert game.state.round == 2 and len(game.state.skipped) == 6
