"""The progress and special action tracks: how far a disc moves and what it reaches (3.3, 5.4, 5.7).

When the box data knows a track's layout, the engine works out what a move reaches and checks
any sheet reading the event carries against it (a mismatch names the reading that differs).
When it does not, the event must carry what the player reads off their own sheet; the reading
is checked for consistency with the AP spent and with what earlier readings taught (where the
track ends, once some disc reached the end).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from companion.core.cubes import Colour
from companion.core.errors import MissingBoxDataError, RuleError
from companion.core.events import AdvanceOrder, Progress
from companion.core.state import GameState, Player


class Reached(NamedTuple):
    """What one move on a track did.

    `moved` spaces (1 AP each); `compensation`: the 2 gold for AP lost at the track's end;
    `vp_spaces`: VP-marked spaces reached or passed; `highest_vp`: the highest VP among them
    (0: none); `at_end`: the disc stands on the last space; `colour`: the special-track space
    under the disc afterwards (None: unknown); `end_learned`: the last space's index when this
    move taught it (the box data lacks the layout and the disc reached the end), else None.
    """

    moved: int
    compensation: bool
    vp_spaces: int
    highest_vp: int
    at_end: bool
    colour: Colour | None
    end_learned: int | None = None


def track_move(steps: int | None, ap: int, position: int, end: int, what: str) -> tuple[int, bool]:
    """Spaces moved on a track whose last space `end` is known, and whether 3.3's 2 gold apply.

    `steps` None means as far as the AP and the track allow.
    """
    room = end - position
    moved = min(ap, room) if steps is None else steps
    if moved > ap:
        raise RuleError(
            "3.1 action points",
            f"{moved} spaces need {moved} AP, only {ap} available",
            code="ap.not_enough",
            params={"spaces": moved, "ap": ap},
        )
    if moved > room:
        raise RuleError(
            f"3.3 end of the {what}",
            f"only {room} more space(s) to the end of the {what}",
            code="track.past_end",
            params={"room": room},
        )
    return moved, position + moved == end and ap > moved


def _shown(value: object) -> object:
    return value.value if isinstance(value, Colour) else value


def _check_readings(rule: str, field: str, readings: Sequence[tuple[str, object, object]]) -> None:
    """Refuse sheet readings that differ from what the box data's layout gives."""
    if all(given is None or given == wanted for _, given, wanted in readings):
        return
    differ = [
        f"{name} read {_shown(given)}, the box data gives {_shown(wanted)}"
        for name, given, wanted in readings
        if given is not None and given != wanted
    ]
    if differ:
        raise RuleError(
            rule,
            f"the sheet reading does not match {field} in the box data ({'; '.join(differ)}): "
            "read the sheet again, or fix the box data (docs/box-data.md)",
            code="track.reading_differs",
            params={
                "readings": ", ".join(
                    name
                    for name, given, wanted in readings
                    if given is not None and given != wanted
                )
            },
        )


def _move_on_unread_track(
    steps: int | None,
    ap: int,
    position: int,
    end: int | None,
    at_end: bool | None,
    positions: Sequence[int],
    what: str,
    rule: str,
) -> tuple[int, bool, bool, int | None]:
    """A move on a track whose layout the box data lacks: (moved, compensation, at end, learned end)."""
    if end is not None:
        moved, compensation = track_move(steps, ap, position, end, what)
        reached = position + moved == end
        if at_end is not None and at_end != reached:
            raise RuleError(
                rule,
                f"the end of the {what} was read at space {end} before, so this move "
                f"{'ends' if reached else 'does not end'} there (at_end read {at_end})",
                code="track.end_known",
                params={"end": end},
            )
        return moved, compensation, reached, None
    if steps is None:
        if at_end:
            raise RuleError(
                rule,
                f"where the {what} ends is not known yet: give how many spaces the disc moved (steps)",
                code="track.steps_needed",
            )
        steps = ap
    if steps > ap:
        raise RuleError(
            "3.1 action points",
            f"{steps} spaces need {steps} AP, only {ap} available",
            code="ap.not_enough",
            params={"spaces": steps, "ap": ap},
        )
    if not at_end:
        return steps, False, False, None
    if steps == 0:
        raise RuleError(
            rule,
            f"the disc did not move, so it did not reach the end of the {what} now",
            code="track.end_without_move",
        )
    learned = position + steps
    if max(positions) > learned:
        raise RuleError(
            rule,
            f"a disc already stands on space {max(positions)} of the {what}, "
            f"beyond the end read at space {learned}",
            code="track.disc_beyond_end",
            params={"position": max(positions), "end": learned},
        )
    return steps, ap > steps, True, learned


def _move_on_known_track(
    steps: int | None,
    ap: int,
    position: int,
    vps: Sequence[int],
    colours: Sequence[Colour] | None,
    what: str,
) -> Reached:
    """What a disc at `position` reaches on a track whose spaces' VP (and colours) the box knows."""
    end = len(vps) - 1
    moved, compensation = track_move(steps, ap, position, end, what)
    passed = vps[position + 1 : position + moved + 1]
    return Reached(
        moved,
        compensation,
        sum(1 for vp in passed if vp > 0),
        max(passed, default=0),
        position + moved == end,
        None if colours is None else colours[position + moved],
    )


def progress_move(state: GameState, player: Player, event: Progress, ap: int) -> Reached:
    """Brown (5.4): what moving `player`'s progress disc with `ap` AP reaches."""
    rule = "5.4 progress"
    position = player.progress
    track = state.box.progress_track
    if track is not None:
        reach = _move_on_known_track(event.steps, ap, position, track, None, "progress track")
        _check_readings(
            rule,
            "progress_track",
            (
                ("vp_spaces", event.vp_spaces, reach.vp_spaces),
                ("highest_vp", event.highest_vp, reach.highest_vp),
                ("at_end", event.at_end, reach.at_end),
            ),
        )
        return reach
    moved, compensation, at_end, learned = _move_on_unread_track(
        event.steps,
        ap,
        position,
        state.progress_end,
        event.at_end,
        [p.progress for p in state.players],
        "progress track",
        rule,
    )
    if moved == 0:
        if event.vp_spaces or event.highest_vp:
            raise RuleError(
                rule,
                "the disc did not move, so it reached no VP space",
                code="progress.no_move_no_vp",
            )
        return Reached(0, compensation, 0, 0, at_end, None, learned)
    if event.vp_spaces is None or event.highest_vp is None:
        raise MissingBoxDataError(
            rule,
            "the progress track's layout is unknown: read off your sheet how many VP spaces the "
            "disc reached or passed (vp_spaces) and the highest VP among them (highest_vp), "
            "or enter progress_track once from your box (docs/box-data.md)",
            code="progress.reading_needed",
        )
    if event.vp_spaces > moved:
        raise RuleError(
            rule,
            f"the disc moved {moved} space(s), so it cannot pass {event.vp_spaces} VP spaces",
            code="progress.vp_spaces_beyond_move",
            params={"moved": moved, "vp_spaces": event.vp_spaces},
        )
    if (event.vp_spaces == 0) != (event.highest_vp == 0):
        raise RuleError(
            rule,
            f"{event.vp_spaces} VP space(s) reached but a highest VP of {event.highest_vp}: "
            "both are 0, or neither is",
            code="progress.vp_pair",
            params={"vp_spaces": event.vp_spaces, "highest_vp": event.highest_vp},
        )
    return Reached(moved, compensation, event.vp_spaces, event.highest_vp, at_end, None, learned)


def order_move(state: GameState, player: Player, event: AdvanceOrder, ap: int) -> Reached:
    """White option 1 (5.7): what moving `player`'s order disc with `ap` AP reaches."""
    rule = "5.7 player order"
    position = player.track
    track = state.box.special_track
    if track is not None:
        reach = _move_on_known_track(
            event.steps,
            ap,
            position,
            [space.vp for space in track],
            [space.colour for space in track],
            "special action track",
        )
        _check_readings(
            rule,
            "special_track",
            (
                ("space_colour", event.space_colour, reach.colour),
                ("highest_vp", event.highest_vp, reach.highest_vp),
                ("at_end", event.at_end, reach.at_end),
            ),
        )
        return reach
    moved, compensation, at_end, learned = _move_on_unread_track(
        event.steps,
        ap,
        position,
        state.special_end,
        event.at_end,
        [p.track for p in state.players],
        "special action track",
        rule,
    )
    if moved == 0:
        known = player.track_colour
        if event.highest_vp or (
            event.space_colour is not None and known is not None and event.space_colour != known
        ):
            raise RuleError(
                rule,
                "the disc did not move: its space and the VP reached stay as they were",
                code="order.no_move_no_change",
            )
        return Reached(0, compensation, 0, 0, at_end, known, learned)
    if event.highest_vp is None:
        raise MissingBoxDataError(
            rule,
            "the special action track's layout is unknown: read off the track the highest VP "
            "printed on a space the disc reached or passed (highest_vp, 0 for none) and the colour "
            "of the space it landed on (space_colour), or enter special_track once from your box "
            "(docs/box-data.md)",
            code="order.reading_needed",
        )
    if event.space_colour is Colour.WHITE:
        raise RuleError(
            rule,
            "only the start space of the special action track is white: read the colour again",
            code="order.white_only_start",
        )
    return Reached(moved, compensation, 0, event.highest_vp, at_end, event.space_colour, learned)


def space_colour(state: GameState, player: Player) -> Colour | None:
    """The colour of the special-track space under the player's disc; None if nobody read it."""
    track = state.box.special_track
    if track is None:
        return player.track_colour
    return track[player.track].colour


def on_last_space(state: GameState, player: Player) -> bool:
    """True when the player's disc is on the special track's last space (box data or readings)."""
    track = state.box.special_track
    if track is None:
        return state.special_end is not None and player.track == state.special_end
    return player.track == len(track) - 1


def highest_vp_reached(track: Sequence[int] | None, position: int, read: int) -> int:
    """The highest VP printed on a track's spaces up to `position`; `read` when the layout is unknown."""
    if track is None:
        return read
    return max(track[: position + 1])
