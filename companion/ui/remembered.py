"""The players of the last night, remembered for the next: names and colours, in seat order.

Stored as JSON in the data directory (`players.json`), written atomically. The first version
stored a plain list of names; it is still read (colours then follow the seats).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from companion.ui.player_colours import PLAYER_COLOURS
from companion.ui.saved_game import write_atomically

DEFAULT_NAMES = ("Ada", "Bruno", "Carla", "Dmitri")
"""Names offered the first time, before any night has been remembered."""


@dataclass(frozen=True)
class RememberedPlayer:
    """A player's name and colour key (see player_colours.PLAYER_COLOURS)."""

    name: str
    colour: str


def players_file(directory: Path) -> Path:
    """Where the last game's players are remembered."""
    return directory / "players.json"


def _defaults() -> list[RememberedPlayer]:
    return [RememberedPlayer(n, c.key) for n, c in zip(DEFAULT_NAMES, PLAYER_COLOURS, strict=True)]


def remembered_players(directory: Path) -> list[RememberedPlayer]:
    """Four players: the last game's first, then defaults; an unreadable file is ignored."""
    try:
        stored = json.loads(players_file(directory).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _defaults()
    if not isinstance(stored, list):
        return _defaults()
    players: list[RememberedPlayer] = []
    for seat, entry in enumerate(stored[:4]):
        if isinstance(entry, str):
            players.append(RememberedPlayer(entry, PLAYER_COLOURS[seat].key))
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str):
            colour = entry.get("colour")
            key = colour if isinstance(colour, str) else PLAYER_COLOURS[seat].key
            players.append(RememberedPlayer(entry["name"], key))
        else:
            return _defaults()
    taken = {p.colour for p in players}
    for default in _defaults()[len(players) :]:
        free = next(c.key for c in PLAYER_COLOURS if c.key not in taken)
        players.append(RememberedPlayer(default.name, free))
        taken.add(free)
    return players


def remember_players(directory: Path, players: list[RememberedPlayer]) -> None:
    """Remember these players (names and colours) for the next night, atomically."""
    data = [{"name": p.name, "colour": p.colour} for p in players]
    write_atomically(players_file(directory), json.dumps(data, ensure_ascii=False))
