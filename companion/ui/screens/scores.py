"""Scores at any time: each player's VP by category, a chart of VP over the game; at the end,
final scoring revealed step by step in the rulebook's order, then the winner and why."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.uix.label import Label

from companion.core.components import ProgressKind
from companion.core.events import CashChest, UseGoldToken
from companion.core.options import TieBreak
from companion.core.state import CATEGORIES, Category, Stage
from companion.core.views import ranking, scores, winners
from companion.ui.controller import Controller
from companion.ui.i18n import N_, tr, trf
from companion.ui.screens.base import BaseScreen, load_kv
from companion.ui.widgets.common import BigButton
from companion.ui.widgets.vp_chart import VpChart

load_kv(__file__)

_CATEGORY_NAMES: dict[Category, str] = {
    Category.DISCOVERY: N_("Discoveries"),
    Category.TILES: N_("Tiles"),
    Category.COMPLETION: N_("Completions"),
    Category.COMPLETION_POSTS: N_("Island posts"),
    Category.GOLD_OVERFLOW: N_("Gold > 12"),
    Category.VP_TOKEN: N_("VP token"),
    Category.PIRATES: N_("Pirates"),
    Category.FINAL_GOLD_OVERFLOW: N_("End: gold > 12"),
    Category.FINAL_GOLD: N_("End: gold"),
    Category.FINAL_GOODS: N_("End: goods"),
    Category.FINAL_PROGRESS_TOKENS: N_("End: tokens"),
    Category.FINAL_PROGRESS_TRACK: N_("End: progress"),
    Category.FINAL_SPECIAL_TRACK: N_("End: special"),
}

FINAL_STEPS: tuple[tuple[Category, ...], ...] = (
    (Category.FINAL_GOLD_OVERFLOW, Category.FINAL_GOLD),
    (Category.FINAL_GOODS,),
    (Category.FINAL_PROGRESS_TOKENS, Category.FINAL_PROGRESS_TRACK),
    (Category.FINAL_SPECIAL_TRACK,),
)
"""Final scoring in the rulebook's order: gold, goods, progress, special actions (section 8)."""

CHART_POINTS = 120
"""At most this many points per line: enough to see the game's shape, cheap to draw."""


def category_name(category: Category) -> str:
    """A score category's name in the current language."""
    return tr(_CATEGORY_NAMES[category])


class ScoresScreen(BaseScreen):
    """The score table and chart; `final_step` counts the final-scoring steps revealed."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.final_step = 0
        self._chart_revision = -1

    def refresh(self, controller: Controller) -> None:
        self.controller = controller
        state = controller.state
        table = self.ids.table
        table.clear_widgets()
        theme = App.get_running_app().theme
        if state is None:
            self.ids.winner.text = tr("No game yet")
            return
        finished = state.stage is Stage.FINISHED
        if not finished:
            self.final_step = len(FINAL_STEPS)
        shown_final = {c for step in FINAL_STEPS[: self.final_step] for c in step}
        board = scores(state)
        table.cols = 1 + len(board)
        self._cell(tr("VP"), theme.muted, bold=True)
        for seat, score in enumerate(board):
            self._cell(score.name, controller.player_colour(seat).tint, bold=True)
        hidden = {c for step in FINAL_STEPS for c in step} - shown_final
        for category in CATEGORIES:
            if category in hidden:
                continue
            values = [s.by_category[category.value] for s in board]
            if not any(values):
                continue
            self._cell(category_name(category), theme.muted)
            for value in values:
                self._cell(str(value), theme.bad if value < 0 else theme.text)
        self._cell(tr("Total"), theme.text, bold=True)
        for score in board:
            partial = score.total - sum(score.by_category[c.value] for c in hidden)
            self._cell(str(partial), theme.text, bold=True)
        self.ids.next_step.disabled = not finished or self.final_step >= len(FINAL_STEPS)
        self.ids.next_step.opacity = 1 if finished else 0
        if finished and self.final_step >= len(FINAL_STEPS):
            self.ids.winner.text = winner_text(controller)
        elif finished:
            self.ids.winner.text = trf(
                "Final scoring, step {step} of {steps}", step=self.final_step, steps=4
            )
        else:
            leader = board[ranking(state)[0]]
            self.ids.winner.text = trf("Leading: {name} with {vp} VP", name=leader.name,
                                       vp=leader.total)  # fmt: skip
        self._extras(controller)
        if controller.revision != self._chart_revision:
            self._plot(controller)
            self._chart_revision = controller.revision

    def _plot(self, controller: Controller) -> None:
        game = controller.game
        assert game is not None
        states = game.states
        stride = max(1, len(states) // CHART_POINTS)
        picked = list(states[::stride])
        if picked[-1] is not states[-1]:
            picked.append(states[-1])
        names = [p.name for p in states[-1].players]
        series = [[s.players[i].vp for s in picked] for i in range(len(names))]
        chart: VpChart = self.ids.chart
        tints = [controller.player_colour(i).tint for i in range(len(names))]
        chart.plot(names, series, App.get_running_app().theme.font_s, tints)

    def _cell(self, text: str, colour: object, bold: bool = False) -> None:
        theme = App.get_running_app().theme
        label = Label(text=text, font_size=theme.font_s, color=colour, bold=bold,
                      halign="left", valign="middle", shorten=True)  # fmt: skip
        label.bind(size=lambda widget, size: setattr(widget, "text_size", size))
        # Category names get 36% of the width; the players share the rest equally.
        label.size_hint_x = None
        self.ids.table.add_widget(label)
        self._widths()

    def _widths(self, *_args: object) -> None:
        table = self.ids.table
        players = max(1, table.cols - 1)
        for index, cell in enumerate(reversed(table.children)):
            first = index % table.cols == 0
            cell.width = table.width * (0.36 if first else 0.64 / players)

    def on_kv_post(self, *_args: object) -> None:
        self.ids.table.bind(width=self._widths)

    def _extras(self, controller: Controller) -> None:
        """Buttons for what a player may do at any time: cash a chest, use a gold token."""
        state = controller.state
        grid = self.ids.extras
        grid.clear_widgets()
        self._extra_buttons: dict[tuple[int, str], BigButton] = {}
        if state is None or state.stage is Stage.FINISHED:
            return
        for index, player in enumerate(state.players):
            wanted: list[tuple[str, str, Any]] = []
            if player.chests:
                wanted.append(("chest", trf("{name}: chest +3 gold", name=player.name),
                               CashChest(player=index)))  # fmt: skip
            for kind, gold in ((ProgressKind.GOLD_3, 3), (ProgressKind.GOLD_5, 5)):
                if player.unused(kind):
                    wanted.append((f"token:{kind.value}",
                                   trf("{name}: token +{gold} gold", name=player.name, gold=gold),
                                   UseGoldToken(player=index, token=kind)))  # fmt: skip
            for key, text, event in wanted:
                button = BigButton(text=text, font_size=App.get_running_app().theme.font_s)
                button.bind(on_release=lambda _b, e=event: controller.apply(e))
                self._extra_buttons[(index, key)] = button
                grid.add_widget(button)

    def extra_button(self, player: int, key: str) -> BigButton:
        """The any-time button of a player ('chest' or 'token:gold_3'/'token:gold_5')."""
        return self._extra_buttons[(player, key)]

    def next_step(self) -> None:
        """Reveal the next step of final scoring."""
        self.final_step = min(len(FINAL_STEPS), self.final_step + 1)
        self.refresh(self.controller)

    def on_pre_enter(self, *_args: object) -> None:
        state = App.get_running_app().controller.state
        if state is not None and state.stage is Stage.FINISHED:
            self.final_step = 0

    def back(self) -> None:
        """Return to the screen the game needs."""
        App.get_running_app().show(self.controller.screen_for_stage())


def winner_text(controller: Controller) -> str:
    """Who won, and how a tie was broken (rule option: player order or special track)."""
    state = controller.state
    assert state is not None
    best = winners(state)
    order = ranking(state)
    top = state.players[order[0]]
    tied = [i for i in order if state.players[i].vp == top.vp]
    if len(best) > 1:
        return trf("Tie: {names} share the win with {vp} VP (same place on the special track).",
                   names=" & ".join(state.players[i].name for i in best), vp=top.vp)  # fmt: skip
    name = state.players[best[0]].name
    if len(tied) == 1:
        return trf("{name} wins with {vp} VP!", name=name, vp=top.vp)
    if state.options.tie_break is TieBreak.PLAYER_ORDER:
        why = tr("earlier in player order")
    else:
        why = tr("farther on the special action track")
    return trf("{name} wins with {vp} VP: tied, but {why}.", name=name, vp=top.vp, why=why)
