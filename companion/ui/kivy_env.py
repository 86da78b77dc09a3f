"""Kivy's process-wide set-up, done before the first `import kivy`.

Kivy reads environment variables and its config file when it is first imported, and its window
is a process singleton, so everything here happens once, early, and without importing Kivy.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_SIZE = (800, 480)
"""The 7-inch touchscreen's resolution, in pixels."""


@dataclass(frozen=True)
class WindowPlan:
    """How the window will be opened: its size in pixels and whether anyone can see it."""

    width: int
    height: int
    offscreen: bool


def has_display() -> bool:
    """True when a screen is reachable: an X11 or Wayland session, or an explicit SDL driver.

    On the Pi kiosk the systemd unit sets SDL_VIDEODRIVER=kmsdrm, so a console without X still
    counts as a display; a bare server or CI machine has none of the three.
    """
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    if driver and driver not in ("offscreen", "dummy"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def parse_size(text: str) -> tuple[int, int]:
    """'800x480' -> (800, 480); raises ValueError with the expected form on anything else."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"size must look like 800x480, got {text!r}")
    width, height = int(parts[0]), int(parts[1])
    if width < 320 or height < 240:
        raise ValueError(f"size {text} is too small: the app needs at least 320x240")
    return width, height


def prepare(size: tuple[int, int] = DEFAULT_SIZE, *, kivy_home: Path | None = None) -> WindowPlan:
    """Set Kivy's environment and window size; call before anything imports Kivy.

    Without a display SDL is told to draw offscreen (Mesa's software renderer), which is what
    the demo, the screenshots and the UI tests use. Returns the plan the window will follow.
    """
    offscreen = not has_display()
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    # Kivy's INFO chatter would drown the demo's output; warnings and errors still show.
    os.environ.setdefault("KCFG_KIVY_LOG_LEVEL", "warning")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    # SDL's clipboard works everywhere; the default probes for xsel/xclip programs first.
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    if kivy_home is None and "KIVY_HOME" not in os.environ:
        kivy_home = Path(tempfile.mkdtemp(prefix="companion-kivy-"))
    if kivy_home is not None:
        kivy_home.mkdir(parents=True, exist_ok=True)
        os.environ["KIVY_HOME"] = str(kivy_home)
    if offscreen:
        os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    width, height = size
    os.environ["KCFG_GRAPHICS_WIDTH"] = str(width)
    os.environ["KCFG_GRAPHICS_HEIGHT"] = str(height)
    # A touchscreen app must not close on Escape by accident.
    os.environ.setdefault("KCFG_KIVY_EXIT_ON_ESCAPE", "0")
    if "kivy" in sys.modules:
        # Too late for the environment: set the size on the live config instead.
        from kivy.config import Config

        Config.set("graphics", "width", str(width))
        Config.set("graphics", "height", str(height))
    return WindowPlan(width=width, height=height, offscreen=offscreen)
