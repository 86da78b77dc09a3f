"""The box data the engine needs from the owner: which figures are known, which are still
unknown, and drawings of the two tracks to compare against the real board."""

from __future__ import annotations

from kivy.app import App
from kivy.uix.label import Label

from companion.core.box import REAL_BOX, BoxData
from companion.ui.controller import Controller
from companion.ui.i18n import N_, tr, trf
from companion.ui.screens.base import BaseScreen, load_kv
from companion.ui.widgets.colour_chip import ColourChip

load_kv(__file__)

_FIELD_NAMES = {
    "progress_track": N_("progress track"),
    "special_track": N_("special action track"),
    "progress_tokens": N_("progress tokens"),
    "pirate_markers": N_("pirate markers"),
    "neutral_tiles": N_("neutral tiles"),
    "village_tiles": N_("village tiles"),
}


class BoxDataScreen(BaseScreen):
    """Shows the box data of the game in progress (or the real box's, before a game)."""

    def refresh(self, controller: Controller) -> None:
        state = controller.state
        box: BoxData = state.box if state is not None else REAL_BOX
        theme = App.get_running_app().theme
        self.ids.title.text = box.name
        known = [tr(n) for f, n in _FIELD_NAMES.items() if getattr(box, f) is not None]
        unknown = [tr(n) for f, n in _FIELD_NAMES.items() if getattr(box, f) is None]
        lines = [trf("Known: {fields}", fields=", ".join(known) or "-")]
        lines.append(trf("Still unknown: {fields}", fields=", ".join(unknown) or "-"))
        if unknown:
            lines.append(tr("Fill them in once from your box (docs/box-data.md)."))
        if box.pirate_markers is not None:
            lines.append(trf("Pirate markers: {values}",
                             values=", ".join(map(str, box.pirate_markers))))  # fmt: skip
        self.ids.fields.text = "\n".join(lines)
        special = self.ids.special
        special.clear_widgets()
        for space in box.special_track or ():
            text = str(space.vp) if space.vp else space.colour.code
            special.add_widget(ColourChip(colour=space.colour.value, text=text,
                                          font_size=theme.font_s))  # fmt: skip
        progress = self.ids.progress
        progress.clear_widgets()
        for vp in box.progress_track or ():
            progress.add_widget(Label(text=str(vp) if vp else "·", font_size=theme.font_s,
                                      color=theme.text))  # fmt: skip
