"""Player colours: chosen on the new-game screen, remembered with the names, and shown beside
the written name on the screens where a player appears."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.core.cubes import Counts
from companion.core.events import Drop, PirateRevealed, SetupDrop
from companion.ui import harness
from companion.ui.autoplay import enter
from companion.ui.player_colours import PLAYER_COLOURS
from companion.ui.remembered import players_file, remembered_players


def test_old_name_lists_and_broken_files_still_give_four_players(tmp_path: Path) -> None:
    players_file(tmp_path).write_text('["Eva", "Finn"]', encoding="utf-8")
    players = remembered_players(tmp_path)
    assert [p.name for p in players] == ["Eva", "Finn", "Carla", "Dmitri"]
    assert len({p.colour for p in players}) == 4
    players_file(tmp_path).write_text("{broken", encoding="utf-8")
    assert [p.colour for p in remembered_players(tmp_path)] == [c.key for c in PLAYER_COLOURS]


def test_colour_chosen_by_tap_is_remembered_and_shown_with_the_name(app: Any) -> None:
    screen = app.screen("new_game")
    harness.tap(screen.ids.count_2)
    first = screen.colours[0]
    harness.tap(screen.colour_buttons[0])
    # The next colour was the second player's: the two swap, so no colour is taken twice.
    assert screen.colours[0] != first and screen.colours[1] == first
    assert screen.colour_buttons[0].text == PLAYER_COLOURS[1].label()
    harness.tap(screen.ids.start)
    stored = json.loads(players_file(app.controller.saved.directory).read_text(encoding="utf-8"))
    assert [p["colour"] for p in stored[:2]] == [screen.colours[0], first]
    ada = app.controller.player_colour(0)
    assert ada.key == screen.colours[0]
    enter(app, PirateRevealed(value=2))
    enter(app, SetupDrop(counts=Counts.of({"blue": 3, "black": 3, "red": 2})))
    enter(app, Drop(counts=Counts.of({"blue": 2, "black": 1})))
    prompt = app.screen("phase").ids.prompt.text
    assert f"[color={ada.hex()}]Ada[/color]" in prompt
    app.show("scores")
    harness.frames(2)
    cells = [c for c in app.screen("scores").ids.table.children if c.text == "Ada"]
    assert [tuple(c.color) for c in cells] == [ada.tint]
