"""The `companion` command line: one sub-command module per area, registered below.

Every command has --help. Bad input exits with status 2 and a message that says what to do,
never a traceback (CommandError carries that message up to `main`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from companion import __version__
from companion.cli.errors import CommandError

# Each module has `register(subparsers)` that adds its commands with a `handler` default.
COMMAND_MODULES: tuple[str, ...] = (
    "companion.cli.game",
    "companion.cli.vision",
    "companion.cli.app",
    "companion.cli.sensor",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every area's commands registered."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Tower Companion: reads the dice tower's tray, keeps the game, scores it.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 2 bad input or a failed reading)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return handler(args)
    except CommandError as error:
        print(f"companion {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours.
        return 0
