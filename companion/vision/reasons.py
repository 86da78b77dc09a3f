"""Every reason a reading gives for being unsure, in one place.

The app shows them to the person (translated: `companion/ui/explain.py` has each one), and the
settled-reading logic acts on some. Fields in braces are filled with colour names (`colour`,
`other`) and numbers (`limit`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from companion.core.cubes import COLOURS

# The picture as a whole.
TOO_DARK = "picture too dark (is the light on and the lens uncovered?)"
TRAY_LOST = "tray not found: the picture does not look like the calibrated tray"
MOVED = (
    "the camera or the tray moved since calibration; counted after lining the tray up again, "
    "but calibrate again"
)
LIGHT_CHANGED = "the light differs a lot from calibration; calibrate again"
AT_EDGE = "something lies at the edge of the tray's view: a cube on the rim or beyond it"
HAND = "hand in the picture"
# One cube.
UNCERTAIN = "a cube's colour or size is uncertain"
BETWEEN = "colour between {colour} and {other}"
PARTLY_HIDDEN = "a {colour} cube may be partly hidden or not a cube"
SEEN_BY_SHADOW = "a {colour} cube is seen only by its shadow"
SEEN_BY_OUTLINE = "a {colour} cube is seen only by its outline"
SEEN_AS_STRIP = "a {colour} cube is seen only as a strip beside another"
FOUND_TWICE = "two {colour} cubes may be one"
TOO_MANY = "more than {limit} {colour} cubes counted"
OFF_COLOUR = "a {colour} cube looks unlike its calibration picture (other light or exposure?)"
# What the cubes found leave unexplained.
MAYBE_CUBE = "something that may be a cube or not"
DARK_PATCH = "a dark patch that may be a cube or a shadow"
HIDDEN_BESIDE = "a {colour} cube may be hidden under or beside others"
TWO_AS_ONE = "two {colour} cubes may lie together as one"
ON_ANOTHER = "a cube may lie on another (its shadow is longer than one cube's)"
HEAP = "a cube may be hidden in a heap"
CLUSTER = "cubes may be hidden or merged in a cluster"
TOUCHING = "cubes lie against each other: one may lie hidden under them"
# The set-up.
HIDING_PRINT = "the tray's print looks like {colour} cubes: one may lie unseen"

ALL = (
    TOO_DARK,
    TRAY_LOST,
    MOVED,
    LIGHT_CHANGED,
    AT_EDGE,
    HAND,
    UNCERTAIN,
    BETWEEN,
    PARTLY_HIDDEN,
    SEEN_BY_SHADOW,
    SEEN_BY_OUTLINE,
    SEEN_AS_STRIP,
    FOUND_TWICE,
    TOO_MANY,
    OFF_COLOUR,
    MAYBE_CUBE,
    DARK_PATCH,
    HIDDEN_BESIDE,
    TWO_AS_ONE,
    ON_ANOTHER,
    HEAP,
    CLUSTER,
    TOUCHING,
    HIDING_PRINT,
)
"""Every reason, as its template."""

CUBES_HIDING = (HIDDEN_BESIDE, TWO_AS_ONE, ON_ANOTHER, HEAP, CLUSTER, TOUCHING)
"""The doubts that a cube may lie out of sight under or among others: one picture from above
cannot settle them, but the cubes spread apart by hand and seen again can."""

_COLOUR = "|".join(colour.value for colour in COLOURS)
_FIELDS = {"colour": f"(?P<colour>{_COLOUR})", "other": f"(?P<other>{_COLOUR})",
           "limit": r"(?P<limit>\d+)"}  # fmt: skip


def _pattern(template: str) -> re.Pattern[str]:
    """A template as a pattern matching the sentences filled in from it."""
    parts = re.split(r"\{(\w+)\}", template)
    # Even parts are plain text, odd ones the names of the fields between them.
    return re.compile("".join(_FIELDS[p] if i % 2 else re.escape(p) for i, p in enumerate(parts)))


_PATTERNS = tuple((template, _pattern(template)) for template in ALL)


def parse(reason: str) -> tuple[str, dict[str, str]] | None:
    """The template (one of ALL) a reading's reason was filled in from, with what was filled
    in by field name; None for a sentence no template makes."""
    for template, pattern in _PATTERNS:
        found = pattern.fullmatch(reason)
        if found is not None:
            return template, found.groupdict()
    return None


def cubes_may_hide(reasons: Iterable[str]) -> bool:
    """Whether a reading doubts its count because a cube may lie hidden (CUBES_HIDING)."""
    parsed = (parse(reason) for reason in reasons)
    return any(found is not None and found[0] in CUBES_HIDING for found in parsed)
