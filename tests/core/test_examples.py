"""The worked examples E1-E33 of rules/amerigo.md section 13, one test each (test box data)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from core_helpers import NAMES4, with_players, with_tray

from companion.core.box import TEST_BOX
from companion.core.components import (
    ProgressKind,
    TileKind,
    completion_factor,
    production_display_size,
    time_marker,
)
from companion.core.cubes import Colour, Counts
from companion.core.draft import Draft
from companion.core.errors import RuleError
from companion.core.events import (
    AdvanceOrder,
    Build,
    BuiltTile,
    BuyProduction,
    LoadCannons,
    MoveShips,
    PirateRevealed,
    Plan,
    PostPlacement,
    ProductionBought,
    Progress,
    SetupDrop,
    TakeGold,
    TokenTaken,
)
from companion.core.flow import end_round, final_scoring, pirates_attack
from companion.core.game import Game
from companion.core.rules import apply
from companion.core.simulate import simulate_game
from companion.core.state import Category, GameState, Island, OwnedToken, Stage
from companion.core.views import available_choices, player_order, ranking, tower_contents


def _vp(state: GameState, player: int, category: Category) -> int:
    return state.players[player].vp_by[list(Category).index(category)]


def test_e1_starting_gold_by_order() -> None:
    game = Game.new(NAMES4, box=TEST_BOX)
    assert [p.gold for p in game.state.players] == [0, 1, 2, 3]
    assert player_order(game.state) == (0, 1, 2, 3)


def test_e2_setup_drop_fills_storage_and_leaves_the_rest_in_the_tower() -> None:
    game = Game.new(NAMES4, box=TEST_BOX)
    game.apply(PirateRevealed(value=2))
    out = Counts.of(
        {"red": 5, "yellow": 5, "blue": 4, "black": 4, "green": 4, "brown": 3, "white": 3}
    )
    state = game.apply(SetupDrop(counts=out))
    assert state.storage == out.as_tuple()
    assert tower_contents(state) == Counts.of(
        {"red": 2, "yellow": 2, "blue": 3, "black": 3, "green": 3, "brown": 4, "white": 4}
    )
    assert sum(state.storage) == 28 and sum(state.tower) == 21
    assert state.stage is Stage.DROP and state.colour is Colour.BLUE


def test_e3_available_actions_ap_and_gold_alternative() -> None:
    game = with_tray({"blue": 4, "black": 1, "red": 1, "green": 2})
    state = game.state
    kinds = {c.kind for c in available_choices(state, 0)}
    assert kinds == {"blue", "black", "red", "green", "gold"}
    assert state.phase_ap == 4
    gold = next(c for c in available_choices(state, 0) if c.kind == "gold")
    assert gold.amount == 3
    with_token = with_players(state, p0={"tokens": (OwnedToken(ProgressKind.GOLD_2_1),)})
    assert next(c for c in available_choices(with_token, 0) if c.kind == "gold").amount == 4
    assert apply(with_token, TakeGold(player=0)).players[0].gold == 4


@pytest.mark.parametrize(
    ("tray", "available", "ap"),
    [
        ({"yellow": 5, "green": 1}, {"yellow", "green"}, 5),  # E4
        ({"red": 4, "blue": 2, "black": 2}, {"red", "blue", "black"}, 4),  # E5
    ],
)
def test_e4_e5_available_and_ap(tray: dict[str, int], available: set[str], ap: int) -> None:
    state = with_tray(tray).state
    assert {c.kind for c in available_choices(state, 0)} - {"gold"} == available
    assert state.phase_ap == ap


def test_e6_gold_alternative_caps_at_12_and_overflows_to_vp() -> None:
    state = with_tray({"blue": 4, "black": 3, "red": 3}).state
    state = with_players(state, p0={"gold": 9})
    after = apply(state, TakeGold(player=0))
    assert after.players[0].gold == 12
    assert _vp(after, 0, Category.GOLD_OVERFLOW) == 1 and after.players[0].vp == 1


def test_e7_first_blue_action_discovers_an_island() -> None:
    game = with_tray({"blue": 4})
    state = game.apply(
        MoveShips(player=0, steps=(3, 4), posts=(PostPlacement(ship=0, island=1, big=False),))
    )
    red = state.players[0]
    assert red.ships_placed and red.posts_placed == 1
    assert _vp(state, 0, Category.DISCOVERY) == 3
    assert state.island(1) == Island(1, False, (1, 0, 0, 0))
    with pytest.raises(RuleError, match="at most 4 spaces"):
        apply(state, MoveShips(player=1, steps=(5, 0)))


def test_e8_second_post_on_a_discovered_island_scores_nothing() -> None:
    game = with_tray({"blue": 5})
    game.apply(
        MoveShips(player=0, steps=(3, 0), posts=(PostPlacement(ship=0, island=1, big=True),))
    )
    state = game.apply(MoveShips(player=1, steps=(5, 5), posts=(PostPlacement(ship=1, island=1),)))
    assert state.players[1].vp == 0
    assert state.island(1) == Island(1, True, (1, 1, 0, 0))


def test_e9_load_cannons() -> None:
    state = with_tray({"black": 4}).state
    assert apply(state, LoadCannons(player=0)).players[0].cannons == 4


def test_e10_cannons_cap_at_12_with_two_gold() -> None:
    state = with_players(with_tray({"black": 5}).state, p0={"cannons": 10})
    after = apply(state, LoadCannons(player=0))
    assert after.players[0].cannons == 12 and after.players[0].gold == 2
    # Landing exactly on the end with no AP left earns nothing.
    exact = with_players(state, p0={"cannons": 7})
    assert apply(exact, LoadCannons(player=0)).players[0].gold == 0


def test_e11_plan_costs_then_build_on_a_big_island_scores_10() -> None:
    state = with_tray({"red": 4, "green": 4}).state
    state = replace(state, islands=(Island(1, True, (1, 0, 0, 0)),))
    planned = apply(state, Plan(player=0, neutrals=(2,), villages=(4, 3)))
    assert sorted(planned.players[0].supply) == [("neutral", 2), ("village", 3), ("village", 4)]
    with pytest.raises(RuleError, match="5 AP"):
        apply(state, Plan(player=0, neutrals=(2,), villages=(4, 3, 1)))
    with pytest.raises(RuleError, match="only 1 neutral"):
        apply(state, Plan(player=0, neutrals=(2, 1)))
    # Next round's green phase, as far as the engine is concerned: same player, same tray.
    again = replace(planned, turn_index=0)
    tiles = tuple(
        BuiltTile(island=1, tile=kind, size=size)
        for kind, size in ((TileKind.NEUTRAL, 2), (TileKind.VILLAGE, 4), (TileKind.VILLAGE, 3))
    )
    built = apply(again, Build(player=0, tiles=tiles))
    assert _vp(built, 0, Category.TILES) == 10
    assert built.players[0].supply == ()
    with pytest.raises(RuleError, match="needs 4 AP but only 3"):
        apply(replace(again, action_space=(0, 0, 0, 0, 3, 0, 0)), Build(player=0, tiles=tiles))


def test_e12_progress_passing_one_vp_space_takes_exactly_one_token() -> None:
    state = with_tray({"brown": 5}).state
    token = TokenTaken(token=ProgressKind.END_7)
    after = apply(state, Progress(player=0, tokens=(token,)))
    assert after.players[0].progress == 5 and len(after.players[0].tokens) == 1
    assert after.progress_right == 3
    for wrong in ((), (token, token)):
        with pytest.raises(RuleError, match="take exactly 1"):
            apply(state, Progress(player=0, tokens=wrong))


def test_e13_gold_adds_ap_on_the_progress_track() -> None:
    state = with_players(with_tray({"brown": 2}).state, p0={"progress": 4, "gold": 1})
    token = TokenTaken(token=ProgressKind.END_7, half="left")
    after = apply(state, Progress(player=0, gold_spent=1, tokens=(token,)))
    assert after.players[0].progress == 7 and after.players[0].gold == 0
    assert after.progress_left == 3


def test_e14_buy_two_cotton_production_tokens_for_5_ap() -> None:
    state = with_tray({"yellow": 5}).state
    buy = (ProductionBought(good="cotton", cost=2), ProductionBought(good="cotton", cost=3))
    after = apply(state, BuyProduction(player=0, tokens=buy))
    assert after.players[0].production == (2, 0, 0, 0, 0)
    assert after.production_display == 10 - 2
    too_dear = (ProductionBought(good="cotton", cost=3), ProductionBought(good="sugar", cost=3))
    with pytest.raises(RuleError, match="needs 6 AP"):
        apply(state, BuyProduction(player=0, tokens=too_dear))


def test_e15_advancing_onto_a_disc_goes_on_top_and_leads_next_phase() -> None:
    state = with_tray({"white": 5}).state
    # Blue (player 2) sits on space 4, a red space of the test box's track.
    assert TEST_BOX.special_track is not None and TEST_BOX.special_track[4].colour is Colour.RED
    state = with_players(state, p2={"track": 4, "stamp": 10})
    state = replace(state, turn_order=(2, 0, 1, 3), turn_index=3)
    after = apply(state, AdvanceOrder(player=3, steps=4))
    assert after.players[3].track == 4 and after.players[3].gold == 3  # no gold: not at the end
    assert player_order(after)[:2] == (3, 2)


def test_e16_white_special_action_plans_with_5_ap() -> None:
    state = with_players(with_tray({"white": 5}).state, p0={"track": 4})
    after = apply(state, Plan(player=0, special=True, villages=(1, 2, 3, 4, 1)))
    assert len(after.players[0].supply) == 5
    with pytest.raises(RuleError, match="needs 6 AP"):
        apply(state, Plan(player=0, special=True, villages=(1, 2, 3, 4, 1, 2)))
    with pytest.raises(RuleError, match="red space"):
        apply(state, LoadCannons(player=0, special=True))


def test_e17_completing_a_big_island_in_round_2() -> None:
    state = with_tray({"green": 4}).state
    state = replace(state, round=2, islands=(Island(1, True, (2, 0, 1, 0)),))
    state = with_players(state, p0={"supply": (("village", 2),)})
    tile = BuiltTile(island=1, tile=TileKind.VILLAGE, size=2, completes=True)
    after = apply(state, Build(player=0, tiles=(tile,)))
    assert after.players[0].vp == 17 and after.players[0].chests == 1
    assert after.players[2].vp == 4
    assert after.island(1) is not None and after.island(1).completed  # type: ignore[union-attr]
    assert after.chests_left == 4


def _pirates(state: GameState, strength: int) -> GameState:
    draft = Draft(replace(state, pirates=(strength,)))
    pirates_attack(draft)
    return draft.view()


def test_e18_pirates_take_cannons_or_full_strength_vp() -> None:
    state = Game.new(("blue", "yellow"), box=TEST_BOX).state
    state = with_players(state, p0={"cannons": 4, "vp_by": (10,) + (0,) * 12}, p1={"cannons": 8})
    after = _pirates(state, 6)
    assert after.players[0].cannons == 0 and after.players[0].vp == 4
    assert after.players[1].cannons == 2 and after.players[1].vp == 0


def test_e19_half_loss_token_rounds_up() -> None:
    state = Game.new(("a", "b"), box=TEST_BOX).state
    state = with_players(
        state,
        p0={
            "cannons": 3,
            "vp_by": (10,) + (0,) * 12,
            "tokens": (OwnedToken(ProgressKind.HALF_LOSS),),
        },
        p1={"cannons": 12},
    )
    after = _pirates(state, 7)
    assert after.players[0].cannons == 0 and after.players[0].vp == 6


def test_e20_vp_never_below_zero() -> None:
    state = Game.new(("a", "b"), box=TEST_BOX).state
    state = with_players(state, p0={"vp_by": (2,) + (0,) * 12}, p1={"cannons": 12})
    after = _pirates(state, 5)
    assert after.players[0].vp == 0
    assert after.players[0].vp_by[list(Category).index(Category.PIRATES)] == -2


def test_e21_another_players_plus_2_token_strengthens_the_pirates() -> None:
    state = Game.new(("a", "b"), box=TEST_BOX).state
    state = with_players(
        state,
        p0={"cannons": 5, "vp_by": (10,) + (0,) * 12},
        p1={"cannons": 4, "tokens": (OwnedToken(ProgressKind.PIRATES_PLUS_2),)},
    )
    after = _pirates(state, 4)
    assert after.players[0].cannons == 0 and after.players[0].vp == 4
    assert after.players[1].cannons == 0  # the owner faces the plain strength 4


def test_e22_defence_bounty_at_strength_zero() -> None:
    state = Game.new(("a", "b"), box=TEST_BOX).state
    state = with_players(
        state, p0={"cannons": 3, "tokens": (OwnedToken(ProgressKind.DEFENCE_BOUNTY),)}
    )
    after = _pirates(state, 0)
    assert after.players[0].gold == 2 and after.players[0].cannons == 3


def _final_example_state() -> GameState:
    state = Game.new(("red", "other"), box=TEST_BOX).state
    tokens = (
        OwnedToken(ProgressKind.GOLD_5),
        OwnedToken(ProgressKind.END_7),
        OwnedToken(ProgressKind.END_GOLD),
    )
    return with_players(
        state,
        p0={
            "gold": 10,
            "chests": 1,
            "tokens": tokens,
            "commodities": (3, 1, 0, 2, 2),
            "production": (3, 0, 1, 0, 1),
            "progress": 12,  # the 10-VP space of the test box's progress track
            "track": 8,  # the 6-VP space of the test box's special track
        },
    )


def _final(state: GameState) -> GameState:
    draft = Draft(state)
    final_scoring(draft)
    return draft.view()


def test_e23_to_e27_final_scoring_example() -> None:
    after = _final(_final_example_state())
    red = after.players[0]
    by = dict(zip(list(Category), red.vp_by, strict=True))
    assert by[Category.FINAL_GOLD_OVERFLOW] + by[Category.FINAL_GOLD] == 18  # E23
    assert red.gold == 12 and red.chests == 0
    assert by[Category.FINAL_GOODS] == 19  # E24
    assert by[Category.FINAL_PROGRESS_TOKENS] + by[Category.FINAL_PROGRESS_TRACK] == 29  # E25
    assert by[Category.FINAL_SPECIAL_TRACK] == 6  # E26
    assert red.vp == 72  # E27
    assert sum(red.vp_by) == red.vp


def test_e28_completion_factors() -> None:
    for marker in (5, 4, 3, 2, 1):
        assert [completion_factor(n) * marker for n in range(1, 7)] == [
            f * marker for f in (1, 3, 6, 10, 15, 21)
        ]
    assert completion_factor(3) * time_marker(1) == 30


def test_e29_time_marker_by_round() -> None:
    assert [time_marker(r) for r in range(1, 6)] == [5, 4, 3, 2, 1]
    state = Game.new(("a", "b"), box=TEST_BOX).state
    assert [replace(state, round=r).time_marker for r in range(1, 6)] == [5, 4, 3, 2, 1]


def test_e30_progress_display_refill() -> None:
    state = replace(Game.new(("a", "b"), box=TEST_BOX).state, progress_left=1, progress_right=2)
    state = with_players(state, p0={"cannons": 12}, p1={"cannons": 12})
    draft = Draft(replace(state, pirates=(0,)))
    end_round(draft)
    after = draft.view()
    assert (after.progress_left, after.progress_right) == (4, 1)
    assert after.progress_left + after.progress_right == 5
    assert after.round == 2 and after.stage is Stage.REVEAL_PIRATE


def test_e31_production_display_per_round() -> None:
    assert [production_display_size(n) for n in (2, 3, 4)] == [6, 8, 10]
    for n in (2, 3, 4):
        assert Game.new(NAMES4[:n], box=TEST_BOX).state.production_display == 2 * n + 2


def test_e32_face_up_pirates_per_round() -> None:
    game = simulate_game(2, seed=3)
    for state in game.states:
        if state.stage is Stage.TURNS:
            assert len(state.pirates) == state.round
    assert len(game.state.pirates) == 5


def test_e33_tie_break_by_player_order() -> None:
    state = Game.new(("A", "B", "C"), box=TEST_BOX).state
    same = (5,) + (0,) * 12
    state = with_players(
        state,
        p0={"track": 5, "stamp": 1, "vp_by": same},
        p1={"track": 5, "stamp": 2, "vp_by": same},
        p2={"track": 3, "stamp": 3, "vp_by": same},
    )
    assert ranking(state)[0] == 1
    assert ranking(state)[1:] == (0, 2)
