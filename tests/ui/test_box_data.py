"""The owner's box data: typed in once on the box-data screen, checked by the engine's model,
saved atomically, used for new games; a file that cannot be read is set aside, not lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.core.box import REAL_BOX, TEST_BOX
from companion.core.cubes import Colour
from companion.ui import harness
from companion.ui.box_store import box_path, load_owner_box, save_owner_box
from companion.ui.box_text import BoxTextError, box_texts, parse_box, parse_field


def test_texts_of_a_box_read_back_to_the_same_figures() -> None:
    box = parse_box(box_texts(TEST_BOX), name=TEST_BOX.name)
    assert box.model_dump() == {**TEST_BOX.model_dump(), "test_box": False}
    assert parse_box(box_texts(REAL_BOX)).progress_track is None


def test_unreadable_words_are_refused_with_what_to_type() -> None:
    with pytest.raises(BoxTextError, match="Bu Bk Rd") as caught:
        parse_field("special_track", "Wh Pk")
    assert caught.value.word == "Pk" and caught.value.field == "special_track"
    with pytest.raises(BoxTextError, match="size:count"):
        parse_field("neutral_tiles", "1:7:0")
    with pytest.raises(BoxTextError, match="token kind"):
        parse_field("progress_tokens", "gold_4")
    assert parse_field("special_track", "wh red:2")[1] == {"colour": "red", "vp": 2}


def test_the_engine_model_checks_the_whole() -> None:
    texts = box_texts(TEST_BOX)
    texts["pirate_markers"] = "0 1 2"
    with pytest.raises(ValueError, match="6 values"):
        parse_box(texts)


def test_saved_box_loads_and_a_corrupt_file_is_set_aside(tmp_path: Path) -> None:
    assert load_owner_box(tmp_path).box == REAL_BOX
    box = parse_box(box_texts(TEST_BOX))
    save_owner_box(tmp_path, box)
    assert load_owner_box(tmp_path).box == box
    box_path(tmp_path).write_text('{"name": "x", "progress_track": [3]}', encoding="utf-8")
    loaded = load_owner_box(tmp_path)
    assert loaded.box == REAL_BOX and loaded.set_aside is not None
    assert loaded.set_aside.read_text(encoding="utf-8").startswith('{"name": "x"')
    assert "progress_track" in loaded.reason
    assert not box_path(tmp_path).exists()


def test_owner_types_the_box_data_and_new_games_use_it(app: Any) -> None:
    app.show("box_data")
    harness.frames(2)
    screen = app.screen("box_data")
    assert screen.ids.save.disabled
    screen.inputs["special_track"].text = "Wh Ye Gn:2 Rd"
    harness.frames(1)
    chips = list(reversed(screen.ids.special.children))
    assert [c.colour for c in chips] == ["white", "yellow", "green", "red"]
    assert [c.text for c in chips] == ["Wh", "Ye", "Gn\n2", "Rd"]
    screen.inputs["progress_track"].text = "0 0 3 0 6"
    screen.inputs["pirate_markers"].text = "0 0 2"
    harness.frames(1)
    assert screen.ids.save.disabled and "pirate_markers" in screen.ids.verdict.text
    screen.inputs["special_track"].text = "Wh Ye Gn:2 Pk"
    harness.frames(1)
    assert "'Pk' is not a colour" in screen.ids.verdict.text
    screen.inputs["special_track"].text = "Wh Ye Gn:2 Rd"
    screen.inputs["pirate_markers"].text = "0 0 2 3 4 6"
    harness.frames(1)
    assert not screen.ids.save.disabled
    harness.tap(screen.ids.save)
    saved = load_owner_box(app.controller.saved.directory).box
    assert saved.progress_track == (0, 0, 3, 0, 6)
    assert saved.special_track is not None and saved.special_track[3].colour is Colour.RED
    assert screen.ids.save.disabled  # nothing left unsaved
    app.show("new_game")
    harness.tap(app.screen("new_game").ids.start)
    state = app.controller.state
    assert state is not None and state.box == saved


def test_a_corrupt_box_file_is_reported_when_a_game_starts(app: Any) -> None:
    path = box_path(app.controller.saved.directory)
    path.write_text("{not json", encoding="utf-8")
    app.show("new_game")
    harness.tap(app.screen("new_game").ids.start)
    assert app.controller.state.box == REAL_BOX
    assert "could not be read" in app.status
    kept = list(path.parent.glob("unreadable-*box-data.json"))
    assert [p.read_text(encoding="utf-8") for p in kept] == ["{not json"]
