"""What the current player may do, asked of the engine (never worked out here).

The choices come from `companion.core.views.available_choices`; a filled-in turn is checked by
applying it to the current state without recording it, so the app cannot disagree with the
rules: a turn the engine would refuse is shown with the engine's reason before it is confirmed.
"""

from __future__ import annotations

from companion.core.errors import RuleError
from companion.core.events import Event, Pass
from companion.core.rules import apply
from companion.core.state import GameState
from companion.core.views import Choice, available_choices, still_to_act


def preview(state: GameState, event: Event) -> GameState | RuleError:
    """The state the event would lead to, or the engine's refusal; nothing is recorded."""
    try:
        return apply(state, event)
    except RuleError as error:
        return error


def current_choices(state: GameState) -> tuple[Choice, ...]:
    """The current player's choices (actions, special actions, gold, VP); empty if no turn."""
    index = state.current_player
    if index is None:
        return ()
    return available_choices(state, index)


def action_choices(state: GameState) -> list[Choice]:
    """Only the actions (coloured and special), in the engine's order."""
    return [c for c in current_choices(state) if c.colour is not None]


def alternative(state: GameState, kind: str) -> Choice | None:
    """The 'gold' or 'vp' alternative, when the current player has it."""
    for choice in current_choices(state):
        if choice.kind == kind:
            return choice
    return None


def can_pass(state: GameState) -> bool:
    """True when the current player may forfeit the phase."""
    index = state.current_player
    return index is not None and not isinstance(preview(state, Pass(player=index)), RuleError)


def order_after(state: GameState) -> list[int]:
    """The players still to act in this phase after the current one, in order."""
    return list(still_to_act(state))
