"""The game in progress on disk, so a pulled plug loses nothing: one file, replaced atomically.

Every save writes a temporary file in the same directory, fsyncs it, renames it over the old one
and fsyncs the directory, so after a power cut the file holds either the old or the new log,
never a mix. (The SQLite journal will take over this job; until then this file is the record.)
"""

from __future__ import annotations

import os
import time
from pathlib import Path

DATA_ENV = "COMPANION_DATA"
CURRENT_GAME = "current-game.json"


def data_dir() -> Path:
    """Where the app keeps its files: $COMPANION_DATA or ~/.local/share/tower-companion."""
    configured = os.environ.get(DATA_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".local" / "share" / "tower-companion"


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) so a crash leaves either the old or the new content."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


class SavedGame:
    """The current game's log file in a data directory."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else data_dir()
        self.path = self.directory / CURRENT_GAME

    def save(self, log_json: str) -> None:
        """Store the whole log (the engine's JSON text) atomically."""
        write_atomically(self.path, log_json)

    def load(self) -> str | None:
        """The saved log's text, or None when there is no game in progress."""
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def set_aside(self, reason: str) -> Path:
        """Move an unreadable log out of the way (never delete it); returns where it went.

        The reason is written next to it so the owner can see why the game did not resume.
        """
        stamp = time.strftime("%Y%m%d-%H%M%S")
        kept = self.path.with_name(f"unreadable-{stamp}-{CURRENT_GAME}")
        os.replace(self.path, kept)
        write_atomically(kept.with_suffix(".reason.txt"), reason + "\n")
        return kept

    def finish(self) -> Path | None:
        """Archive a finished game's log under games/ so the next start begins afresh."""
        if not self.path.exists():
            return None
        folder = self.directory / "games"
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        archive = folder / f"game-{stamp}.json"
        number = 1
        while archive.exists():
            # Two games ended within a second: never replace an archived log.
            number += 1
            archive = folder / f"game-{stamp}-{number}.json"
        os.replace(self.path, archive)
        return archive


PREFERENCES = "preferences.json"


def load_language(directory: Path | None = None) -> str | None:
    """The language chosen on the settings screen, or None if none was chosen (or unreadable)."""
    import json

    path = (directory if directory is not None else data_dir()) / PREFERENCES
    try:
        chosen = json.loads(path.read_text(encoding="utf-8")).get("language")
    except (OSError, ValueError, AttributeError):
        return None
    return chosen if isinstance(chosen, str) else None


def save_language(language: str, directory: Path | None = None) -> None:
    """Remember the language for the next start (atomically, like the game)."""
    import json

    path = (directory if directory is not None else data_dir()) / PREFERENCES
    write_atomically(path, json.dumps({"language": language}))
