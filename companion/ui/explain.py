"""The engine's refusals and the devices' doubts in the language shown.

The engine's `RuleError` may carry a stable `code` with the figures its message names; a known
code is shown from the catalogue, anything else as the engine's English text (never hidden).
Reading reasons from the vision and the devices are English sentences; the known ones are
matched whole and shown from the catalogue (colours in the current language), others as they are.
"""

from __future__ import annotations

from companion.core.cubes import Colour
from companion.core.errors import RuleError
from companion.devices.readings import CAMERA_UNSURE
from companion.ui.controller import colour_name
from companion.ui.i18n import N_, tr
from companion.vision import reasons as doubt

REFUSALS: dict[str, str] = {
    "ap.not_enough": N_("{spaces} spaces need {spaces} AP, only {ap} available"),
    "track.past_end": N_("only {room} more space(s) to the end of the track"),
    "track.reading_differs": N_(
        "the sheet reading ({readings}) differs from the box data: read the sheet again, "
        "or correct the box data"
    ),
    "track.end_known": N_("the end of the track is known (space {end}): correct 'last space'"),
    "track.steps_needed": N_("where the track ends is not known yet: set the spaces moved"),
    "track.end_without_move": N_("the disc did not move, so it did not reach the end now"),
    "track.disc_beyond_end": N_(
        "a disc already stands on space {position}, beyond the end read at space {end}"
    ),
    "progress.no_move_no_vp": N_("the disc did not move, so it reached no VP space"),
    "progress.reading_needed": N_(
        "the progress track is not in the box data: read the VP spaces and the highest VP "
        "off your sheet"
    ),
    "progress.vp_spaces_beyond_move": N_(
        "the disc moved {moved} space(s), so it cannot pass {vp_spaces} VP spaces"
    ),
    "progress.vp_pair": N_(
        "{vp_spaces} VP space(s) but a highest VP of {highest_vp}: both are 0, or neither is"
    ),
    "progress.tokens_due": N_(
        "moving {moved} spaces passes {due} VP space(s): take exactly {must} progress token(s)"
    ),
    "order.no_move_no_change": N_(
        "the disc did not move: its space and the VP reached stay as they were"
    ),
    "order.reading_needed": N_(
        "the special action track is not in the box data: read the highest VP and the space's "
        "colour off the track"
    ),
    "order.white_only_start": N_(
        "only the start space of the special action track is white: read the colour again"
    ),
}


def refusal(error: RuleError) -> str:
    """Why the engine refused, in the current language when the refusal's code is known."""
    template = REFUSALS.get(error.code or "")
    if template is None:
        return error.detail
    try:
        return tr(template).format(**error.params)
    except (KeyError, IndexError, ValueError):
        # A code whose figures changed: the engine's own words are still right.
        return error.detail


# The camera's doubts: each of `companion.vision.reasons` with its words for the catalogue.
CAMERA_REASONS: tuple[tuple[str, str], ...] = (
    (doubt.TOO_DARK, N_("picture too dark (is the light on and the lens uncovered?)")),
    (doubt.TRAY_LOST, N_("tray not found: the picture does not look like the calibrated tray")),
    (doubt.MOVED, N_("the camera or the tray moved since calibration; counted after lining the tray up again, but calibrate again")),
    (doubt.LIGHT_CHANGED, N_("the light differs a lot from calibration; calibrate again")),
    (doubt.AT_EDGE, N_("something lies at the edge of the tray's view: a cube on the rim or beyond it")),
    (doubt.HAND, N_("hand in the picture")),
    (doubt.UNCERTAIN, N_("a cube's colour or size is uncertain")),
    (doubt.BETWEEN, N_("colour between {colour} and {other}")),
    (doubt.PARTLY_HIDDEN, N_("a {colour} cube may be partly hidden or not a cube")),
    (doubt.SEEN_BY_SHADOW, N_("a {colour} cube is seen only by its shadow")),
    (doubt.SEEN_BY_OUTLINE, N_("a {colour} cube is seen only by its outline")),
    (doubt.SEEN_AS_STRIP, N_("a {colour} cube is seen only as a strip beside another")),
    (doubt.FOUND_TWICE, N_("two {colour} cubes may be one")),
    (doubt.TOO_MANY, N_("more than {limit} {colour} cubes counted")),
    (doubt.OFF_COLOUR, N_("a {colour} cube looks unlike its calibration picture (other light or exposure?)")),
    (doubt.MAYBE_CUBE, N_("something that may be a cube or not")),
    (doubt.DARK_PATCH, N_("a dark patch that may be a cube or a shadow")),
    (doubt.HIDDEN_BESIDE, N_("a {colour} cube may be hidden under or beside others")),
    (doubt.TWO_AS_ONE, N_("two {colour} cubes may lie together as one")),
    (doubt.ON_ANOTHER, N_("a cube may lie on another (its shadow is longer than one cube's)")),
    (doubt.HEAP, N_("a cube may be hidden in a heap")),
    (doubt.CLUSTER, N_("cubes may be hidden or merged in a cluster")),
    (doubt.TOUCHING, N_("cubes lie against each other: one may lie hidden under them")),
    (doubt.HIDING_PRINT, N_("the tray's print looks like {colour} cubes: one may lie unseen")),
)  # fmt: skip

# What the reading service adds when it weighs camera and chute sensor.
SERVICE_REASONS: tuple[tuple[str, str], ...] = (
    ("the chute sensor is unsure of some colours: please check",
     N_("the chute sensor is unsure of some colours: please check")),
    ("neither the camera nor the chute sensor could count this: please type it",
     N_("neither the camera nor the chute sensor could count this: please type it")),
    ("cubes fell out of the tower between drops", N_("cubes fell out of the tower between drops")),
    ("the cubes were moved by hand and the camera looked again",
     N_("the cubes were moved by hand and the camera looked again")),
)  # fmt: skip

_MESSAGES = dict(CAMERA_REASONS + SERVICE_REASONS)


def reading_reason(reason: str) -> str:
    """A reading's reason in the current language (unknown sentences as they are)."""
    if reason.startswith(CAMERA_UNSURE):
        inner = reading_reason(reason.removeprefix(CAMERA_UNSURE))
        return tr("camera unsure: {reason}").format(reason=inner)
    if reason in _MESSAGES:
        return tr(_MESSAGES[reason])
    parsed = doubt.parse(reason)
    if parsed is None:
        return reason
    template, filled = parsed
    values = {
        key: colour_name(Colour(value)) if key in ("colour", "other") else value
        for key, value in filled.items()
    }
    return tr(_MESSAGES[template]).format(**values)
