"""What a second look is worth: the camera's count of cubes in a heap, and of the same cubes
once the players have spread them apart by hand.

One picture from above cannot show a cube lying under others, and the reading says so (its
doubts that a cube may hide: `companion.vision.reasons.CUBES_HIDING`); the app then asks the
players to spread the cubes, and the camera reads the tray again (`moved_by_hand`, a
"second look" in `companion.devices.readings`). For the clustered and set-up drop conditions
of the shared renderer this calibrates each set-up, reads every test picture (the first look),
then renders the same cubes again in a new layout, spread the way hands leave them: one
layer, none resting or leaning on another, no pull towards the others. It reads that (the
second look) and prints, per condition:

- pictures, and of the first looks: exactly right, given as sure, sure and wrong;
- how many first looks asked for a second (unsure with a doubt that a cube may hide);
- the same for the second looks, and how many of the first looks read wrong the second look
  read right.

Run: .venv/bin/python benchmarks/second_look.py [--setups 3] [--pictures 10] [--seed 0]
Nothing here counts cubes itself; the renderer is companion.devices.tray_render.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

import cv2

from companion.core.cubes import COLOURS
from companion.devices.simtray.sets import sub_seed
from companion.devices.tray_render import calibration_set, render
from companion.vision import VisionError, calibrate, read_tray
from companion.vision import reasons as doubt
from companion.vision.reading import TrayReading

CONDITIONS = ("clustered", "setup-drop")


@dataclass
class Looks:
    """Tallies of one look (first or second) over the pictures of one condition."""

    exact: int = 0
    sure: int = 0
    sure_wrong: int = 0
    asks_again: int = 0


@dataclass
class Tally:
    """One condition's pictures: both looks, and the wrong first looks the second mended."""

    pictures: int = 0
    refused: int = 0
    first: Looks = field(default_factory=Looks)
    second: Looks = field(default_factory=Looks)
    mended: int = 0
    wrong_first: int = 0


def _asks_again(reading: TrayReading) -> bool:
    """Unsure for a reason a second look can settle: a cube may lie hidden."""
    return not reading.confident and doubt.cubes_may_hide(reading.reasons)


def _add(looks: Looks, reading: TrayReading, right: bool) -> None:
    looks.exact += right
    looks.sure += reading.confident
    looks.sure_wrong += reading.confident and not right
    looks.asks_again += _asks_again(reading)


def run(condition: str, setups: int, pictures: int, seed: int, index: int) -> Tally:
    tally = Tally()
    for k in range(setups):
        cal = calibration_set(sub_seed(seed, k, index), condition, tests=pictures)
        shots = cal.calibration_pictures()
        try:
            profile = calibrate(shots["empty"].image, {c: shots[c.value].image for c in COLOURS})
        except VisionError:
            tally.refused += 1
            continue
        for picture in cal.tests:
            first = read_tray(picture.image, profile)
            spread = render(picture.scene.spread_apart(sub_seed(picture.scene.seed, 7)), jpeg=True)
            second = read_tray(spread.image, profile)
            tally.pictures += 1
            first_right = first.counts == picture.counts
            second_right = second.counts == spread.counts
            _add(tally.first, first, first_right)
            _add(tally.second, second, second_right)
            tally.wrong_first += not first_right
            tally.mended += not first_right and second_right
    return tally


def _row(name: str, pictures: int, looks: Looks) -> str:
    exact = 100 * looks.exact / max(pictures, 1)
    return (
        f"  {name:<13}{looks.exact:>6} ({exact:5.1f}%){looks.sure:>7}{looks.sure_wrong:>8}"
        f"{looks.asks_again:>12}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setups", type=int, default=3, help="camera set-ups per condition")
    parser.add_argument("--pictures", type=int, default=10, help="pictures per set-up")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    args = parser.parse_args()
    if args.setups < 1 or args.pictures < 1:
        parser.error("--setups and --pictures must be at least 1")
    cv2.setNumThreads(1)
    for index, condition in enumerate(CONDITIONS):
        tally = run(condition, args.setups, args.pictures, args.seed, index)
        print(f"{condition}: {tally.pictures} pictures ({tally.refused} set-ups refused)")
        print(f"  {'look':<13}{'exact':>15}{'sure':>7}{'sure wrong':>11}{'asks again':>11}")
        print(_row("heap (first)", tally.pictures, tally.first))
        print(_row("spread", tally.pictures, tally.second))
        print(f"  wrong at first, right once spread: {tally.mended} of {tally.wrong_first}")


if __name__ == "__main__":
    main()
