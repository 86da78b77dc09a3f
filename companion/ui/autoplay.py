"""Enter any game event the way a person would: by tapping the app's widgets.

Used by the scripted demo and by the UI tests (which then check the engine's state): the event
is never handed to the engine directly, so a button that is missing, hidden or wired wrongly
makes the entry fail.
"""

from __future__ import annotations

from typing import Any

from kivy.uix.widget import Widget

from companion.core.components import GOODS
from companion.core.cubes import COLOURS, Counts
from companion.core.events import (
    AdvanceOrder,
    Build,
    BuyProduction,
    CashChest,
    Correction,
    Drop,
    Event,
    LoadCannons,
    MoveShips,
    Pass,
    PirateRevealed,
    Plan,
    Progress,
    SetupDrop,
    StrayCubes,
    TakeGold,
    TakeVictoryPoints,
    UseGoldToken,
)
from companion.ui import harness
from companion.ui.app import CompanionApp
from companion.ui.widgets.form import Form


class EntryError(RuntimeError):
    """The app did not accept an event entered through its widgets; says where it stuck."""


def enter(app: CompanionApp, event: Event) -> None:
    """Tap the event into the app; raises EntryError if the game did not take it."""
    controller = app.controller
    game = controller.game
    before = len(game.events) if game is not None else 0
    if isinstance(event, PirateRevealed):
        _pirate(app, event.value)
    elif isinstance(event, SetupDrop | Drop):
        _counts(app, event.counts, mode=None)
    elif isinstance(event, StrayCubes):
        _counts(app, event.counts, mode="stray")
    elif isinstance(event, Correction):
        _counts(app, event.counts, mode="correct")
    elif isinstance(event, CashChest | UseGoldToken):
        _extra(app, event)
    elif isinstance(event, TakeGold | TakeVictoryPoints | Pass):
        _show(app, "phase")
        name = {TakeGold: "gold", TakeVictoryPoints: "vp", Pass: "pass_turn"}[type(event)]
        harness.tap(app.screen("phase").turn_panel.ids[name])
    else:
        _action(app, event)
    game = controller.game
    after = len(game.events) if game is not None else 0
    if after != before + 1 or (game is not None and game.events[-1] != event):
        raise EntryError(
            f"the app did not record {event!r}; it says: {controller.message or app.status!r}"
        )


def _show(app: CompanionApp, name: str) -> None:
    if app.root.manager.current != name:
        app.show(name)
        harness.frames(2)


def _pirate(app: CompanionApp, value: int) -> None:
    _show(app, "round_end")
    screen = app.screen("round_end")
    _step_to(screen.ids.minus, screen.ids.plus, lambda: int(screen.value), value)
    harness.tap(screen.ids.confirm)


def _step_to(minus: Widget, plus: Widget, current: Any, target: int) -> None:
    """Tap - or + until current() equals target."""
    for attempt in range(200):
        now = current()
        if now == target:
            harness.frames(1)
            return
        harness.tap(plus if now < target else minus, settle_frames=0, prepare=attempt == 0)
    raise EntryError(f"could not reach {target} with the +/- buttons (stuck at {current()})")


def _counts(app: CompanionApp, counts: Counts, mode: str | None) -> None:
    _show(app, "phase")
    screen = app.screen("phase")
    if mode == "stray":
        harness.tap(screen.ids.stray_later)
    elif mode == "correct":
        harness.tap(screen.ids.fix_reading)
    panel = screen.drop_panel
    if mode is None and panel.counts() == counts:
        # The reading shown is right: one tap confirms it.
        harness.tap(panel.ids.confirm)
        return
    counters = panel.counters()
    for colour in COLOURS:
        counter = counters[colour]
        minus, plus = _counter_buttons(counter)
        _step_to(minus, plus, lambda c=counter: int(c.value), counts[colour])
    harness.tap(panel.ids.confirm)


def _counter_buttons(counter: Widget) -> tuple[Widget, Widget]:
    row = counter.children[0]
    plus, minus = row.children[0], row.children[1]
    return minus, plus


def _extra(app: CompanionApp, event: CashChest | UseGoldToken) -> None:
    _show(app, "scores")
    screen = app.screen("scores")
    key = "chest" if isinstance(event, CashChest) else f"token:{event.token.value}"
    harness.tap(screen.extra_button(event.player, key))


def _action(app: CompanionApp, event: Any) -> None:
    _show(app, "phase")
    screen = app.screen("phase")
    colour = _colour_of(app, event)
    wanted_kind = "special" if event.special else colour.value
    for button in screen.turn_panel.ids.actions.children:
        choice = button.payload
        if choice.kind == wanted_kind and choice.colour is colour:
            harness.tap(button)
            break
    else:
        raise EntryError(f"no {wanted_kind} button for {colour.value} on the phase screen")
    # The turn screen's forms were just built: let their heights settle before aiming at them.
    harness.frames(3)
    turn = app.screen("turn")
    form: Form = turn.main_form
    _set(form, "gold", event.gold_spent)
    if isinstance(event, MoveShips):
        _set(form, "steps0", event.steps[0])
        _set(form, "steps1", event.steps[1])
        if event.use_ships_token:
            _set(form, "ships_token", True)
        for post in event.posts:
            big = {None: "known", False: "small", True: "big"}[post.big]
            _add(turn, "posts", {"ship": post.ship, "island": post.island, "big": big,
                                 "completes": post.completes})  # fmt: skip
    elif isinstance(event, LoadCannons | Progress | AdvanceOrder):
        _set(form, "steps", -1 if event.steps is None else event.steps)
        if isinstance(event, AdvanceOrder) and event.use_order_token:
            _set(form, "order_token", True)
        _sheet_readings(form, event)
        if isinstance(event, Progress):
            for token in event.tokens:
                actions = [a.value for a in token.actions] + ["", ""]
                _add(turn, "tokens", {"token": token.token.value, "action1": actions[0],
                                      "action2": actions[1], "half": token.half})  # fmt: skip
    elif isinstance(event, Plan):
        for size in event.villages:
            _add(turn, "planned", {"tile": "village", "size": size})
        for size in event.neutrals:
            _add(turn, "planned", {"tile": "neutral", "size": size})
    elif isinstance(event, Build):
        for tile in event.tiles:
            values: dict[str, Any] = {"island": tile.island, "tile": tile.tile.value,
                                      "size": tile.size, "completes": tile.completes,
                                      "vp": -1 if tile.vp is None else tile.vp}  # fmt: skip
            for good in GOODS:
                values[f"good:{good.value}"] = tile.commodities.count(good)
            _add(turn, "built", values)
    elif isinstance(event, BuyProduction):
        for bought in event.tokens:
            _add(turn, "production", {"good": bought.good.value, "cost": bought.cost})
    harness.frames(1)
    if turn.ids.confirm.disabled:
        raise EntryError(f"the turn screen refuses {event!r}: {turn.ids.verdict.text}")
    harness.tap(turn.ids.confirm)


def _sheet_readings(form: Form, event: LoadCannons | Progress | AdvanceOrder) -> None:
    """Tap in what the player read off their sheet, where the form asks for it (the box data
    lacks the track's layout); an unread value is left at the form's default."""
    names = {row.name for row in form.children}
    for name in ("vp_spaces", "highest_vp", "at_end", "space_colour"):
        value = getattr(event, name, None)
        if name in names and value is not None:
            _set(form, name, value.value if name == "space_colour" else value)


def _colour_of(app: CompanionApp, event: Any) -> Any:
    from companion.core.events import ACTION_COLOUR

    return ACTION_COLOUR[type(event)]


def _set(form: Form, name: str, value: Any) -> None:
    """Tap a form field to the value: +/- for steppers, the toggle, or the option button."""
    row = form.row(name)
    if row.kind == "stepper":
        _reveal(row.control("plus"))
        _step_to(row.control("minus"), row.control("plus"), lambda: int(row.value), int(value))
    elif row.kind == "toggle":
        if bool(row.value) != bool(value):
            _reveal(row.control("toggle"))
            harness.tap(row.control("toggle"))
    else:
        if row.value != value:
            _reveal(row.control(f"option:{value}"))
            harness.tap(row.control(f"option:{value}"))
    if row.value != value and not (row.kind == "stepper" and int(row.value) == int(value)):
        raise EntryError(f"field {name!r} shows {row.value!r}, wanted {value!r}")


def _add(turn: Any, section_name: str, values: dict[str, Any]) -> None:
    section = turn.sections[section_name]
    for name, value in values.items():
        _set(section.ids.form, name, value)
    _reveal(section.ids.add)
    harness.tap(section.ids.add, settle_frames=0)


def _reveal(widget: Widget) -> None:
    """Scroll the widget into view if it sits in a scroll view, as a person would."""
    from kivy.uix.scrollview import ScrollView

    parent = widget.parent
    while parent is not None and not isinstance(parent, ScrollView):
        parent = parent.parent
    if parent is None:
        return
    _x, y = widget.to_window(widget.x, widget.y)
    _left, bottom = parent.to_window(parent.x, parent.y)
    if bottom <= y and y + widget.height <= bottom + parent.height:
        return
    parent.scroll_to(widget, padding=10, animate=False)
    harness.frames(2)
