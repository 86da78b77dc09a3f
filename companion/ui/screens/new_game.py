"""New game: player count and names (remembered from earlier nights), the engine's rule options
with their defaults, and which box data to use. Start leads to the first pirate and the set-up
drop."""

from __future__ import annotations

from kivy.app import App
from kivy.properties import NumericProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.textinput import TextInput

from companion.core.box import TEST_BOX
from companion.core.options import RuleOptions, TieBreak
from companion.ui.controller import Controller
from companion.ui.i18n import N_, tr
from companion.ui.player_colours import PLAYER_COLOURS, colour_by_key
from companion.ui.remembered import RememberedPlayer, remember_players, remembered_players
from companion.ui.screens.base import BaseScreen, load_kv
from companion.ui.widgets.common import BigButton
from companion.ui.widgets.form import Field, Form

load_kv(__file__)

_OPTION_LABELS: dict[str, str] = {
    "special_action_token_bonus": N_("Token AP bonus on special actions"),
    "white_needs_white_cubes": N_("Special action needs white cubes"),
    "last_space_any_colour": N_("Last order space: white is any colour"),
    "order_jump_once": N_("Order-jump token once only"),
    "ships_token_once": N_("Ships +8 token once only"),
    "vp_token_once": N_("VP token once only"),
    "stationary_ship_places_post": N_("Ship that did not move may place a post"),
    "pirate_tokens_additive": N_("Pirates +2 tokens add up"),
    "refuse_wasted_gold": N_("Refuse gold spent on unusable AP"),
    "drop_strays_with_empty_storage": N_("Drop stray cubes even with empty storage"),
    "tie_break": N_("Tie-break"),
}


class NewGameScreen(BaseScreen):
    """Choose players, names and rule options; Start begins the game."""

    count = NumericProperty(4)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.inputs: list[TextInput] = []
        self.colour_buttons: list[BigButton] = []
        self.colours: list[str] = []
        self.rows: list[BoxLayout] = []
        self.options_form: Form | None = None
        self.bind(count=lambda *_: self._show_names())

    def refresh(self, controller: Controller) -> None:
        self.controller = controller
        if not self.inputs:
            theme = App.get_running_app().theme
            for seat, player in enumerate(remembered_players(controller.saved.directory)):
                row = BoxLayout(size_hint_y=None, height=theme.touch * 0.8, spacing=theme.pad / 2)
                box = TextInput(text=player.name, multiline=False, font_size=theme.font_m,
                                write_tab=False)  # fmt: skip
                button = BigButton(size_hint_x=0.7, font_size=theme.font_s)
                button.name = f"colour:{seat}"
                button.bind(on_release=lambda _b, s=seat: self.next_colour(s))
                row.add_widget(box)
                row.add_widget(button)
                self.inputs.append(box)
                self.colour_buttons.append(button)
                self.colours.append(colour_by_key(player.colour, seat).key)
                self.rows.append(row)
            self._show_colours()
            self._show_names()
        if self.options_form is None:
            defaults = RuleOptions()
            fields = []
            for name in RuleOptions.model_fields:
                label = tr(_OPTION_LABELS[name])
                value = getattr(defaults, name)
                if isinstance(value, bool):
                    fields.append(Field(name, label, "toggle", default=value))
                else:
                    fields.append(Field(name, label, "choice", default=TieBreak(value).value,
                                        options=((TieBreak.PLAYER_ORDER.value, tr("player order")),
                                                 (TieBreak.TRACK_POSITION.value, tr("track")))))  # fmt: skip
            # The made-up test box is for trying the app; a real game uses the owner's box data.
            fields.append(Field("test_box", tr("Use the made-up test box"), "toggle",
                                default=False))  # fmt: skip
            self.options_form = Form(label_share=0.66)
            self.options_form.build(fields)
            self.ids.options.add_widget(self.options_form)

    def _show_names(self) -> None:
        grid = self.ids.names
        grid.clear_widgets()
        for row in self.rows[: int(self.count)]:
            grid.add_widget(row)

    def next_colour(self, seat: int) -> None:
        """Give the seat the next player colour; the player who had it takes this seat's."""
        keys = [c.key for c in PLAYER_COLOURS]
        wanted = keys[(keys.index(self.colours[seat]) + 1) % len(keys)]
        if wanted in self.colours:
            self.colours[self.colours.index(wanted)] = self.colours[seat]
        self.colours[seat] = wanted
        self._show_colours()

    def _show_colours(self) -> None:
        for seat, button in enumerate(self.colour_buttons):
            colour = colour_by_key(self.colours[seat], seat)
            # The colour's name is written on its swatch: the colour is never the only cue.
            button.text = colour.label()
            button.tint = colour.tint
            button.color = (0.05, 0.05, 0.05, 1)

    def names(self) -> list[str]:
        """The names typed in, for the chosen player count (blank ones get a number)."""
        chosen = []
        for i, box in enumerate(self.inputs[: int(self.count)]):
            chosen.append(box.text.strip() or f"{tr('Player')} {i + 1}")
        return chosen

    def start(self) -> None:
        """Start the game with these players and options; remember the names."""
        assert self.options_form is not None
        values = self.options_form.values()
        use_test_box = bool(values.pop("test_box"))
        options = RuleOptions(**values)
        names = self.names()
        if len(set(names)) != len(names):
            self.controller.message = tr("Two players have the same name; please change one.")
            App.get_running_app().refresh()
            return
        # All four rows are remembered, the game's players first, with their colours.
        everyone = names + [box.text.strip() for box in self.inputs[len(names) :]]
        remember_players(self.controller.saved.directory,
                         [RememberedPlayer(n, c) for n, c in zip(everyone, self.colours,
                                                                 strict=True)])  # fmt: skip
        self.controller.new_game(names, options, TEST_BOX if use_test_box else None)
