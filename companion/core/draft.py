"""A draft of the next state: changes are collected, then frozen into one new GameState.

The engine never mutates a state: a `Draft` gathers the changed fields and players and builds
the successor in one go, so an error raised half-way leaves nothing applied.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

from companion.core.components import GOLD_MAX
from companion.core.state import CATEGORY_INDEX, Category, GameState, Player

T = TypeVar("T", GameState, Player)
_FIELDS = {cls: frozenset(f.name for f in fields(cls)) for cls in (GameState, Player)}


def evolve(obj: T, changes: dict[str, Any]) -> T:
    """A copy of a frozen state or player with some fields changed.

    Much faster than dataclasses.replace (no __init__ run): the engine copies a state for every
    event. A name that is not a field is a bug in the engine and raises TypeError.
    """
    if not _FIELDS[type(obj)].issuperset(changes):
        raise TypeError(f"not fields of {type(obj).__name__}: {set(changes) - _FIELDS[type(obj)]}")
    new = object.__new__(type(obj))
    # A copied dict is built at full size at once (filling an empty one grows it step by step).
    fields = obj.__dict__.copy()
    fields.update(changes)
    object.__setattr__(new, "__dict__", fields)
    return new


def _frozen(cls: type[T], fields: dict[str, Any]) -> T:
    """A frozen state or player whose fields are exactly `fields` (the dict itself is used)."""
    new = object.__new__(cls)
    object.__setattr__(new, "__dict__", fields)
    return new


class Draft:
    """The next state in the making from `base`; `finish()` returns it, `view()` a snapshot."""

    __slots__ = ("_fresh", "base", "fields", "players")

    def __init__(self, base: GameState) -> None:
        self.base = base
        # The next state's fields, changed in place; `finish` hands this very dict to it.
        self.fields: dict[str, Any] = base.__dict__.copy()
        self.players: list[Player] = list(base.players)
        # Bit i: players[i] is a copy this draft made that no state shows yet, so further
        # changes may go into it directly instead of copying the sheet again.
        self._fresh = 0

    def get(self, name: str) -> Any:
        """A field of the state as changed so far."""
        return self.fields[name]

    def set(self, **changes: Any) -> None:
        """Change fields of the state."""
        if not _FIELDS[GameState].issuperset(changes):
            raise TypeError(f"not fields of GameState: {set(changes) - _FIELDS[GameState]}")
        self.fields.update(changes)

    def view(self) -> GameState:
        """The state as changed so far (a new snapshot; cheap enough for occasional use)."""
        self._fresh = 0  # the snapshot shows the copies: from now on they must not change
        fields = self.fields.copy()
        fields["players"] = tuple(self.players)
        return _frozen(GameState, fields)

    def finish(self) -> GameState:
        """The new state. It takes over this draft's fields: the draft is not used after."""
        fields = self.fields
        fields["players"] = tuple(self.players)
        return _frozen(GameState, fields)

    def update(self, index: int, **changes: Any) -> Player:
        """Change fields of one player; returns the changed player.

        A player object returned earlier by this draft may be the one changed: read what you
        need from it before calling this.
        """
        if self._fresh >> index & 1:
            player = self.players[index]
            if not _FIELDS[Player].issuperset(changes):
                raise TypeError(f"not fields of Player: {set(changes) - _FIELDS[Player]}")
            player.__dict__.update(changes)
            return player
        player = evolve(self.players[index], changes)
        self.players[index] = player
        self._fresh |= 1 << index
        return player

    def add_vp(self, index: int, category: Category, amount: int) -> None:
        """Add (or, negative, take) VP in one category of a player's score."""
        if amount == 0:
            return
        vp_by = list(self.players[index].vp_by)
        vp_by[CATEGORY_INDEX[category]] += amount
        self.update(index, vp_by=tuple(vp_by))

    def gain_gold(
        self, index: int, amount: int, overflow: Category = Category.GOLD_OVERFLOW
    ) -> None:
        """Add gold up to the cap of 12; every gold beyond becomes 1 VP at once (section 3.4)."""
        total = self.players[index].gold + amount
        self.update(index, gold=min(total, GOLD_MAX))
        if total > GOLD_MAX:
            self.add_vp(index, overflow, total - GOLD_MAX)
