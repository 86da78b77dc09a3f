"""The errors the rules engine raises. All subclass ValueError so callers can catch one kind."""

from __future__ import annotations

from collections.abc import Mapping


class RuleError(ValueError):
    """An event breaks a rule of the game; nothing of it was applied.

    `rule` names the rule (a section of rules/amerigo.md, e.g. "5.2 cannons are capped at 12")
    so the message can be shown to the players as is.

    `code` (optional) is a stable identifier of the refusal, e.g. "track.vp_spaces_beyond_move",
    with `params` the figures its message names, so a user interface can show the refusal in
    its own language; the English `detail` stays the message and the fallback.
    """

    def __init__(
        self,
        rule: str,
        detail: str,
        *,
        code: str | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        self.rule = rule
        self.detail = detail
        self.code = code
        self.params: dict[str, object] = dict(params or {})
        super().__init__(f"{detail} (rule: {rule})")


class InconsistentReadingError(RuleError):
    """A tray reading shows more cubes of a colour than could have come out of the tower."""


class MissingBoxDataError(RuleError):
    """The event needs a figure printed on the physical box that is still unknown.

    The message names the field of the box data to fill in (docs/box-data.md) or the event
    field that may carry the figure instead.
    """


class UndoError(ValueError):
    """Undo is not possible: nothing to undo, or the latest event is a tower drop."""


class LogError(ValueError):
    """A game log cannot be read or replayed. `event_number` is 1-based, None for the header."""

    def __init__(self, event_number: int | None, reason: str) -> None:
        self.event_number = event_number
        self.reason = reason
        where = "game log header" if event_number is None else f"event {event_number}"
        super().__init__(f"{where}: {reason}")
