"""The owner's box data on disk: entered once on the box-data screen, used for every new game.

One JSON file (`BoxData` as the engine writes it) in the data directory, replaced atomically.
A file that cannot be read is moved aside with the reason next to it, never deleted, and the
app falls back to the real box's known figures until the owner enters them again.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from companion.core.box import REAL_BOX, BoxData
from companion.ui.saved_game import write_atomically

BOX_FILE = "box-data.json"


@dataclass(frozen=True)
class LoadedBox:
    """The box to use, and when a file had to be set aside, where it went and why."""

    box: BoxData
    set_aside: Path | None = None
    reason: str = ""


def box_path(directory: Path) -> Path:
    """Where the owner's box data is kept in the data directory."""
    return directory / BOX_FILE


def load_owner_box(directory: Path) -> LoadedBox:
    """The owner's box data, or REAL_BOX when none was saved (or the file was unreadable)."""
    path = box_path(directory)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return LoadedBox(REAL_BOX)
    except (OSError, UnicodeDecodeError) as error:
        return _set_aside(path, str(error))
    try:
        return LoadedBox(BoxData.model_validate_json(text))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return _set_aside(path, f"{where}: {first['msg']}" if where else str(first["msg"]))


def _set_aside(path: Path, reason: str) -> LoadedBox:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"unreadable-{stamp}-{path.name}")
    number = 1
    while kept.exists():
        number += 1
        kept = path.with_name(f"unreadable-{stamp}-{number}-{path.name}")
    os.replace(path, kept)
    write_atomically(kept.with_suffix(".reason.txt"), reason + "\n")
    return LoadedBox(REAL_BOX, kept, reason)


def save_owner_box(directory: Path, box: BoxData) -> Path:
    """Store the owner's box data atomically; returns the file's path."""
    path = box_path(directory)
    write_atomically(path, box.model_dump_json(indent=2) + "\n")
    return path
