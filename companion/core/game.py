"""`Game`: the facade the app, the devices and the command line use.

    game = Game.new(["Ann", "Bo"], box=TEST_BOX)     # players in the starting stack, top first
    game.apply(PirateRevealed(value=3))              # -> the new GameState, or RuleError
    game.state, game.log, game.undo(), game.to_json(), Game.from_json(text)

Undo is exact (a stack of states) and stops at a tower drop: cubes that fell stay fallen; a
wrong reading is fixed with a `Correction` event instead (of the latest reading or, naming its
event number, an earlier one). A correction is a person's input, so it can be undone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from companion.core.box import REAL_BOX, BoxData
from companion.core.corrections import correct
from companion.core.errors import UndoError
from companion.core.events import Correction, Event
from companion.core.log import GameLog, parse_log, replay
from companion.core.options import RuleOptions
from companion.core.rules import apply, is_tower_event, new_game
from companion.core.state import GameState


class Game:
    """A game in progress: its log and the state after every event."""

    __slots__ = ("_events", "_header", "_states")

    def __init__(self, log: GameLog, states: list[GameState] | None = None) -> None:
        """A game from a log (replayed unless its states are given). Raises LogError."""
        self._header = log.model_copy(update={"events": ()})
        self._events: list[Event] = list(log.events)
        self._states = states if states is not None else replay(log)

    @classmethod
    def new(
        cls,
        players: Iterable[str],
        *,
        options: RuleOptions | None = None,
        box: BoxData = REAL_BOX,
    ) -> Game:
        """A new game: `players` in the starting stack (top = first player) first."""
        names = tuple(players)
        options = options or RuleOptions()
        start = new_game(names, options, box)  # RuleError for a wrong number of players
        return cls(GameLog(players=names, options=options, box=box), [start])

    @classmethod
    def from_json(cls, text: str | bytes) -> Game:
        """A game replayed from its log's JSON text; LogError names the bad event."""
        return cls(parse_log(text))

    @property
    def state(self) -> GameState:
        """The state after the latest event."""
        return self._states[-1]

    @property
    def states(self) -> Sequence[GameState]:
        """Every state: before any event, then after each event.

        After a correction of an earlier reading, the states in between stay as they were when
        their events were applied (undo brings them back); the correction's state is the re-fold.
        """
        return tuple(self._states)

    @property
    def events(self) -> tuple[Event, ...]:
        """The events so far, oldest first."""
        return tuple(self._events)

    @property
    def log(self) -> GameLog:
        """The whole game log (header and events)."""
        return self._header.model_copy(update={"events": tuple(self._events)})

    def to_json(self) -> str:
        """The game log as JSON text (docs/game-log.md)."""
        return self.log.to_json()

    def apply(self, event: Event) -> GameState:
        """Apply one event; returns the new state. RuleError (ValueError) leaves the game as it was."""
        if isinstance(event, Correction):
            state = correct(self._states, self._events, event)
        else:
            state = apply(self._states[-1], event)
        self._events.append(event)
        self._states.append(state)
        return state

    @property
    def can_undo(self) -> bool:
        """True when the latest event may be undone (it exists and is not a tower drop)."""
        return bool(self._events) and not is_tower_event(self._events[-1])

    def undo(self) -> Event:
        """Remove the latest event and return it; UndoError at the start or at a tower drop."""
        if not self._events:
            raise UndoError("nothing to undo")
        if is_tower_event(self._events[-1]):
            raise UndoError(
                "cubes that fell from the tower cannot be undone: "
                "correct a wrong reading with a correction instead"
            )
        self._states.pop()
        return self._events.pop()
