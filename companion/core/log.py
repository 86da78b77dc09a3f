"""The game log: who played, with which rule options and box data, and every event in order.

This is the one durable record of a game (docs/game-log.md). `parse_log` reads it from JSON
text with errors that name the event number; `replay` folds it into states.
"""

from __future__ import annotations

import gc
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from companion.core.box import BoxData
from companion.core.corrections import correct
from companion.core.errors import LogError, RuleError
from companion.core.events import Correction, Drop, Event, SetupDrop, StrayCubes
from companion.core.options import RuleOptions
from companion.core.rules import apply, new_game
from companion.core.state import GameState

LOG_FORMAT: Literal["tower-companion/amerigo-log"] = "tower-companion/amerigo-log"
LOG_VERSION: Literal[2] = 2
"""Bump when an event or a field changes meaning; older versions are upgraded on read.

Version 2: a `correction` may name the reading it corrects (`drop`) and re-checks the game from
there; `progress` and `advance_order` may carry sheet readings. Version 1 logs are upgraded on
read: each correction names the reading it corrected then (the latest one).
"""


class GameLog(BaseModel):
    """A whole game as data: the header (players, options, box) and the events."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["tower-companion/amerigo-log"] = LOG_FORMAT
    version: Literal[1, 2] = LOG_VERSION
    """Always 2 once read: a version 1 log is upgraded as it is read."""
    players: tuple[str, ...] = Field(min_length=2, max_length=4)
    """Player names in the starting stack, the top (first player) first."""
    options: RuleOptions = RuleOptions()
    box: BoxData
    events: tuple[Event, ...] = ()

    def to_json(self) -> str:
        """The log as compact JSON text (stable field order)."""
        return self.model_dump_json()

    @model_validator(mode="after")
    def _upgrade(self) -> GameLog:
        """Upgrade a version 1 log on read: its corrections always meant the latest reading."""
        if self.version == LOG_VERSION:
            return self
        latest: int | None = None
        events: list[Event] = []
        for number, event in enumerate(self.events, start=1):
            if isinstance(event, SetupDrop | Drop | StrayCubes):
                latest = number
            elif isinstance(event, Correction) and event.drop is None and latest is not None:
                event = event.model_copy(update={"drop": latest})
            events.append(event)
        return self.model_copy(update={"version": LOG_VERSION, "events": tuple(events)})


_LOG_ADAPTER: TypeAdapter[GameLog] = TypeAdapter(GameLog)
_EVENT_KINDS = frozenset(
    member.model_fields["kind"].default for member in get_args(get_args(Event)[0])
)


def parse_log(text: str | bytes) -> GameLog:
    """Read a game log from JSON text; a LogError names the event (1-based) and the problem."""
    try:
        return _LOG_ADAPTER.validate_json(text)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        loc = first["loc"]
        number: int | None = None
        if len(loc) >= 2 and loc[0] == "events" and isinstance(loc[1], int):
            number = loc[1] + 1
            loc = loc[2:]
            # The discriminated union puts the event's kind in the location: drop it.
            if loc and loc[0] in _EVENT_KINDS:
                loc = loc[1:]
        where = ".".join(str(part) for part in loc)
        message = first["msg"] + (f" at {where}" if where else "")
        raise LogError(number, message) from None


def replay(log: GameLog) -> list[GameState]:
    """Every state of the game: before any event, then after each one (len = events + 1)."""
    # A replay makes thousands of small objects that form no cycles: the cyclic collector's
    # passes over them would cost about a tenth of the time and free nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _replay(log)
    finally:
        if collecting:
            gc.enable()


def _replay(log: GameLog) -> list[GameState]:
    try:
        state = new_game(log.players, log.options, log.box)
    except RuleError as error:
        raise LogError(None, str(error)) from None
    states = [state]
    for number, event in enumerate(log.events, start=1):
        try:
            if isinstance(event, Correction):
                state = correct(states, log.events[: number - 1], event)
            else:
                state = apply(state, event)
        except RuleError as error:
            raise LogError(number, f"{event.kind}: {error}") from None
        states.append(state)
    return states
