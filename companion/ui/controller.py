"""The app's one model: the engine's game, the reading waiting to be confirmed, the saved log.

Screens read from here and call here; nothing here knows a widget. Every change to the game goes
through `_record`, which saves the whole log atomically before the screens redraw, so what the
players see has always been written down first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.core.box import BoxData
from companion.core.corrections import latest_reading
from companion.core.cubes import Colour, Counts
from companion.core.errors import LogError, RuleError, UndoError
from companion.core.events import (
    Correction,
    Drop,
    Event,
    PirateRevealed,
    SetupDrop,
    StrayCubes,
)
from companion.core.game import Game
from companion.core.options import RuleOptions
from companion.core.state import GameState, Stage
from companion.ui.box_store import load_owner_box
from companion.ui.i18n import N_, tr, trf
from companion.ui.player_colours import PlayerColour, colour_by_key, marked_name
from companion.ui.saved_game import SavedGame
from companion.vision.reading import TrayReading


@dataclass(frozen=True)
class PendingReading:
    """A reading that arrived and waits for a person to confirm or correct it.

    `picture` is BGR (height x width x 3) or None; `markers` are cubes to mark on it as
    (colour, x, y) in picture pixels (empty when the picture is already annotated).
    """

    counts: Counts
    source: str
    confident: bool
    confidence: float
    reasons: tuple[str, ...] = ()
    kind: str = "drop"
    """'drop' for what a drop brought; 'stray' for cubes that fell out between drops;
    'second look' for the latest drop read again after people spread its cubes by hand."""
    picture: Any = field(default=None, repr=False, compare=False)
    markers: tuple[tuple[Colour, float, float], ...] = ()

    @classmethod
    def from_tray(cls, reading: TrayReading, source: str) -> PendingReading:
        """From the vision's reading of one picture (cubes marked on the picture)."""
        return cls(
            counts=reading.counts,
            source=source,
            confident=reading.confident,
            confidence=reading.confidence,
            reasons=tuple(reading.reasons),
            picture=reading.picture,
            markers=tuple((c.colour, c.x, c.y) for c in reading.cubes),
        )


Listener = Callable[[], None]


class Controller(EventDispatcher):  # type: ignore[misc]
    """Holds the game in progress and the latest tray reading; tells listeners after changes."""

    headline = StringProperty("")
    subline = StringProperty("")
    message = StringProperty("")
    phase_colour = StringProperty(Colour.WHITE.value)
    phase_colour_active = BooleanProperty(False)
    can_undo = BooleanProperty(False)
    revision = NumericProperty(0)
    """Counts the changes; bound by the benchmark and the tests to know a redraw is due."""

    def __init__(self, saved: SavedGame, box_factory: Callable[[], object] | None = None) -> None:
        super().__init__()
        self.saved = saved
        self.game: Game | None = None
        self.pending: PendingReading | None = None
        self.last_error = ""
        self.navigate_to: str | None = None
        self._listeners: list[Listener] = []
        self._box_factory = box_factory

    # ---- listeners ---------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        """Call `listener()` after every change (on the UI thread)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        self._update_header()
        self.revision += 1
        for listener in list(self._listeners):
            listener()

    # ---- the game ----------------------------------------------------------------------------

    @property
    def state(self) -> GameState | None:
        """The state after the latest event, or None before a game is started."""
        return self.game.state if self.game is not None else None

    def resume(self) -> bool:
        """Load the saved game in progress, if any; True when one was resumed.

        A log that cannot be replayed is moved aside (never deleted) and the message says where.
        """
        text = self.saved.load()
        if text is None:
            return False
        try:
            self.game = Game.from_json(text)
        except (LogError, ValueError) as error:
            kept = self.saved.set_aside(str(error))
            self.message = trf(
                "The saved game could not be read ({reason}); it was kept as {path}.",
                reason=str(error),
                path=str(kept),
            )
            self.game = None
            self._changed()
            return False
        self.message = tr("The game in progress was resumed.")
        self.navigate_to = self.screen_for_stage()
        self._changed()
        return True

    def owner_box(self) -> BoxData:
        """The box data the owner entered (REAL_BOX until then). A file that cannot be read is
        set aside, never deleted, and `message` says where it went."""
        loaded = load_owner_box(self.saved.directory)
        if loaded.set_aside is not None:
            self.message = trf(
                "The box data file could not be read ({reason}); it was kept as {path}. "
                "Enter the box data again.",
                reason=loaded.reason,
                path=str(loaded.set_aside),
            )
        return loaded.box

    def new_game(self, names: list[str], options: RuleOptions, box: object | None = None) -> None:
        """Start a new game with these players (top of the starting stack first); without a
        box given, the owner's box data (see `owner_box`)."""
        self.message = ""
        chosen = box if isinstance(box, BoxData) else self.owner_box()
        # A box data file set aside just now must still be reported with the new game.
        note = self.message
        if self.saved.load() is not None:
            # The previous game (finished or not) is archived, never overwritten.
            self.saved.finish()
        self.game = Game.new(names, options=options, box=chosen)
        self.pending = None
        self.saved.save(self.game.to_json())
        self.message = " ".join(
            filter(None, (note, tr("New game: turn the first pirate marker face up.")))
        )
        self.navigate_to = self.screen_for_stage()
        self._changed()

    def apply(self, event: Event) -> bool:
        """Apply one event and save the log; False (and `message` explains) if the rules refuse."""
        if self.game is None:
            self.message = tr("Start a game first.")
            self._changed()
            return False
        before = self.game.state.stage
        try:
            self.game.apply(event)
        except RuleError as error:
            self.last_error = str(error)
            from companion.ui.explain import refusal

            self.message = trf("Not allowed: {reason}", reason=refusal(error))
            self._changed()
            return False
        self.saved.save(self.game.to_json())
        self.last_error = ""
        self.message = ""
        if self.game.state.stage is not before or self.game.state.stage is Stage.TURNS:
            self.navigate_to = self.screen_for_stage()
        if isinstance(event, SetupDrop | Drop | Correction | StrayCubes):
            self.pending = None
        self._changed()
        return True

    def undo(self) -> None:
        """Take back the latest event unless it was cubes falling; saves the shorter log."""
        if self.game is None:
            return
        try:
            self.game.undo()
        except UndoError as error:
            self.message = trf("Cannot undo: {reason}", reason=str(error))
            self._changed()
            return
        self.saved.save(self.game.to_json())
        self.message = tr("Undone.")
        self.navigate_to = self.screen_for_stage()
        self._changed()

    # ---- tray readings -----------------------------------------------------------------------

    def offer_reading(self, reading: PendingReading) -> None:
        """A reading arrived (camera, sensor): show it for confirmation. UI thread only."""
        if reading.kind == "second look" and not self._news(reading):
            return
        self.pending = reading
        self._changed()

    def _news(self, second_look: PendingReading) -> bool:
        """Whether a second look at the latest drop tells the players anything: while that
        drop waits to be confirmed, it replaces the reading shown; during its turns, it is
        offered as a correction when it differs from the counts recorded. Once the game has
        gone on to another drop, it is about cubes no longer in play."""
        state = self.state
        if state is None:
            return False
        if state.stage in (Stage.DROP, Stage.SETUP_DROP):
            return self.pending is not None and self.pending.kind != "stray"
        if state.stage is not Stage.TURNS:
            return False
        assert self.game is not None
        found = latest_reading(self.game.events)
        if found is None:
            return False
        index, counts = found
        # Strays typed in since the drop lie in the tray too: a second look would count them
        # as the drop's.
        return isinstance(self.game.events[index], Drop) and second_look.counts != counts

    def confirm_counts(self, counts: Counts) -> bool:
        """Record what landed in the tray: the set-up drop or the phase's drop."""
        state = self.state
        if state is None:
            return False
        if state.stage is Stage.SETUP_DROP:
            return self.apply(SetupDrop(counts=counts))
        if state.stage is Stage.DROP:
            return self.apply(Drop(counts=counts))
        # After the drop the counts can only replace the latest reading.
        return self.correct_counts(counts)

    def correct_counts(self, counts: Counts) -> bool:
        """The latest reading was wrong: these counts replace it (the cubes did not move).

        The counts as recorded are no correction: they keep the reading (how a person turns
        down a second look, or backs out of fixing a reading) and nothing is logged.
        """
        if self.game is not None and counts == self.latest_reading():
            self.pending = None
            self.message = tr("Kept the counts as recorded.")
            self._changed()
            return True
        return self.apply(Correction(counts=counts))

    def record_strays(self, counts: Counts) -> bool:
        """Cubes fell out at the wrong time (or a bump knocked them out): they wait in the tray."""
        if counts.total == 0:
            self.message = tr("Count the cubes that fell out first (use +).")
            self._changed()
            return False
        return self.apply(StrayCubes(counts=counts))

    def reveal_pirate(self, value: int) -> bool:
        """A pirate marker was turned face up showing `value`."""
        return self.apply(PirateRevealed(value=value))

    # ---- what the screens show ---------------------------------------------------------------

    def screen_for_stage(self) -> str:
        """The screen the game needs now."""
        state = self.state
        if state is None:
            return "new_game"
        if state.stage is Stage.REVEAL_PIRATE:
            return "round_end"
        if state.stage is Stage.FINISHED:
            return "scores"
        return "phase"

    def take_navigation(self) -> str | None:
        """The screen to switch to after the latest change, once; None to stay."""
        target, self.navigate_to = self.navigate_to, None
        return target

    def proposed_counts(self) -> Counts:
        """The counts to start the +/- panel from: the pending reading's, else none."""
        if self.pending is not None:
            return self.pending.counts
        return Counts()

    def latest_reading(self) -> Counts:
        """The counts of the latest tray reading (the set-up drop, a drop or stray cubes: the
        one a correction replaces) as recorded after any correction, else none."""
        found = latest_reading(self.game.events) if self.game is not None else None
        return found[1] if found is not None else Counts()

    def player_name(self, index: int) -> str:
        """A player's name by index."""
        state = self.state
        return state.players[index].name if state is not None else "?"

    def player_colour(self, index: int) -> PlayerColour:
        """A player's colour by index: as chosen for this game (remembered by name)."""
        from companion.ui.remembered import remembered_players

        chosen = {p.name: p.colour for p in remembered_players(self.saved.directory)}
        return colour_by_key(chosen.get(self.player_name(index)), index)

    def marked_name(self, index: int) -> str:
        """A player's name as markup in their colour (the name is always written out)."""
        return marked_name(self.player_name(index), self.player_colour(index))

    def refresh_texts(self) -> None:
        """Redo the header's texts in the language now in force (after a switch)."""
        self._changed()

    def _update_header(self) -> None:
        state = self.state
        self.can_undo = bool(self.game is not None and self.game.can_undo)
        self.subline = ""
        if state is None:
            self.headline = tr("No game yet")
            self.phase_colour_active = False
            return
        colour = state.colour
        self.phase_colour = colour.value
        self.phase_colour_active = state.stage in (Stage.DROP, Stage.TURNS)
        if state.stage is Stage.FINISHED:
            self.headline = tr("Game over")
        elif state.stage is Stage.SETUP_DROP:
            self.headline = tr("Set-up drop")
        elif state.stage is Stage.REVEAL_PIRATE:
            self.headline = trf("Round {round}: pirates", round=state.round)
        else:
            self.headline = trf(
                "Round {round}/5 · phase {phase}/7", round=state.round, phase=state.phase + 1
            )
            self.subline = action_name(colour)


_ACTION_NAMES: dict[Colour, str] = {
    Colour.BLUE: N_("Move ships"),
    Colour.BLACK: N_("Load cannons"),
    Colour.RED: N_("Plan"),
    Colour.BROWN: N_("Progress"),
    Colour.GREEN: N_("Build"),
    Colour.YELLOW: N_("Buy goods"),
    Colour.WHITE: N_("Player order"),
}


def action_name(colour: Colour) -> str:
    """The action a colour's cubes allow, in the current language."""
    return tr(_ACTION_NAMES[colour])


SOURCE_NAMES: tuple[str, ...] = (
    N_("camera"),
    N_("sensor"),
    N_("manual"),
    N_("simulated camera"),
)
"""Where readings come from, as the devices and the demo name them (translated when shown)."""


def source_name(source: str) -> str:
    """A reading source's name in the current language (unknown names as they are)."""
    return tr(source)


_COLOUR_NAMES: dict[Colour, str] = {
    Colour.BLUE: N_("blue"),
    Colour.BLACK: N_("black"),
    Colour.RED: N_("red"),
    Colour.BROWN: N_("brown"),
    Colour.GREEN: N_("green"),
    Colour.YELLOW: N_("yellow"),
    Colour.WHITE: N_("white"),
}


def colour_name(colour: Colour) -> str:
    """A colour's name in the current language."""
    return tr(_COLOUR_NAMES[colour])
