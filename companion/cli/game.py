"""`companion game simulate` and `companion game replay`: the engine from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.cli.errors import CommandError
from companion.core.box import REAL_BOX, TEST_BOX
from companion.core.errors import LogError
from companion.core.log import parse_log, replay
from companion.core.simulate import simulate_game
from companion.core.views import state_summary


def register(subparsers: Any) -> None:
    """Add `game simulate` and `game replay`."""
    game = subparsers.add_parser("game", help="simulate or replay an Amerigo game log")
    commands = game.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True)

    simulate = commands.add_parser(
        "simulate", help="print a random legal game log (JSON), the same for the same seed"
    )
    simulate.add_argument("--players", type=int, required=True, choices=(2, 3, 4))
    simulate.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    simulate.add_argument(
        "--real-box",
        action="store_true",
        help="tell the engine only what the rule text states (REAL_BOX): the simulated players "
        "read track layouts and tile values off a hidden test box and put them in the events",
    )
    simulate.set_defaults(handler=run_simulate)

    replay_parser = commands.add_parser(
        "replay", help="replay a game log and print the state and every score breakdown"
    )
    replay_parser.add_argument("log", help="the game log (JSON file), or - to read standard input")
    replay_parser.add_argument(
        "--json", action="store_true", help="canonical JSON (sorted keys) instead of a summary"
    )
    replay_parser.set_defaults(handler=run_replay)


def run_simulate(args: argparse.Namespace) -> int:
    """Print one simulated game's whole log as one JSON document."""
    box = REAL_BOX if args.real_box else TEST_BOX
    game = simulate_game(args.players, args.seed, box=box)
    sys.stdout.write(game.to_json() + "\n")
    return 0


def _read(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    path = Path(source)
    try:
        return path.read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {source}: {error.strerror or error}") from None


def run_replay(args: argparse.Namespace) -> int:
    """Replay a log; exit 2 naming the event number and the reason if it is corrupt or illegal."""
    text = _read(args.log)
    try:
        states = replay(parse_log(text))
    except LogError as error:
        raise CommandError(f"{args.log}: {error}; the log was not replayed") from None
    summary = state_summary(states[-1])
    if args.json:
        sys.stdout.write(json.dumps(summary, sort_keys=True, indent=1) + "\n")
    else:
        sys.stdout.write(_readable(summary))
    return 0


def _readable(summary: dict[str, Any]) -> str:
    lines = [f"Amerigo: {summary['status']}, after {summary['events_applied']} events"]
    if not summary["finished"]:
        lines.append(f"round {summary['round']}, {summary['phase']} phase")
    tower = summary["cubes"]["tower"]
    lines.append("in the tower: " + ", ".join(f"{c} {n}" for c, n in tower.items()))
    for player in sorted(summary["players"], key=lambda p: summary["ranking"].index(p["index"])):
        parts = ", ".join(f"{k} {v}" for k, v in player["breakdown"].items() if v)
        lines.append(f"{player['name']:>10}: {player['vp']:3d} VP  ({parts or 'nothing yet'})")
    if summary["winners"]:
        lines.append("winner: " + " and ".join(summary["winners"]))
    for note in summary["notes"]:
        lines.append(f"note: {note}")
    return "\n".join(lines) + "\n"
