"""The box data the engine needs from the owner: entered once, line by line, with drawings of
the two tracks that follow the typing so they can be compared with the real board. Saved in the
data directory and used for every new game (the game in progress keeps the box it began with)."""

from __future__ import annotations

from kivy.app import App
from kivy.uix.label import Label
from kivy.uix.textinput import TextInput

from companion.core.box import BoxData
from companion.core.cubes import Colour
from companion.ui import box_text
from companion.ui.box_store import box_path, save_owner_box
from companion.ui.controller import Controller
from companion.ui.i18n import N_, tr, trf
from companion.ui.screens.base import BaseScreen, load_kv
from companion.ui.widgets.colour_chip import ColourChip

load_kv(__file__)

FIELD_NAMES = {
    "progress_track": N_("progress track"),
    "special_track": N_("special action track"),
    "progress_tokens": N_("progress tokens"),
    "pirate_markers": N_("pirate markers"),
    "neutral_tiles": N_("neutral tiles"),
    "village_tiles": N_("village tiles"),
}

_HINTS = {
    "progress_track": N_("VP of each space from the start: 0 0 0 1 0 0 3 ..."),
    "special_track": N_(
        "Colour code of each space from the white start, VP after a colon: Wh Ye Gn Br:1 ..."
    ),
    "progress_tokens": N_(
        "Kind, the actions an extra-AP token shows, count: extra_ap_one Bu, end_7 x2, gold_3 ..."
    ),
    "pirate_markers": N_("The six printed strengths: 0 0 2 3 4 6"),
    "neutral_tiles": N_("size:count:VP small island:VP big island, e.g. 1:7:0:1, 2:8:1:2"),
    "village_tiles": N_("One player's tiles, size:count:VP small:VP big, e.g. 1:4:0:1"),
}


class BoxDataScreen(BaseScreen):
    """Edit the owner's box data; Save is enabled when the engine's model accepts it."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.inputs: dict[str, TextInput] = {}
        self.candidate: BoxData | None = None
        self.saved_box: BoxData | None = None

    def refresh(self, controller: Controller) -> None:
        self.controller = controller
        box = controller.owner_box()
        if not self.inputs:
            self._build_inputs()
        if box != self.saved_box:
            # Show what is stored (first visit, or a file set aside); typing is kept otherwise.
            self.saved_box = box
            for field, text in box_text.box_texts(box).items():
                self.inputs[field].text = text
        self.changed()

    def _build_inputs(self) -> None:
        theme = App.get_running_app().theme
        lines = self.ids.lines
        for field in box_text.FIELDS:
            lines.add_widget(
                Label(
                    text=f"{tr(FIELD_NAMES[field])}: {tr(_HINTS[field])}",
                    font_size=theme.font_s,
                    color=theme.muted,
                    size_hint_y=None,
                    height=theme.font_s * 2.8,
                    text_size=(None, None),
                    halign="left",
                    valign="middle",
                )
            )
            entry = TextInput(multiline=False, font_size=theme.font_s, size_hint_y=None,
                              height=theme.touch * 0.8, write_tab=False)  # fmt: skip
            entry.name = field
            entry.bind(text=lambda *_: self.changed())
            self.inputs[field] = entry
            lines.add_widget(entry)
        for label in lines.children:
            if isinstance(label, Label):
                # Hints wrap to the width; their height follows the wrapped text.
                label.bind(width=lambda w, width: setattr(w, "text_size", (width, None)))
                label.bind(texture_size=lambda w, size: setattr(w, "height", size[1] + 4))

    def texts(self) -> dict[str, str]:
        """What the owner typed, line by line."""
        return {field: entry.text for field, entry in self.inputs.items()}

    def changed(self) -> None:
        """Redraw the tracks from the lines as typed and check the whole box with the engine."""
        texts = self.texts()
        self._draw(texts)
        theme = App.get_running_app().theme
        try:
            self.candidate = box_text.parse_box(texts)
        except box_text.BoxTextError as error:
            reason = f"{tr(FIELD_NAMES[error.field])}: " + tr(error.template).format(
                word=error.word, choices=error.choices
            )
            self._refuse(reason)
            return
        except ValueError as error:
            # The engine's model: its own (English) words, naming the field.
            self._refuse(str(error))
            return
        unknown = [tr(FIELD_NAMES[f]) for f in box_text.unknown_fields(self.candidate)]
        self.ids.verdict.text = trf("Valid. Still unknown: {fields}",
                                    fields=", ".join(unknown) or "-")  # fmt: skip
        self.ids.verdict.color = theme.text
        self.ids.save.disabled = self.saved_box is not None and box_text.same_figures(
            self.candidate, self.saved_box
        )

    def _refuse(self, reason: str) -> None:
        self.candidate = None
        self.ids.verdict.text = trf("Not yet valid: {reason}", reason=reason)
        self.ids.verdict.color = App.get_running_app().theme.warn
        self.ids.save.disabled = True

    def _draw(self, texts: dict[str, str]) -> None:
        theme = App.get_running_app().theme
        special = self.ids.special
        special.clear_widgets()
        try:
            spaces = box_text.parse_field("special_track", texts["special_track"]) or []
        except ValueError:
            spaces = []
        for space in spaces:
            # The code always shows: colour is never the only cue.
            code = Colour(space["colour"]).code
            # A track may have some twenty spaces: the VP goes under the code, in small type.
            text = f"{code}\n{space['vp']}" if space["vp"] else code
            special.add_widget(ColourChip(colour=space["colour"], text=text,
                                          font_size=theme.font_s * 0.75))  # fmt: skip
        progress = self.ids.progress
        progress.clear_widgets()
        try:
            values = box_text.parse_field("progress_track", texts["progress_track"]) or []
        except ValueError:
            values = []
        for vp in values:
            progress.add_widget(Label(text=str(vp) if vp else "·", font_size=theme.font_s,
                                      color=theme.text))  # fmt: skip

    def save(self) -> None:
        """Store the box data for new games (atomically)."""
        if self.candidate is None:
            return
        save_owner_box(self.controller.saved.directory, self.candidate)
        self.saved_box = self.candidate
        self.controller.message = trf(
            "Box data saved ({path}); new games use it.",
            path=str(box_path(self.controller.saved.directory)),
        )
        App.get_running_app().refresh()
