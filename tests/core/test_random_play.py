"""Random legal play through whole games (Hypothesis picks the seeds), checked after every event."""

from __future__ import annotations

from core_helpers import check_state
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.corrections import correct
from companion.core.events import EVENT_ADAPTER, Correction
from companion.core.game import Game
from companion.core.log import parse_log, replay
from companion.core.rules import apply
from companion.core.simulate import Simulator
from companion.core.state import Stage


def _play_and_check(players: int, seed: int) -> None:
    sim = Simulator(players, seed)
    game = sim.game
    while not game.state.finished:
        before = len(game.events)
        sim.step()
        for number in range(before, len(game.events)):
            event = game.events[number]
            previous, state = game.states[number], game.states[number + 1]
            check_state(state)
            # The fold: the event applied to the previous state gives this state.
            if isinstance(event, Correction):
                assert correct(game.states[: number + 1], game.events[:number], event) == state
            else:
                assert apply(previous, event) == state
            # Events survive a JSON round trip unchanged.
            assert EVENT_ADAPTER.validate_json(EVENT_ADAPTER.dump_json(event)) == event
        # Undo restores the previous state exactly (and stops at tower drops).
        if game.can_undo:
            state, previous, last = game.state, game.states[-2], game.events[-1]
            assert game.undo() == last
            assert game.state == previous and len(game.states) == len(game.events) + 1
            assert game.apply(last) == state
        else:
            assert not game.events or game.events[-1].kind in ("drop", "setup_drop", "stray_cubes")
    assert game.state.stage is Stage.FINISHED
    # Replaying the log from its JSON text rebuilds every state.
    assert replay(parse_log(game.to_json())) == list(game.states)
    assert Game.from_json(game.to_json()).state == game.state


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_two_players(seed: int) -> None:
    _play_and_check(2, seed)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_three_players(seed: int) -> None:
    _play_and_check(3, seed)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_four_players(seed: int) -> None:
    _play_and_check(4, seed)
