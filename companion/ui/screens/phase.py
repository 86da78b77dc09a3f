"""The phase screen: the drop (tray picture, counts to confirm or correct) and then the turns
(whose turn, who follows, the actions with their AP, gold or VP instead)."""

from __future__ import annotations

from kivy.app import App
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.core.cubes import COLOURS, Colour, Counts
from companion.core.state import GameState, Stage
from companion.devices.readings import cubes_may_hide
from companion.ui import choices
from companion.ui.controller import Controller, PendingReading, action_name, source_name
from companion.ui.explain import reading_reason
from companion.ui.i18n import tr, trf
from companion.ui.screens.base import BaseScreen, load_kv
from companion.ui.widgets.colour_chip import ColourChip
from companion.ui.widgets.common import ColourButton, Counter
from companion.ui.widgets.tray_view import Marker

load_kv(__file__)


class DropPanel(BoxLayout):  # type: ignore[misc]
    """Seven +/- counters preset from the reading; Confirm, Stray cubes, Table bumped.

    `mode` is 'drop' (what landed after the drop), 'stray' (cubes that fell by themselves) or
    'correct' (the latest reading was wrong: these counts replace it).
    """

    controller = ObjectProperty(None)
    mode = StringProperty("drop")
    built = BooleanProperty(False)

    def build(self) -> None:
        """Create the seven counters once, in circuit order."""
        if self.built:
            return
        for colour in COLOURS:
            self.ids.counters.add_widget(Counter(colour=colour.value))
        self.built = True

    def counters(self) -> dict[Colour, Counter]:
        """The counter widget of every colour."""
        found: dict[Colour, Counter] = {}
        for widget in self.ids.counters.children:
            found[Colour(widget.colour)] = widget
        return found

    def counts(self) -> Counts:
        """The counts as the counters show them."""
        return Counts.of({colour: int(c.value) for colour, c in self.counters().items()})

    def preset(self, counts: Counts) -> None:
        """Set every counter (the person then corrects with +/-)."""
        for colour, counter in self.counters().items():
            counter.value = counts[colour]

    def confirm(self) -> None:
        """One tap: record the counts shown (as the drop, or as stray cubes)."""
        if self.mode == "stray":
            self.mode = "drop"
            if not self.controller.record_strays(self.counts()):
                self.mode = "stray"
        elif self.mode == "correct":
            self.mode = "drop"
            if not self.controller.correct_counts(self.counts()):
                self.mode = "correct"
        else:
            self.controller.confirm_counts(self.counts())

    def bumped(self) -> None:
        """Switch to counting cubes a bump of the table knocked out."""
        self._to_stray(tr("Count the cubes the bump knocked out, then confirm."))

    def _to_stray(self, prompt: str) -> None:
        self.mode = "stray"
        self.preset(Counts())
        self.controller.message = prompt
        App.get_running_app().refresh()
        self.controller.message = ""


class TurnPanel(BoxLayout):  # type: ignore[misc]
    """The current player's choices as big coloured buttons, and the alternatives."""

    controller = ObjectProperty(None)
    _shown_key: object = None

    def fill(self, controller: Controller) -> None:
        """Rebuild the buttons for the current player from the engine's answers."""
        state = controller.state
        grid = self.ids.actions
        if state is None or state.current_player is None:
            grid.clear_widgets()
            self._shown_key = None
            return
        offered = choices.action_choices(state)
        key = (state.events_applied, tuple(offered))
        if key == self._shown_key:
            return  # same choices as drawn: new buttons would each render their text again
        self._shown_key = key
        # Up to six buttons in two columns; more (special actions) in three or four, smaller.
        grid.cols = 2 if len(offered) <= 6 else 3 if len(offered) <= 9 else 4
        rows = -(-len(offered) // grid.cols)
        grid.clear_widgets()
        for choice in offered:
            assert choice.colour is not None
            name = action_name(choice.colour)
            if choice.kind == "special":
                name = trf("{action} (special)", action=name)
            button = ColourButton(
                colour=choice.colour.value,
                text=trf(
                    "{code} {action}\n{ap} AP", code=choice.colour.code, action=name, ap=choice.ap
                ),
                payload=choice,
            )
            if rows > 3:
                button.size_hint_min_y = None
                button.font_size = App.get_running_app().theme.font_s
            button.bind(on_release=self._chosen)
            grid.add_widget(button)
        gold = choices.alternative(state, "gold")
        self.ids.gold.text = trf("Gold +{gold}", gold=gold.amount) if gold else tr("Gold")
        self.ids.gold.disabled = gold is None
        vp = choices.alternative(state, "vp")
        self.ids.vp.text = trf("VP +{vp}", vp=vp.amount) if vp else tr("VP token")
        self.ids.vp.opacity = 1 if vp is not None else 0
        self.ids.vp.disabled = vp is None
        self.ids.pass_turn.disabled = not choices.can_pass(state)

    def _chosen(self, button: ColourButton) -> None:
        App.get_running_app().start_turn(button.payload)

    def take_gold(self) -> None:
        """Take gold instead of an action."""
        from companion.core.events import TakeGold

        state = self.controller.state
        if state is not None and state.current_player is not None:
            self.controller.apply(TakeGold(player=state.current_player))

    def take_vp(self) -> None:
        """Take VP instead of an action (VP-for-cubes token)."""
        from companion.core.events import TakeVictoryPoints

        state = self.controller.state
        if state is not None and state.current_player is not None:
            self.controller.apply(TakeVictoryPoints(player=state.current_player))

    def pass_turn(self) -> None:
        """Forfeit the phase."""
        from companion.core.events import Pass

        state = self.controller.state
        if state is not None and state.current_player is not None:
            self.controller.apply(Pass(player=state.current_player))


class PhaseScreen(BaseScreen):
    """Round and phase, tray picture with the cubes marked, tower contents, then drop or turns."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.drop_panel = DropPanel()
        self.turn_panel = TurnPanel()
        self.drop_panel.build()
        self._shown_revision = -1

    def refresh(self, controller: Controller) -> None:
        self.drop_panel.controller = controller
        self.turn_panel.controller = controller
        state = controller.state
        if state is None:
            return
        pending = controller.pending
        if pending is not None and pending.kind == "stray" and self.drop_panel.mode == "drop":
            # Cubes fell out between drops: the counts wait in the stray panel to be confirmed.
            self.drop_panel.mode = "stray"
            self.drop_panel.preset(pending.counts)
            controller.pending = None
        elif (
            pending is not None
            and pending.kind == "second look"
            and state.stage is Stage.TURNS
            and self.drop_panel.mode == "drop"
        ):
            # The camera saw the drop's cubes again once they were spread, and counts them
            # otherwise than recorded: its counts wait in the panel as a correction.
            self.drop_panel.mode = "correct"
            self.drop_panel.preset(pending.counts)
        self._show_reading(controller)
        self._show_tower(controller)
        self.ids.drop_now.opacity = 1 if self._can_drop(controller) else 0
        self.ids.drop_now.disabled = not self._can_drop(controller)
        self.ids.spread_now.opacity = 1 if self._can_spread(controller) else 0
        self.ids.spread_now.disabled = not self._can_spread(controller)
        body = self.ids.body
        in_turns = state.stage is Stage.TURNS and self.drop_panel.mode == "drop"
        mid_game = state.tower_event_count > 0 and self.drop_panel.mode == "drop"
        self.ids.fix_reading.disabled = not mid_game
        self.ids.stray_later.disabled = not mid_game
        wanted = self.turn_panel if in_turns else self.drop_panel
        if wanted.parent is not body:
            body.clear_widgets()
            body.add_widget(wanted)
        if in_turns:
            player = state.current_player
            assert player is not None
            after = [controller.marked_name(i) for i in choices.order_after(state)]
            if after:
                self.ids.prompt.text = trf(
                    "{name}'s turn · then {others}",
                    name=controller.marked_name(player),
                    others=", ".join(after),
                )
            else:
                self.ids.prompt.text = trf(
                    "{name}'s turn (last in this phase)", name=controller.marked_name(player)
                )
            self.turn_panel.fill(controller)
        else:
            if self.drop_panel.mode == "stray":
                self.ids.prompt.text = tr("Count the cubes that fell out, then confirm.")
            elif self.drop_panel.mode == "correct":
                self.ids.prompt.text = tr("Correct the last reading, then confirm.")
            elif state.stage is Stage.SETUP_DROP:
                self.ids.prompt.text = tr("Drop all 49 cubes, then confirm what landed.")
            elif state.stage is Stage.DROP:
                self.ids.prompt.text = trf(
                    "Drop the {colour} cubes, then confirm what landed.",
                    colour=colour_text(state.colour),
                )
            if controller.revision != self._shown_revision and self.drop_panel.mode == "drop":
                self.drop_panel.preset(controller.proposed_counts())
        self._shown_revision = controller.revision

    def _can_drop(self, controller: Controller) -> bool:
        state = controller.state
        devices = getattr(App.get_running_app(), "devices", None)
        return (
            devices is not None
            and state is not None
            and state.stage in (Stage.DROP, Stage.SETUP_DROP)
            and controller.pending is None
        )

    def _can_spread(self, controller: Controller) -> bool:
        # Only the simulated tower needs a hand played for it; real players just spread them.
        devices = getattr(App.get_running_app(), "devices", None)
        return devices is not None and devices.simulated and _worth_spreading(controller.pending)

    def spread_now(self) -> None:
        """A simulated hand spreads the tray's cubes apart: the camera looks again."""
        from companion.ui.bridge import spread_now

        spread_now(App.get_running_app())

    def drop_now(self) -> None:
        """Tell the devices the cubes are being dropped (the simulated tower drops them)."""
        from companion.ui.bridge import drop_now

        drop_now(App.get_running_app())

    def fix_reading(self) -> None:
        """The latest reading was wrong: correct its counts with +/- (during the turns)."""
        controller = self.drop_panel.controller
        if controller.game is None:
            return
        self.drop_panel.mode = "correct"
        self.drop_panel.preset(controller.latest_reading())
        self.refresh(self.drop_panel.controller)

    def stray_later(self) -> None:
        """Cubes fell out at the wrong time: count them (they wait for the next drop)."""
        self.drop_panel.mode = "stray"
        self.drop_panel.preset(Counts())
        self.refresh(self.drop_panel.controller)

    def _show_reading(self, controller: Controller) -> None:
        pending = controller.pending
        tray = self.ids.tray
        if pending is None:
            tray.show(None)
            self.ids.reading_note.text = tr("Waiting for a reading; you can count by hand.")
            return
        tray.show(pending.picture, [Marker(c, x, y) for c, x, y in pending.markers])
        if pending.confident:
            note = trf("{source}: sure ({confidence}%)", source=source_name(pending.source),
                       confidence=round(100 * pending.confidence))  # fmt: skip
        else:
            note = trf(
                "{source}: please check ({reasons})",
                source=source_name(pending.source),
                reasons="; ".join(reading_reason(r) for r in pending.reasons) or tr("unsure"),
            )
            if _worth_spreading(pending):
                note = tr("Spread the cubes apart: the camera counts again.") + ("\n" + note)
        self.ids.reading_note.text = note

    def _show_tower(self, controller: Controller) -> None:
        state = controller.state
        assert state is not None
        self.ids.tower_title.text = tower_title(state)
        grid = self.ids.tower
        if not grid.children:
            # Made once and only updated: new labels would each render a new texture.
            for colour in COLOURS:
                grid.add_widget(
                    ColourChip(
                        colour=colour.value,
                        text=colour.code,
                        font_size=App.get_running_app().theme.font_s,
                    )
                )
        for chip in grid.children:
            colour = Colour(chip.colour)
            n = state.tower[colour.position]
            # The icon tells the colour apart here; the code would not fit beside the count.
            text = str(n)
            if chip.text != text:
                chip.text = text
                chip.dimmed = n == 0


def _worth_spreading(pending: PendingReading | None) -> bool:
    """Whether the drop's reading doubts a cube hidden under or among others: one picture
    from above cannot show it, a second once the cubes lie apart can (and is no longer a
    "drop" reading: cubes already spread that still touch are for the person to count)."""
    return (
        pending is not None
        and pending.kind == "drop"
        and not pending.confident
        and cubes_may_hide(pending.reasons)
    )


def tower_title(state: GameState) -> str:
    """'In the tower', with the next drop's most likely AP from the engine's odds model."""
    from companion.core.odds import drop_odds

    if state.stage not in (Stage.DROP, Stage.TURNS):
        return tr("In the tower")
    odds = drop_odds(state)
    likely = max(range(len(odds.ap)), key=lambda k: odds.ap[k])
    return trf(
        "Tower · next drop {ap} AP ({percent}%)",
        ap=likely,
        percent=round(100 * odds.ap[likely]),
    )


def colour_text(colour: Colour) -> str:
    """A colour's name and code, e.g. 'blue (Bu)': the code helps colour-blind players."""
    from companion.ui.controller import colour_name

    return f"{colour_name(colour)} ({colour.code})"
