"""`companion app`: the touchscreen app, or its scripted demo when there is no display."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.cli.errors import CommandError


def register(subparsers: Any) -> None:
    """Add the `app` command."""
    parser = subparsers.add_parser(
        "app",
        help="start the touchscreen app (the scripted demo offscreen when there is no display)",
        description=(
            "Start the touchscreen app. Without camera or sensor hardware it uses the simulated "
            "tower and camera, with GPIO off. With no display at all it says so and plays the "
            "scripted demo offscreen, printing the game and writing screenshots."
        ),
    )
    parser.add_argument(
        "--demo", action="store_true", help="play a scripted 4-player game by itself"
    )
    parser.add_argument(
        "--screenshots",
        type=Path,
        metavar="DIR",
        help="write a PNG of every screen into DIR (implies --demo)",
    )
    parser.add_argument(
        "--lang",
        choices=("en", "de"),
        default=None,
        help="language of the app (default: the one chosen on the settings screen, else en)",
    )
    parser.add_argument(
        "--size", default="800x480", metavar="WxH", help="window size in pixels (default 800x480)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the demo's game (default 0)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Start the app or the demo; returns 0 when it ends normally."""
    # Kivy is imported only here: it opens a window and reads its settings at import time.
    from companion.ui import kivy_env

    try:
        size = kivy_env.parse_size(args.size)
    except ValueError as error:
        raise CommandError(f"{error}; for example --size 1280x800") from error
    if args.screenshots is not None and args.screenshots.exists() and not args.screenshots.is_dir():
        raise CommandError(f"{args.screenshots} is a file; give a directory for --screenshots")
    from companion.ui.saved_game import data_dir

    # Kivy keeps its config beside the game data, not in ~/.kivy.
    plan = kivy_env.prepare(size, kivy_home=data_dir() / "kivy")
    from companion.ui import launch
    from companion.ui.saved_game import load_language

    language = args.lang or load_language() or "en"
    return launch.main(
        plan=plan,
        language=language,
        demo=bool(args.demo or args.screenshots is not None),
        screenshots=args.screenshots,
        seed=args.seed,
    )
