"""A player's turn: the chosen action, gold spent, and the outcome the engine needs.

Each action's outcome is described as data (`_SPECS`): main fields and lists of items (trading
posts, tiles, tokens). Every change is checked at once by applying the turn to a copy of the
state, so the players see the engine's verdict, and its reason, before they confirm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kivy.app import App
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.core.components import GOODS, ProgressKind, TileKind
from companion.core.cubes import COLOURS, Colour
from companion.core.errors import RuleError
from companion.core.events import (
    AdvanceOrder,
    Build,
    BuiltTile,
    BuyProduction,
    Event,
    LoadCannons,
    MoveShips,
    Plan,
    PostPlacement,
    ProductionBought,
    Progress,
    TokenTaken,
)
from companion.core.state import GameState
from companion.core.views import Choice
from companion.ui import choices
from companion.ui.controller import Controller, action_name
from companion.ui.explain import refusal
from companion.ui.i18n import N_, tr, trf
from companion.ui.screens.base import BaseScreen, load_kv
from companion.ui.widgets.form import Field, Form

load_kv(__file__)

Values = dict[str, Any]

_TOKEN_NAMES: dict[ProgressKind, str] = {
    ProgressKind.EXTRA_AP_ONE: N_("+2 AP"),
    ProgressKind.EXTRA_AP_TWO: N_("+1 AP, two actions"),
    ProgressKind.SHIPS_PLUS_8: N_("Ships +8"),
    ProgressKind.PIRATES_PLUS_2: N_("Pirates +2"),
    ProgressKind.HALF_LOSS: N_("Half loss"),
    ProgressKind.DEFENCE_BOUNTY: N_("Defence gold"),
    ProgressKind.DOUBLE_PLAN: N_("Double plan"),
    ProgressKind.GREEN_RED: N_("Green = red"),
    ProgressKind.GOLD_3: N_("3 gold"),
    ProgressKind.GOLD_5: N_("5 gold"),
    ProgressKind.POST_GOLD: N_("Gold per post"),
    ProgressKind.GOLD_2_1: N_("Gold 2:1"),
    ProgressKind.ORDER_JUMP: N_("Order jump"),
    ProgressKind.VP_FOR_CUBES: N_("VP for cubes"),
    ProgressKind.END_POSTS: N_("End: posts"),
    ProgressKind.END_7: N_("End: 7 VP"),
    ProgressKind.END_GOLD: N_("End: gold"),
}

_GOOD_NAMES = {
    "cotton": N_("cotton"),
    "tobacco": N_("tobacco"),
    "sugar": N_("sugar"),
    "coconut": N_("coconut"),
    "coffee": N_("coffee"),
}


def token_name(kind: ProgressKind) -> str:
    """A progress token kind's short name in the current language."""
    return tr(_TOKEN_NAMES[kind])


def good_name(good: str) -> str:
    """A good's name in the current language."""
    return tr(_GOOD_NAMES[good])


@dataclass(frozen=True)
class ItemSpec:
    """A list of things reported in one action (posts, tiles, ...): its form and how to list it."""

    name: str
    add_text: str
    fields: Callable[[], list[Field]]
    describe: Callable[[Values], str]


@dataclass(frozen=True)
class ActionSpec:
    """An action's outcome form: main fields, item lists, and how to make the event."""

    fields: Callable[[GameState, int], list[Field]]
    items: tuple[ItemSpec, ...]
    make: Callable[[int, int, bool, Values, dict[str, list[Values]]], Event]


def _steps_field(label: str) -> Field:
    return Field("steps", tr(label), "stepper", default=-1, low=-1, high=30,
                 unset_text=tr("as far as possible"))  # fmt: skip


def _colour_options(with_none: bool) -> tuple[tuple[Any, str], ...]:
    options: list[tuple[Any, str]] = [("", tr("none"))] if with_none else []
    return (*options, *((c.value, c.code) for c in COLOURS))


def _post_fields() -> list[Field]:
    return [
        Field("ship", tr("Ship"), "choice", default=0, options=((0, "1"), (1, "2"))),
        Field("island", tr("Island number"), "stepper", default=1, low=1, high=99),
        Field("big", tr("New island is"), "choice", default="known",
              options=(("known", tr("named")), ("small", tr("small")), ("big", tr("big")))),
        Field("completes", tr("Completes the island"), "toggle", default=False),
    ]  # fmt: skip


def _describe_post(v: Values) -> str:
    return trf("post on island {island} (ship {ship})", island=v["island"], ship=v["ship"] + 1)


def _plan_tile_fields() -> list[Field]:
    return [
        Field("tile", tr("Tile"), "choice", default="village",
              options=(("village", tr("village")), ("neutral", tr("neutral")))),
        Field("size", tr("Size (squares)"), "stepper", default=1, low=1, high=6),
    ]  # fmt: skip


def _describe_plan_tile(v: Values) -> str:
    kind = tr("village") if v["tile"] == "village" else tr("neutral")
    return f"{kind} {v['size']}"


def _build_tile_fields() -> list[Field]:
    return [
        Field("island", tr("Island number"), "stepper", default=1, low=1, high=99),
        *_plan_tile_fields(),
        Field("vp", tr("VP printed"), "stepper", default=-1, low=-1, high=20,
              unset_text=tr("from box")),
        *[Field(f"good:{g.value}", good_name(g.value), "stepper", default=0, low=0, high=4)
          for g in GOODS],
        Field("completes", tr("Completes the island"), "toggle", default=False),
    ]  # fmt: skip


def _describe_build_tile(v: Values) -> str:
    return trf("{tile} on island {island}", tile=_describe_plan_tile(v), island=v["island"])


def _token_fields() -> list[Field]:
    return [
        Field("token", tr("Token"), "choice", default=ProgressKind.END_7.value,
              options=tuple((k.value, token_name(k)) for k in ProgressKind)),
        Field("action1", tr("Action shown"), "choice", default="", options=_colour_options(True)),
        Field("action2", tr("Second action"), "choice", default="", options=_colour_options(True)),
        Field("half", tr("From the half"), "choice", default="right",
              options=(("left", tr("left")), ("right", tr("right")))),
    ]  # fmt: skip


def _describe_token(v: Values) -> str:
    shown = [Colour(a).code for a in (v["action1"], v["action2"]) if a]
    extra = f" ({'/'.join(shown)})" if shown else ""
    return token_name(ProgressKind(v["token"])) + extra


def _production_fields() -> list[Field]:
    return [
        Field("good", tr("Good"), "choice", default=GOODS[0].value,
              options=tuple((g.value, good_name(g.value)) for g in GOODS)),
        Field("cost", tr("Cost (AP)"), "choice", default=2,
              options=((2, "2"), (3, "3"), (4, "4"))),
    ]  # fmt: skip


def _describe_production(v: Values) -> str:
    return f"{good_name(v['good'])} {v['cost']}"


POSTS = ItemSpec("posts", N_("Add trading post"), _post_fields, _describe_post)
PLANNED = ItemSpec("planned", N_("Add tile"), _plan_tile_fields, _describe_plan_tile)
BUILT = ItemSpec("built", N_("Add built tile"), _build_tile_fields, _describe_build_tile)
TOKENS = ItemSpec("tokens", N_("Add token taken"), _token_fields, _describe_token)
PRODUCTION = ItemSpec("production", N_("Add token bought"), _production_fields,
                      _describe_production)  # fmt: skip


def _ships_fields(state: GameState, player: int) -> list[Field]:
    fields = [
        Field("steps0", tr("Ship 1 moves"), "stepper", default=0, low=0, high=40),
        Field("steps1", tr("Ship 2 moves"), "stepper", default=0, low=0, high=40),
    ]
    if state.players[player].unused(ProgressKind.SHIPS_PLUS_8):
        fields.append(Field("ships_token", tr("Use ships +8 token"), "toggle", default=False))
    return fields


def _make_ships(
    p: int, gold: int, special: bool, v: Values, items: dict[str, list[Values]]
) -> Event:
    posts = []
    for post in items.get("posts", []):
        big = {"known": None, "small": False, "big": True}[post["big"]]
        posts.append(PostPlacement(ship=post["ship"], island=post["island"], big=big,
                                   completes=post["completes"]))  # fmt: skip
    return MoveShips(player=p, gold_spent=gold, special=special, steps=(v["steps0"], v["steps1"]),
                     posts=tuple(posts), use_ships_token=bool(v.get("ships_token", False)))  # fmt: skip


def _make_cannons(
    p: int, gold: int, special: bool, v: Values, _i: dict[str, list[Values]]
) -> Event:
    return LoadCannons(player=p, gold_spent=gold, special=special, steps=v["steps"])


def _make_plan(
    p: int, gold: int, special: bool, _v: Values, items: dict[str, list[Values]]
) -> Event:
    tiles = items.get("planned", [])
    villages = tuple(t["size"] for t in tiles if t["tile"] == "village")
    neutrals = tuple(t["size"] for t in tiles if t["tile"] == "neutral")
    return Plan(player=p, gold_spent=gold, special=special, villages=villages, neutrals=neutrals)


def _progress_fields(state: GameState, player: int) -> list[Field]:
    fields = [_steps_field(N_("Spaces forward"))]
    if state.box.progress_track is None:
        # The box data lacks the track's layout: the player reads the move off their sheet.
        fields += [
            Field("vp_spaces", tr("VP spaces passed"), "stepper", default=0,
                  low=0, high=30),
            Field("highest_vp", tr("Highest VP"), "stepper", default=0, low=0,
                  high=50),
            Field("at_end", tr("On the last space"), "toggle", default=False),
        ]  # fmt: skip
    return fields


def _order_reading_fields() -> list[Field]:
    """The sheet reading of a white move, for a box whose special track layout is unknown."""
    colours = tuple((c.value, c.code) for c in COLOURS if c is not Colour.WHITE)
    return [
        Field("space_colour", tr("Space colour"), "choice", default="",
              options=(("", tr("not read")), *colours)),
        Field("highest_vp", tr("Highest VP"), "stepper",
              default=0, low=0, high=50),
        Field("at_end", tr("On the last space"), "toggle", default=False),
    ]  # fmt: skip


def _make_progress(
    p: int, gold: int, special: bool, v: Values, items: dict[str, list[Values]]
) -> Event:
    tokens = []
    for t in items.get("tokens", []):
        actions = tuple(Colour(a) for a in (t["action1"], t["action2"]) if a)
        tokens.append(TokenTaken(token=ProgressKind(t["token"]), actions=actions, half=t["half"]))
    return Progress(player=p, gold_spent=gold, special=special, steps=v["steps"],
                    tokens=tuple(tokens), vp_spaces=v.get("vp_spaces"),
                    highest_vp=v.get("highest_vp"), at_end=v.get("at_end"))  # fmt: skip


def _make_build(
    p: int, gold: int, special: bool, _v: Values, items: dict[str, list[Values]]
) -> Event:
    tiles = []
    for t in items.get("built", []):
        goods = []
        for g in GOODS:
            goods += [g] * int(t[f"good:{g.value}"])
        tiles.append(BuiltTile(island=t["island"], tile=TileKind(t["tile"]), size=t["size"],
                               vp=t["vp"], commodities=tuple(goods), completes=t["completes"]))  # fmt: skip
    return Build(player=p, gold_spent=gold, special=special, tiles=tuple(tiles))


def _make_production(
    p: int, gold: int, special: bool, _v: Values, items: dict[str, list[Values]]
) -> Event:
    bought = tuple(ProductionBought(good=t["good"], cost=t["cost"])
                   for t in items.get("production", []))  # fmt: skip
    return BuyProduction(player=p, gold_spent=gold, special=special, tokens=bought)


def _order_fields(state: GameState, player: int) -> list[Field]:
    fields = [_steps_field(N_("Spaces forward"))]
    if state.players[player].unused(ProgressKind.ORDER_JUMP) or (
        state.players[player].owns(ProgressKind.ORDER_JUMP) and not state.options.order_jump_once
    ):
        fields.append(Field("order_token", tr("Use order-jump token"), "toggle", default=False))
    if state.box.special_track is None:
        fields += _order_reading_fields()
    return fields


def _make_order(p: int, gold: int, special: bool, v: Values, _i: dict[str, list[Values]]) -> Event:
    colour = v.get("space_colour")
    return AdvanceOrder(player=p, gold_spent=gold, special=special, steps=v["steps"],
                        use_order_token=bool(v.get("order_token", False)),
                        space_colour=Colour(colour) if colour else None,
                        highest_vp=v.get("highest_vp"), at_end=v.get("at_end"))  # fmt: skip


_SPECS: dict[Colour, ActionSpec] = {
    Colour.BLUE: ActionSpec(_ships_fields, (POSTS,), _make_ships),
    Colour.BLACK: ActionSpec(lambda s, p: [_steps_field(N_("Cannons loaded"))], (), _make_cannons),
    Colour.RED: ActionSpec(lambda s, p: [], (PLANNED,), _make_plan),
    Colour.BROWN: ActionSpec(_progress_fields, (TOKENS,), _make_progress),
    Colour.GREEN: ActionSpec(lambda s, p: [], (BUILT,), _make_build),
    Colour.YELLOW: ActionSpec(lambda s, p: [], (PRODUCTION,), _make_production),
    Colour.WHITE: ActionSpec(_order_fields, (), _make_order),
}


class ItemSection(BoxLayout):  # type: ignore[misc]
    """A list of items being reported, with a form to add one more and a button to remove."""

    add_text = StringProperty("")
    count = NumericProperty(0)

    def setup(self, spec: ItemSpec, changed: Callable[[], None]) -> None:
        """Prepare the section for one item kind; `changed` is called after add or remove."""
        self.spec = spec
        self.items: list[Values] = []
        self.add_text = tr(spec.add_text)
        self._changed = changed
        self.ids.form.build(spec.fields())
        self._list()

    def add(self) -> None:
        """Add the item the form shows."""
        self.items.append(self.ids.form.values())
        self._list()
        self._changed()

    def remove_last(self) -> None:
        """Remove the latest item added."""
        if self.items:
            self.items.pop()
        self._list()
        self._changed()

    def _list(self) -> None:
        self.count = len(self.items)
        if self.items:
            self.ids.listing.text = ", ".join(self.spec.describe(v) for v in self.items)
        else:
            self.ids.listing.text = trf("{what}: none yet", what=tr(self.spec.add_text))


class TurnScreen(BaseScreen):
    """Fill in one action for the current player; confirm applies it, back returns to the phase."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.choice: Choice | None = None
        self.player: int | None = None
        self.main_form: Form | None = None
        self.sections: dict[str, ItemSection] = {}
        self._forms: dict[Colour, tuple[Form, dict[str, ItemSection]]] = {}

    def start(self, controller: Controller, choice: Choice) -> None:
        """Set the screen up for the current player taking this choice."""
        state = controller.state
        assert state is not None and state.current_player is not None and choice.colour is not None
        self.controller = controller
        self.choice = choice
        self.player = state.current_player
        spec = _SPECS[choice.colour]
        fields = self.ids.fields
        fields.clear_widgets()
        gold = state.players[self.player].gold
        # The action's own fields first: gold for AP is the rarer choice, so it comes last.
        main = spec.fields(state, self.player)
        main.append(Field("gold", tr("Gold spent for AP"), "stepper", default=0, low=0, high=gold))
        # Each action's forms are made once and reset for every later turn (see Form.build).
        cached = self._forms.get(choice.colour)
        if cached is None:
            form = Form()
            sections = {item.name: ItemSection() for item in spec.items}
            cached = self._forms[choice.colour] = (form, sections)
        self.main_form, self.sections = cached
        self.main_form.build(main)
        for row in self.main_form.children:
            row.unbind(value=self._value_changed)
            row.bind(value=self._value_changed)
        fields.add_widget(self.main_form)
        for item in spec.items:
            section = self.sections[item.name]
            section.setup(item, self.check)
            fields.add_widget(section)
        self.ids.scroll.scroll_y = 1
        self.ids.chip.colour = choice.colour.value
        self.check()

    def _value_changed(self, *_args: object) -> None:
        self.check()

    def event(self) -> Event | None:
        """The turn as the forms describe it, or None (and the verdict says why)."""
        if self.choice is None or self.player is None or self.main_form is None:
            return None
        assert self.choice.colour is not None
        values = self.main_form.values()
        items = {name: list(section.items) for name, section in self.sections.items()}
        spec = _SPECS[self.choice.colour]
        try:
            return spec.make(self.player, int(values["gold"]), self.choice.kind == "special",
                             values, items)  # fmt: skip
        except ValueError as error:
            self.ids.verdict.text = trf("Not complete: {reason}", reason=str(error))
            return None

    def check(self) -> None:
        """Ask the engine about the turn as it stands; show its verdict; enable Confirm."""
        state = self.controller.state
        choice = self.choice
        if state is None or choice is None or choice.colour is None or self.main_form is None:
            return
        gold = int(self.main_form.values()["gold"])
        name = action_name(choice.colour)
        if choice.kind == "special":
            name = trf("{action} (special)", action=name)
        self.ids.prompt.text = trf(
            "{player}: {action} · {ap} AP + {gold} gold",
            player=self.controller.marked_name(self.player or 0),
            action=name,
            ap=choice.ap,
            gold=gold,
        )
        event = self.event()
        if event is None:
            self.ids.confirm.disabled = True
            return
        after = choices.preview(state, event)
        if isinstance(after, RuleError):
            self.ids.verdict.text = trf("Not allowed: {reason}", reason=refusal(after))
            self.ids.verdict.color = App.get_running_app().theme.warn
            self.ids.confirm.disabled = True
            return
        self.ids.verdict.text = describe_change(state, after, self.player or 0)
        self.ids.verdict.color = App.get_running_app().theme.text
        self.ids.confirm.disabled = False

    def confirm(self) -> None:
        """Apply the turn; on success the app returns to the phase screen."""
        event = self.event()
        if event is not None and self.controller.apply(event):
            self.choice = None

    def back(self) -> None:
        """Leave without recording anything."""
        self.choice = None
        App.get_running_app().show("phase")

    def refresh(self, controller: Controller) -> None:
        self.controller = controller


def describe_change(before: GameState, after: GameState, player: int) -> str:
    """What the turn does to the player: VP, gold, cannons, in words ('+3 VP, -2 gold')."""
    old, new = before.players[player], after.players[player]
    parts = []
    for label, a, b in (
        (tr("VP"), old.vp, new.vp),
        (tr("gold"), old.gold, new.gold),
        (tr("cannons"), old.cannons, new.cannons),
        (tr("progress"), old.progress, new.progress),
        (tr("order track"), old.track, new.track),
    ):
        if b != a:
            parts.append(f"{b - a:+d} {label}")
    if not parts:
        return tr("Allowed. Nothing changes on the tracks.")
    return trf("Allowed: {changes}", changes=", ".join(parts))
