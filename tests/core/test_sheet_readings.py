"""Brown and white moves when the box data lacks the track layouts: sheet readings in the events."""

from __future__ import annotations

from dataclasses import replace

import pytest
from core_helpers import with_players, with_tray

from companion.core.box import REAL_BOX, TEST_BOX
from companion.core.components import ProgressKind
from companion.core.cubes import Colour
from companion.core.errors import MissingBoxDataError, RuleError
from companion.core.events import AdvanceOrder, LoadCannons, Plan, Progress, TokenTaken
from companion.core.game import Game
from companion.core.rules import apply
from companion.core.simulate import simulate_game
from companion.core.state import Category, OwnedToken
from companion.core.views import available_choices

VP = list(Category)
END7 = TokenTaken(token=ProgressKind.END_7, half="left")


def test_progress_without_the_layout_needs_the_sheet_reading() -> None:
    state = with_tray({"brown": 4}, box=REAL_BOX).state
    with pytest.raises(MissingBoxDataError, match="vp_spaces"):
        apply(state, Progress(player=0))
    after = apply(state, Progress(player=0, vp_spaces=1, highest_vp=1, tokens=(END7,)))
    assert after.players[0].progress == 4 and after.players[0].progress_vp == 1
    assert after.progress_left == 3 and after.progress_end is None
    # A move that passes no VP space takes no token.
    assert apply(state, Progress(player=0, vp_spaces=0, highest_vp=0)).players[0].progress == 4


@pytest.mark.parametrize(
    ("reading", "message"),
    [
        ({"vp_spaces": 5, "highest_vp": 3}, "cannot pass 5 VP spaces"),
        ({"vp_spaces": 0, "highest_vp": 3}, "both are 0, or neither"),
        ({"vp_spaces": 1, "highest_vp": 0}, "both are 0, or neither"),
        ({"vp_spaces": 0, "highest_vp": 0, "at_end": True}, "give how many spaces"),
    ],
)
def test_inconsistent_progress_readings_are_refused(reading: dict[str, int], message: str) -> None:
    state = with_tray({"brown": 4}, box=REAL_BOX).state
    tokens = (END7,) * (reading["vp_spaces"] if reading["vp_spaces"] <= 4 else 0)
    with pytest.raises(RuleError, match=message):
        apply(state, Progress(player=0, tokens=tokens, **reading))


def test_the_track_end_is_learned_from_a_reading() -> None:
    state = with_tray({"brown": 4}, box=REAL_BOX).state
    state = with_players(state, p0={"progress": 10, "gold": 0}, p1={"progress": 9})
    # The disc reached the end after 2 of 4 AP: the 2-gold compensation, and the end is known.
    after = apply(
        state, Progress(player=0, steps=2, vp_spaces=1, highest_vp=15, at_end=True, tokens=(END7,))
    )
    assert after.progress_end == 12 and after.players[0].gold == 2
    assert after.players[0].progress_vp == 15
    # The next player moves towards the now known end: 3 spaces at most.
    with pytest.raises(RuleError, match="only 3 more space"):
        apply(after, Progress(player=1, steps=4, vp_spaces=0, highest_vp=0))
    with pytest.raises(RuleError, match="does not end there"):
        apply(after, Progress(player=1, steps=2, vp_spaces=0, highest_vp=0, at_end=True))
    ended = apply(after, Progress(player=1, vp_spaces=1, highest_vp=15, tokens=(END7,)))
    assert ended.players[1].progress == 12 and ended.players[1].gold == 1 + 2
    # An end read before another disc's space is impossible.
    behind = with_players(state, p1={"progress": 14})
    with pytest.raises(RuleError, match="beyond the end"):
        apply(
            behind,
            Progress(player=0, steps=2, vp_spaces=1, highest_vp=15, at_end=True, tokens=(END7,)),
        )


def test_readings_are_checked_against_a_known_layout() -> None:
    # The test box's progress track has 1 VP on space 3 and 3 VP on space 6.
    state = with_tray({"brown": 4}).state
    good = Progress(player=0, vp_spaces=1, highest_vp=1, at_end=False, tokens=(END7,))
    assert apply(state, good).players[0].progress_vp == 1
    with pytest.raises(RuleError, match="vp_spaces read 2, the box data gives 1"):
        apply(state, good.model_copy(update={"vp_spaces": 2}))
    with pytest.raises(RuleError, match="highest_vp read 3, the box data gives 1"):
        apply(state, good.model_copy(update={"highest_vp": 3}))
    with pytest.raises(RuleError, match="at_end read True"):
        apply(state, good.model_copy(update={"at_end": True}))


def test_white_without_the_layout_needs_the_reading_and_keeps_the_colour() -> None:
    state = with_tray({"white": 3, "red": 1}, box=REAL_BOX).state
    with pytest.raises(MissingBoxDataError, match="highest_vp"):
        apply(state, AdvanceOrder(player=0))
    with pytest.raises(RuleError, match="only the start space"):
        apply(state, AdvanceOrder(player=0, space_colour=Colour.WHITE, highest_vp=0))
    after = apply(state, AdvanceOrder(player=0, space_colour=Colour.RED, highest_vp=1))
    sheet = after.players[0]
    assert sheet.track == 3 and sheet.track_colour is Colour.RED and sheet.special_vp == 1
    # A later special action must be the colour read for the space under the disc.
    later = replace(after, turn_index=0, turn_order=(0, 1, 2, 3))
    with pytest.raises(RuleError, match="red space"):
        apply(later, LoadCannons(player=0, special=True))
    assert len(apply(later, Plan(player=0, special=True, villages=(1, 2))).players[0].supply) == 2
    assert [c.colour for c in available_choices(later, 0) if c.kind == "special"] == [Colour.RED]
    # Without the colour the move is still taken; the special action is then taken on trust.
    unread = apply(state, AdvanceOrder(player=0, highest_vp=0))
    assert unread.players[0].track_colour is None
    trusting = replace(unread, turn_index=0, turn_order=(0, 1, 2, 3))
    assert apply(trusting, LoadCannons(player=0, special=True)).players[0].cannons == 3


def test_white_readings_checked_against_a_known_layout_and_order_jump() -> None:
    state = with_tray({"white": 4}).state
    # Test box: space 4 is red, space 3 is worth 1 VP.
    assert TEST_BOX.special_track is not None
    ok = AdvanceOrder(player=0, space_colour=Colour.RED, highest_vp=1, at_end=False)
    assert apply(state, ok).players[0].special_vp == 1
    with pytest.raises(RuleError, match="space_colour read blue, the box data gives red"):
        apply(state, ok.model_copy(update={"space_colour": Colour.BLUE}))
    jumper = with_players(
        state,
        p0={"tokens": (OwnedToken(ProgressKind.ORDER_JUMP),)},
        p1={"track": 5, "stamp": 3, "special_vp": 3, "track_colour": Colour.YELLOW},
    )
    with pytest.raises(RuleError, match="no sheet readings"):
        apply(jumper, AdvanceOrder(player=0, use_order_token=True, highest_vp=3))
    jumped = apply(jumper, AdvanceOrder(player=0, use_order_token=True)).players[0]
    colour = TEST_BOX.special_track[5].colour
    assert (jumped.track, jumped.special_vp, jumped.track_colour) == (5, 3, colour)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_games_with_the_real_box_score_as_the_hidden_layout_does(players: int) -> None:
    for seed in range(3):
        game = simulate_game(players, seed, box=REAL_BOX)
        assert game.state.finished and game.state.box == REAL_BOX
        # The same events told the hidden box (the one the table used) give the same game: every
        # reading fits the layout, and the scores from readings equal those from the layout.
        hidden = Game(game.log.model_copy(update={"box": TEST_BOX}))
        for real, known in zip(game.state.players, hidden.state.players, strict=True):
            assert real.vp_by == known.vp_by and real.progress_vp == known.progress_vp
        assert Game.from_json(game.to_json()).state == game.state


def test_readings_given_with_a_known_layout_in_whole_games() -> None:
    from companion.core.simulate import Simulator

    game = Simulator(3, seed=5, read_sheets=1.0).run()
    read = [
        e
        for e in game.events
        if isinstance(e, Progress | AdvanceOrder) and e.highest_vp is not None
    ]
    assert read and game.state.finished
