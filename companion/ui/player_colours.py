"""The players' colours: chosen on the new-game screen, remembered with the names, and shown
wherever a player appears, always as the colour of the player's written name (never alone).

The box's four player colours are red, white, blue and yellow (the rulebook's examples follow
"the red player ... followed by white, blue and yellow"). Three of them are also cube colours, so
a player's colour only ever tints their written name and is never shown as a chip or icon that
could be taken for an action. Each has a bright tint for text on the dark theme.
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
    PlayerColour("red", N_("red"), (1.00, 0.45, 0.42, 1.0)),
    PlayerColour("white", N_("white"), (0.96, 0.96, 0.96, 1.0)),
    PlayerColour("blue", N_("blue"), (0.45, 0.66, 1.00, 1.0)),
    PlayerColour("yellow", N_("yellow"), (1.00, 0.85, 0.30, 1.0)),
)

_BY_KEY = {c.key: c for c in PLAYER_COLOURS}


def colour_by_key(key: str | None, seat: int) -> PlayerColour:
    """The colour stored under `key`; an unknown key falls back to the seat's (0-based) colour."""
    found = _BY_KEY.get(key or "")
    return found if found is not None else PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def marked_name(name: str, colour: PlayerColour) -> str:
    """The name as Kivy markup in the player's colour (the label needs `markup: True`)."""
    return f"[color={colour.hex()}]{escape_markup(name)}[/color]"
