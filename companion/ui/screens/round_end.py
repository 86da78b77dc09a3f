"""Between rounds: the pirates' attack (strength, each player's cannons and losses), the next
round's preparation, and the pirate marker to turn face up (also at set-up)."""

from __future__ import annotations

from kivy.app import App
from kivy.properties import NumericProperty
from kivy.uix.label import Label

from companion.core.flow import pirate_strength_against
from companion.core.state import CATEGORY_INDEX, Category, GameState
from companion.ui.controller import Controller
from companion.ui.i18n import tr, trf
from companion.ui.screens.base import BaseScreen, load_kv

load_kv(__file__)


def last_round_end(controller: Controller) -> tuple[GameState, GameState] | None:
    """The states just before and just after the latest end of a round, if one happened."""
    game = controller.game
    if game is None:
        return None
    states = game.states
    for i in range(len(states) - 1, 0, -1):
        if states[i].round > states[i - 1].round or (
            states[i].finished and not states[i - 1].finished
        ):
            return states[i - 1], states[i]
    return None


class RoundEndScreen(BaseScreen):
    """Pirates and preparation; the reveal of the next pirate marker."""

    value = NumericProperty(0)

    def refresh(self, controller: Controller) -> None:
        self.controller = controller
        state = controller.state
        if state is None:
            return
        table = self.ids.table
        table.clear_widgets()
        ended = last_round_end(controller)
        theme = App.get_running_app().theme
        if ended is None:
            self.ids.title.text = tr("Set-up: the first pirate marker")
            self.ids.preparation.text = tr(
                "Shuffle the pirate markers, put five face down and one back in the box unseen, "
                "then turn one face up."
            )
        else:
            before, after = ended
            strength = sum(before.pirates)
            self.ids.title.text = trf(
                "Round {round}: pirates of strength {strength}",
                round=before.round,
                strength=strength,
            )
            for text in (tr("Player"), tr("Faced"), tr("Cannons"), tr("VP lost")):
                table.add_widget(self._cell(text, theme.muted, bold=True))
            index = CATEGORY_INDEX[Category.PIRATES]
            for i, player in enumerate(before.players):
                faced = pirate_strength_against(
                    before.players, i, strength, before.options.pirate_tokens_additive
                )
                lost = before.players[i].vp_by[index] - after.players[i].vp_by[index]
                cannons = f"{player.cannons} » {after.players[i].cannons}"
                colour = theme.bad if lost else theme.text
                name = self._cell(player.name, self.controller.player_colour(i).tint, bold=True)
                table.add_widget(name)
                for text in (str(faced), cannons, str(lost)):
                    table.add_widget(self._cell(text, colour))
            self.ids.preparation.text = tr(
                "Next round: discard the right half of the progress tokens, slide the left half "
                "over and deal four new; replace the production tokens; remove the top time "
                "marker; turn one more pirate marker face up."
            )
        self.ids.reveal_prompt.text = trf(
            "Pirates face up: {shown}. Turn the next marker face up and enter its strength.",
            shown=", ".join(str(p) for p in state.pirates) or "-",
        )

    def _cell(self, text: str, colour: object, bold: bool = False) -> Label:
        theme = App.get_running_app().theme
        label = Label(
            text=text,
            font_size=theme.font_m,
            color=colour,
            bold=bold,
            halign="left",
            valign="middle",
            shorten=True,
        )
        label.bind(size=lambda widget, size: setattr(widget, "text_size", size))
        return label

    def confirm(self) -> None:
        """Record the revealed pirate marker's strength."""
        if self.controller.reveal_pirate(int(self.value)):
            self.value = 0
