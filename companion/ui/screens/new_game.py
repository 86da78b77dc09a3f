"""New game: player count and names (remembered from earlier nights), the engine's rule options
with their defaults, and which box data to use. Start leads to the first pirate and the set-up
drop."""

from __future__ import annotations

import json
from pathlib import Path

from kivy.app import App
from kivy.properties import NumericProperty
from kivy.uix.textinput import TextInput

from companion.core.box import TEST_BOX
from companion.core.options import RuleOptions, TieBreak
from companion.ui.controller import Controller
from companion.ui.i18n import N_, tr
from companion.ui.saved_game import write_atomically
from companion.ui.screens.base import BaseScreen, load_kv
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

DEFAULT_NAMES = ("Ada", "Bruno", "Carla", "Dmitri")
"""Names offered the first time, before any night has been remembered."""


def players_file(directory: Path) -> Path:
    """Where the names of the last game's players are remembered."""
    return directory / "players.json"


def remembered_names(directory: Path) -> list[str]:
    """The names from the last game, or the defaults; an unreadable file is ignored."""
    try:
        names = json.loads(players_file(directory).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return list(DEFAULT_NAMES)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return list(DEFAULT_NAMES)
    return (names + list(DEFAULT_NAMES)[len(names) :])[:4]


class NewGameScreen(BaseScreen):
    """Choose players, names and rule options; Start begins the game."""

    count = NumericProperty(4)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.inputs: list[TextInput] = []
        self.options_form: Form | None = None
        self.bind(count=lambda *_: self._show_names())

    def refresh(self, controller: Controller) -> None:
        self.controller = controller
        if not self.inputs:
            theme = App.get_running_app().theme
            for name in remembered_names(controller.saved.directory):
                box = TextInput(
                    text=name,
                    multiline=False,
                    font_size=theme.font_m,
                    size_hint_y=None,
                    height=theme.touch * 0.8,
                    write_tab=False,
                )
                self.inputs.append(box)
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
        for box in self.inputs[: int(self.count)]:
            grid.add_widget(box)

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
        write_atomically(
            players_file(self.controller.saved.directory), json.dumps(names, ensure_ascii=False)
        )
        self.controller.new_game(names, options, TEST_BOX if use_test_box else None)
