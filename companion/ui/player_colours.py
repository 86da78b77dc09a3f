"""The players' colours: chosen on the new-game screen, remembered with the names, and shown
wherever a player appears, always as the colour of the player's written name (never alone).

The rule text says each player takes the pieces "of his colour" but does not name the box's
four colours (GUESS: orange, purple, teal, pink, chosen to differ from every cube colour so a
player is never mistaken for an action). Each has a bright tint for text on the dark theme.
"""

from __future__ import annotations

from dataclasses import dataclass

from kivy.utils import escape_markup

from companion.ui.i18n import N_, tr

RGBA = tuple[float, float, float, float]


@dataclass(frozen=True)
class PlayerColour:
    """One player colour: its stored key, its name in the catalogue and its text tint."""

    key: str
    name: str
    tint: RGBA

    def label(self) -> str:
        """The colour's name in the current language."""
        return tr(self.name)

    def hex(self) -> str:
        """The tint as #rrggbb, for Kivy markup."""
        return "#" + "".join(f"{round(c * 255):02x}" for c in self.tint[:3])


PLAYER_COLOURS: tuple[PlayerColour, ...] = (
    PlayerColour("orange", N_("orange"), (1.00, 0.62, 0.20, 1.0)),
    PlayerColour("purple", N_("purple"), (0.78, 0.60, 1.00, 1.0)),
    PlayerColour("teal", N_("teal"), (0.30, 0.85, 0.80, 1.0)),
    PlayerColour("pink", N_("pink"), (1.00, 0.55, 0.75, 1.0)),
)

_BY_KEY = {c.key: c for c in PLAYER_COLOURS}


def colour_by_key(key: str | None, seat: int) -> PlayerColour:
    """The colour stored under `key`; an unknown key falls back to the seat's (0-based) colour."""
    found = _BY_KEY.get(key or "")
    return found if found is not None else PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def marked_name(name: str, colour: PlayerColour) -> str:
    """The name as Kivy markup in the player's colour (the label needs `markup: True`)."""
    return f"[color={colour.hex()}]{escape_markup(name)}[/color]"
