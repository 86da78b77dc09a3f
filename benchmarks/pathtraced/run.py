"""Render path-traced set-ups, or count them with `companion.vision` and print the accuracy.

    .venv/bin/python benchmarks/pathtraced/run.py render OUT [--setups 10] [--drops 10]
        [--seed 0] [--samples 16]
    .venv/bin/python benchmarks/pathtraced/run.py spread SRC OUT
    .venv/bin/python benchmarks/pathtraced/run.py count OUT [--failures] [--nudge N]

`render` needs the `render` extra (Mitsuba 3, PyBullet); about 8 s a picture on one core at
16 samples a pixel. `count` calibrates each set-up from its `calibration` folder, as
`companion calibrate` does, reads every drop as `companion count` does, and prints pictures
read exactly right, readings given as sure (and of those, wrong), split by how the cubes lie:
all on the floor and none under another ("clear"), or some resting on another; and again by
the set-ups' light, camera and print (a picture counts under each that holds for it). It
also names the set-ups whose tray outline, as calibration found it, is off the true floor,
and tallies what went wrong cube by cube (`scoring/matching.py` pairs the found cubes with
the true ones): cubes missed, invented, or seen in another colour; and the doubts that kept
right readings from being sure (each one a player's look and tap), how often each came and
how often alone.
`spread` renders the heaped drops of SRC (set-up drops, and drops with a cube on another)
again into OUT, the same cubes spread apart the way players leave them when the app asks for a
second look (`scenes.spread`), with SRC's calibration pictures: `count OUT` then says what the
second look reads.
`--nudge N` reads everything N more times with that outline moved by a fraction of a pixel,
and prints how many pictures each pass reads right, which pictures change between passes,
and the set-ups whose calibration the nudges moved (view width, shadow depth).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import numpy as np
    from scenes import SetUp

    from companion.vision import TrayReading

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
# (The pairing of found and true cubes is shared with `vision_accuracy.py`.)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scoring"))

# The hard conditions, told from a set-up's parameters (`setup.json`).
CONDITIONS: dict[str, Callable[[SetUp], bool]] = {
    "warm lamp": lambda s: s.lamp_kelvin < 3500,
    "daylight lamp": lambda s: s.lamp_kelvin > 5000,
    "tilt > 10 deg": lambda s: s.tilt > 10,
    "lamp < 50 deg": lambda s: s.lamp_elevation < 50,
    "printed floor": lambda s: s.floor_kind != "plain",
}


def _render(args: argparse.Namespace) -> None:
    from scenes import make_setup

    for number in range(args.setups):
        seed = args.seed + number
        folder = Path(args.out) / f"setup{seed:03d}"
        if (folder / "truth.json").exists():
            continue
        make_setup(seed, folder, args.drops, args.samples)
        print(f"set-up {seed} rendered", flush=True)


def _heaped(truth: dict[str, Any]) -> bool:
    """Whether a drop's cubes lie so that one picture cannot show them all: a set-up drop
    (over 20 cubes), or a cube on another."""
    lying = truth["cubes"]
    return len(lying) > 20 or any(c["on_another"] or c["under_another"] for c in lying)


def _spread(args: argparse.Namespace) -> None:
    import shutil

    from scenes import SetUp, develop, exposure_for, render, spread, truth

    for source in sorted(Path(args.src).glob("setup*")):
        record = json.loads((source / "truth.json").read_text())
        heaps = {name: drop for name, drop in sorted(record.items()) if _heaped(drop)}
        folder = Path(args.out) / source.name
        if not heaps or (folder / "truth.json").exists():
            continue
        shutil.copytree(source / "calibration", folder / "calibration", dirs_exist_ok=True)
        shutil.copy(source / "setup.json", folder / "setup.json")
        setup = SetUp.load(folder / "setup.json")
        # The exposure the set-up's own pictures were developed with (from its empty tray).
        exposure = exposure_for(render(setup, [], folder), setup)
        spread_out = {}
        for number, (name, heap) in enumerate(heaps.items()):
            colours = [colour for colour, n in heap["counts"].items() for _ in range(n)]
            cubes = spread(setup, colours, number)
            picture = develop(setup, render(setup, cubes, folder), exposure, 500 + number)
            (folder / name).write_bytes(picture)
            spread_out[name] = truth(setup, cubes)
        (folder / "truth.json").write_text(json.dumps(spread_out, indent=1))
        print(f"{source.name}: {len(heaps)} drops spread", flush=True)


# A found tray outline whose corner lies farther than this share of the floor's diagonal from
# the true corner is off (a wall, a shadow or a line of the print taken for the floor's edge).
TRAY_OFF = 0.05


# `--nudge` moves each corner of the tray outline calibration finds by up to this many
# pixels each way, less than the outline's own error on most set-ups: a picture read right
# in one pass and wrong in another was decided by a hair, and the spread of the passes is
# how far one figure from this set can be trusted.
NUDGE = 0.5


class Pass(NamedTuple):
    """One reading of every set-up: the tallies, the wrong pictures (name: group), the lines
    to print about them, what went wrong cube by cube (set-up drops left out: one of those
    holds more errors than a set-up's other pictures together), per set-up what its
    calibration learned that a nudge may move (view width, shadow depth or None), and the
    doubts that kept right readings from being sure (set-up drops left out), each reading's
    once and, in `alone`, those that stood alone."""

    tally: Counter[str]
    wrong: dict[str, str]
    failures: list[str]
    trays_off: list[str]
    errors: Counter[str]
    learned: dict[str, tuple[int, float | None]]
    doubts: Counter[str]
    alone: Counter[str]


def _errors(
    lying: list[dict[str, Any]], reading: TrayReading, homography: np.ndarray, side: float
) -> list[str]:
    """What a reading got wrong, cube by cube: true cubes missed (and how they lay), cubes
    invented (beside a true one or alone) and cubes seen in another colour. Positions are
    compared in the tray's top-down view, where a cube's side is `side` pixels."""
    import cv2
    import numpy as np
    from matching import beside_a_cube, match

    def in_view(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        if not points:
            return []
        moved = cv2.perspectiveTransform(np.array(points, np.float64).reshape(-1, 1, 2), homography)
        return [(float(x), float(y)) for x, y in moved.reshape(-1, 2)]

    truth = in_view([(c["x"], c["y"]) for c in lying])
    found = in_view([(c.x, c.y) for c in reading.cubes])
    pairing = match(truth, found, side)
    errors = [
        f"{lying[t]['colour']} read as {reading.cubes[f].colour.value}"
        for t, f in pairing.pairs
        if lying[t]["colour"] != reading.cubes[f].colour.value
    ]
    for t in pairing.missed:
        cube = lying[t]
        how = (
            "under another"
            if cube["under_another"]
            else "on another"
            if cube["on_another"]
            else "lying clear"
        )
        errors.append(f"{cube['colour']} missed, {how}")
    for f in pairing.invented:
        where = "beside a cube" if beside_a_cube(found[f], truth, side) else "alone"
        errors.append(f"{reading.cubes[f].colour.value} invented, {where}")
    return errors


def _read_all(out: Path, nudge: np.random.Generator | None) -> Pass:
    """Calibrate and count every set-up in `out`, the tray outline moved by `nudge` if given."""
    import cv2
    import numpy as np
    from scenes import SetUp, floor_outline

    from companion.core.cubes import COLOURS
    from companion.vision import CalibrationError, calibrate, load_image, read_tray
    from companion.vision.agreed_outline import agreed_outline
    from companion.vision.corners import order_corners
    from companion.vision.tray import find_tray

    cv2.setNumThreads(1)
    result = Pass(Counter(), {}, [], [], Counter(), {}, Counter(), Counter())
    tally = result.tally
    for folder in sorted(out.glob("setup*")):
        truth_file = folder / "truth.json"
        if not truth_file.exists():
            continue
        truth = json.loads(truth_file.read_text())
        calibration = folder / "calibration"
        empty = load_image(calibration / "empty.jpg")
        per_colour = {c: load_image(calibration / f"{c.value}.jpg") for c in COLOURS}
        # (Left to calibration, which finds the outline itself, unless it is to be moved.)
        corners = None
        others = [per_colour[c] for c in COLOURS]
        if nudge is not None and (outline := agreed_outline(find_tray(empty), others)) is not None:
            moved = np.array(outline) + nudge.uniform(-NUDGE, NUDGE, (4, 2))
            corners = order_corners(moved.astype(np.float32))
        try:
            profile = calibrate(empty, per_colour, corners=corners)
        except CalibrationError as error:
            tally["refused"] += 1
            result.failures.append(f"{folder.name}: calibration refused: {error}")
            continue
        tally["set-ups"] += 1
        depth = profile.shadow.deepest if profile.shadow is not None else None
        result.learned[folder.name] = (profile.view_width, depth)
        setup = SetUp.load(folder / "setup.json")
        floor = floor_outline(setup)
        miss = np.linalg.norm(np.array(profile.tray_corners) - floor, axis=1).max()
        share = float(miss / np.linalg.norm(floor[2] - floor[0]))
        if share > TRAY_OFF:
            result.trays_off.append(f"{folder.name} {100 * share:.0f}%")
        conditions = [name for name, holds in CONDITIONS.items() if holds(setup)]
        for name, expected in truth.items():
            reading = read_tray(load_image(folder / name), profile)
            counts = {c.value: reading.counts[c] for c in COLOURS}
            lying = expected["cubes"]
            group = (
                "clear"
                if not any(c["on_another"] or c["under_another"] for c in lying)
                else "stacked"
            )
            if len(lying) > 20:
                group = "set-up drop"
            right = counts == expected["counts"]
            if right and not reading.confident and group != "set-up drop":
                tally["right unsure"] += 1
                doubts = set(map(_template, reading.reasons))
                result.doubts.update(doubts)
                result.alone.update(doubts if len(doubts) == 1 else ())
            for row in (group, "all", *conditions):
                tally[f"{row} pictures"] += 1
                tally[f"{row} right"] += right
                tally[f"{row} sure"] += reading.confident
                tally[f"{row} sure wrong"] += reading.confident and not right
            if not right:
                wrong = {
                    c: f"{counts[c]} for {expected['counts'][c]}"
                    for c in counts
                    if counts[c] != expected["counts"][c]
                }
                errors = _errors(lying, reading, profile.view.homography, profile.cube_side)
                if group != "set-up drop":
                    result.errors.update(errors)
                result.wrong[f"{folder.name}/{name}"] = group
                result.failures.append(
                    f"{folder.name}/{name} ({group}, {'sure' if reading.confident else 'unsure'})"
                    f": {wrong}; {_listed(errors)}"
                )
    return result


def _template(reason: str) -> str:
    """The template a reading's reason was filled in from (`companion/vision/reasons.py`), so
    that one doubt is tallied once whatever the colour; a sentence of no template as it is."""
    from companion.vision.reasons import parse

    parsed = parse(reason)
    return parsed[0] if parsed is not None else reason


def _listed(errors: list[str]) -> str:
    """Errors as a line, each told once with how often it happened."""
    return ", ".join(f"{n} x {error}" if n > 1 else error for error, n in Counter(errors).items())


def _print_pass(found: Pass) -> None:
    tally = found.tally
    print(f"set-ups calibrated {tally['set-ups']}, refused {tally['refused']}")
    print(
        f"tray outline off by over {100 * TRAY_OFF:.0f}% of the floor's diagonal: "
        f"{len(found.trays_off)} ({', '.join(found.trays_off) or 'none'})"
    )
    print(f"{'pictures':<14}{'count':>7}{'right':>8}{'%':>7}{'sure':>7}{'sure wrong':>12}")
    for rows in (("clear", "stacked", "set-up drop", "all"), tuple(CONDITIONS)):
        for row in rows:
            n = tally[f"{row} pictures"]
            if n:
                print(
                    f"{row:<14}{n:>7}{tally[f'{row} right']:>8}"
                    f"{100.0 * tally[f'{row} right'] / n:>7.1f}{tally[f'{row} sure']:>7}"
                    f"{tally[f'{row} sure wrong']:>12}"
                )
        print()
    print("cubes read wrong, pictures other than set-up drops:")
    for error, times in sorted(found.errors.items(), key=lambda item: (-item[1], item[0])):
        print(f"{times:>6}  {error}")
    print()
    # A right reading given as unsure costs the players a look and a tap: what asked for it.
    print(
        f"doubts in the {tally['right unsure']} right readings given as unsure, "
        "set-up drops left out:"
    )
    print(f"{'readings':>8}{'alone':>7}  doubt")
    for doubt, times in sorted(found.doubts.items(), key=lambda item: (-item[1], item[0])):
        print(f"{times:>8}{found.alone[doubt]:>7}  {doubt}")
    print()


def _print_nudged(found: Pass, nudged: list[Pass], failures: bool) -> None:
    """The nudged passes' figures beside the first's, and the pictures they disagree on."""
    right = [p.tally["all right"] for p in nudged]
    print(
        f"tray outline nudged (each corner up to {NUDGE} px), {len(nudged)} passes: "
        f"right {', '.join(map(str, right))}, median {statistics.median(right):g} "
        f"(as found: {found.tally['all right']}); sure wrong "
        f"{', '.join(str(p.tally['all sure wrong']) for p in nudged)}"
    )
    passes = [found, *nudged]
    groups = {name: group for p in passes for name, group in p.wrong.items()}
    times = Counter(name for p in passes for name in p.wrong)
    brittle = sorted(name for name, n in times.items() if n < len(passes))
    by_group = Counter(groups[name] for name in brittle)
    print(
        f"pictures right in some passes and wrong in others: {len(brittle)} "
        f"({', '.join(f'{g} {n}' for g, n in sorted(by_group.items()))})"
    )
    if failures:
        for name in brittle:
            print(f"  {name} ({groups[name]}): wrong in {times[name]} of {len(passes)}")
    _print_learned(passes)
    print()


# A calibration counts as moved by a nudge when its view's width varies by more than this
# share of its median, or its shadow depth by more than this (or is learned in some passes
# only). Half-pixel nudges moved half the set-ups' views by under 4% (fifteenth session).
WIDTH_MOVED = 0.05
DEPTH_MOVED = 0.2


def _moved(depths: list[float | None]) -> bool:
    """Whether shadow depths learned over the passes differ by more than DEPTH_MOVED, or
    the shadow was learned in some passes only."""
    known = [d for d in depths if d is not None]
    if len(known) < len(depths):
        return bool(known)
    return max(known) - min(known) > DEPTH_MOVED


def _print_learned(passes: list[Pass]) -> None:
    """How far the nudges moved what calibration learned, set-up by set-up: readings flip
    with it (benchmarks/pathtraced/README.md, fifteenth session)."""
    names = sorted(set.intersection(*(set(p.learned) for p in passes)))
    if not names:
        return
    widths = {n: [p.learned[n][0] for p in passes] for n in names}
    depths = {n: [p.learned[n][1] for p in passes] for n in names}
    spread = {n: (max(w) - min(w)) / statistics.median(w) for n, w in widths.items()}
    wide = [f"{n} {min(widths[n])}-{max(widths[n])}" for n in names if spread[n] > WIDTH_MOVED]
    print(
        f"view width over the passes: spread median {100 * statistics.median(spread.values()):.1f}%"
        f", largest {100 * max(spread.values()):.1f}%; over {100 * WIDTH_MOVED:.0f}%: "
        f"{', '.join(wide) or 'none'}"
    )

    def told(depth: float | None) -> str:
        return "none" if depth is None else f"{depth:.2f}"

    deep = [f"{n} {'/'.join(told(d) for d in depths[n])}" for n in names if _moved(depths[n])]
    print(f"shadow depth moved by over {DEPTH_MOVED}: {', '.join(deep) or 'none'}")


def _count(args: argparse.Namespace) -> None:
    import numpy as np

    found = _read_all(Path(args.out), None)
    _print_pass(found)
    if args.nudge:
        random = np.random.default_rng(args.nudge_seed)
        nudged = [_read_all(Path(args.out), random) for _ in range(args.nudge)]
        _print_nudged(found, nudged, args.failures)
    if args.failures:
        print("\n".join(found.failures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="render set-ups into OUT")
    render.add_argument("out")
    render.add_argument("--setups", type=int, default=10)
    render.add_argument("--drops", type=int, default=10)
    render.add_argument("--seed", type=int, default=0)
    render.add_argument("--samples", type=int, default=16, help="path samples a pixel")
    again = commands.add_parser(
        "spread", help="render SRC's heaped drops again into OUT, the cubes spread apart"
    )
    again.add_argument("src")
    again.add_argument("out")
    count = commands.add_parser("count", help="count the set-ups in OUT")
    count.add_argument("out")
    count.add_argument("--failures", action="store_true", help="list every wrong picture")
    count.add_argument(
        "--nudge",
        type=int,
        default=0,
        metavar="N",
        help=f"read everything N more times, the tray outline moved by up to {NUDGE} px",
    )
    count.add_argument("--nudge-seed", type=int, default=0, help="seed of the nudges")
    args = parser.parse_args()
    {"render": _render, "spread": _spread, "count": _count}[args.command](args)


if __name__ == "__main__":
    main()
