"""The owner's box data as short lines of text, one per `BoxData` field, and back.

Typing is the quickest way to copy a printed track off the board on the touchscreen keyboard,
so every field the engine may lack has a compact form (an empty line means still unknown):

- progress_track: the VP of each space from the start space, `0 0 0 1 0 0 3 ...`
- special_track: each space's colour code with its VP after a colon, `Wh Ye Gn Br:1 Rd ...`
- progress_tokens: one kind per comma, with the actions an extra-AP token shows and a count,
  `extra_ap_one Bu, extra_ap_two Rd Bu, end_7 x2, gold_3`
- pirate_markers: the six printed strengths, `0 0 2 3 4 6`
- neutral_tiles / village_tiles: size:count:small-island VP:big-island VP, `1:7:0:1, 2:8:1:2`

Parsing never guesses: a word it does not know is refused with what to type instead. The
engine's pydantic model then checks the whole (totals, start spaces, ...).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from companion.core.box import BoxData
from companion.core.components import ProgressKind
from companion.core.cubes import COLOURS, Colour
from companion.ui.i18n import N_

FIELDS: tuple[str, ...] = (
    "progress_track",
    "special_track",
    "progress_tokens",
    "pirate_markers",
    "neutral_tiles",
    "village_tiles",
)
"""The `BoxData` fields the owner may fill in, in the order the screen shows them."""

OWNER_BOX_NAME = "Amerigo (the owner's box)"


class BoxTextError(ValueError):
    """A line cannot be read; `field` names the line, the message says what to type.

    `template` is the message with `{word}` and `{choices}` in place (a catalogue entry, so
    the screen can show it in its language) and `word` / `choices` their values.
    """

    def __init__(self, field: str, template: str, word: str, choices: str = "") -> None:
        self.field = field
        self.template = template
        self.word = word
        self.choices = choices
        super().__init__(f"{field}: {template.format(word=word, choices=choices)}")


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[\s,;]+", text.strip()) if w]


def _groups(text: str) -> list[str]:
    return [g.strip() for g in re.split(r"[,;\n]+", text) if g.strip()]


def _number(field: str, word: str) -> int:
    if not word.isdigit():
        raise BoxTextError(field, N_("'{word}' is not a whole number of 0 or more"), word)
    return int(word)


def colour_of(field: str, word: str) -> Colour:
    """A colour from its two-letter code or English name, any case."""
    lowered = word.lower()
    for colour in COLOURS:
        if lowered in (colour.code.lower(), colour.value):
            return colour
    codes = " ".join(c.code for c in COLOURS)
    raise BoxTextError(field, N_("'{word}' is not a colour; use one of {choices}"), word, codes)


def _progress_track(text: str) -> list[int]:
    return [_number("progress_track", w) for w in _words(text)]


def _special_track(text: str) -> list[dict[str, Any]]:
    spaces = []
    for word in _words(text):
        code, _, vp = word.partition(":")
        colour = colour_of("special_track", code)
        spaces.append({"colour": colour.value, "vp": _number("special_track", vp) if vp else 0})
    return spaces


def _progress_tokens(text: str) -> list[dict[str, Any]]:
    kinds = {k.value: k for k in ProgressKind}
    supplies = []
    for group in _groups(text):
        words = group.split()
        kind = kinds.get(words[0].lower())
        if kind is None:
            raise BoxTextError(
                "progress_tokens",
                N_("'{word}' is not a token kind; use one of {choices}"),
                words[0],
                " ".join(kinds),
            )
        count = 1
        actions = []
        for word in words[1:]:
            if word.lower().startswith("x") and word[1:].isdigit():
                count = int(word[1:])
            else:
                actions.append(colour_of("progress_tokens", word).value)
        supplies.append({"kind": kind.value, "actions": actions, "count": count})
    return supplies


def _tiles(field: str, text: str) -> list[dict[str, int]]:
    tiles = []
    for group in _groups(text):
        parts = [p.strip() for p in group.split(":")]
        if len(parts) != 4:
            raise BoxTextError(
                field, N_("'{word}' needs size:count:small VP:big VP, for example 2:8:1:2"), group
            )
        size, count, small, big = (_number(field, p) for p in parts)
        tiles.append({"size": size, "count": count, "small_vp": small, "big_vp": big})
    return tiles


def parse_field(field: str, text: str) -> Any:
    """One line's value for `BoxData` (plain JSON-like data), None when the line is empty."""
    if not text.strip():
        return None
    if field == "progress_track":
        return _progress_track(text)
    if field == "special_track":
        return _special_track(text)
    if field == "progress_tokens":
        return _progress_tokens(text)
    if field == "pirate_markers":
        return [_number(field, w) for w in _words(text)]
    if field in ("neutral_tiles", "village_tiles"):
        return _tiles(field, text)
    raise KeyError(field)


def parse_box(texts: dict[str, str], name: str = OWNER_BOX_NAME) -> BoxData:
    """The box the lines describe, checked by the engine's model.

    Raises BoxTextError for a line that cannot be read and ValueError (the model's first
    complaint, in words) for values that do not fit together.
    """
    data: dict[str, Any] = {"name": name}
    for field in FIELDS:
        data[field] = parse_field(field, texts.get(field, ""))
    try:
        return BoxData.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ValueError(f"{where}: {message}" if where else message) from None


def box_texts(box: BoxData) -> dict[str, str]:
    """The lines that describe `box` (parse_box of them gives the same figures back)."""
    texts = dict.fromkeys(FIELDS, "")
    if box.progress_track is not None:
        texts["progress_track"] = " ".join(map(str, box.progress_track))
    if box.special_track is not None:
        texts["special_track"] = " ".join(
            s.colour.code + (f":{s.vp}" if s.vp else "") for s in box.special_track
        )
    if box.progress_tokens is not None:
        texts["progress_tokens"] = ", ".join(
            " ".join([t.kind.value, *(a.code for a in t.actions)])
            + (f" x{t.count}" if t.count != 1 else "")
            for t in box.progress_tokens
        )
    if box.pirate_markers is not None:
        texts["pirate_markers"] = " ".join(map(str, box.pirate_markers))
    for field in ("neutral_tiles", "village_tiles"):
        tiles = getattr(box, field)
        if tiles is not None:
            texts[field] = ", ".join(f"{t.size}:{t.count}:{t.small_vp}:{t.big_vp}" for t in tiles)
    return texts


def unknown_fields(box: BoxData) -> list[str]:
    """The fields the box data still lacks."""
    return [f for f in FIELDS if getattr(box, f) is None]


def same_figures(one: BoxData, other: BoxData) -> bool:
    """True when both boxes hold the same figures (names may differ)."""
    return all(getattr(one, f) == getattr(other, f) for f in FIELDS)
