"""How well `companion.vision.calibrate` tells a good calibration set from one with a stray.

For each condition and set-up (the same set-ups `vision_accuracy.py` draws, seed by seed) it
calibrates:

- from the clean set (empty tray, one picture per colour), which must be accepted;
- from `--reshots` more shots of the same clean set, which must be accepted too: each picture
  again with a camera's sensor noise (sigma 2 levels) and JPEG quality 90, as another frame of
  the same scene would be. A set that is accepted or refused by the noise alone is fragile;
- with one colour's picture replaced by a picture of 3 cubes of that colour and 2 of another
  (drawn at random per set-up), which must be refused naming the picture;
- with the same picture replaced by one of 3 cubes of the other colour alone (the wrong cubes
  put in the tray), which must be refused;
- with the brown and black pictures saved under each other's names (the one pair no hue or
  lightness tells apart), which must be refused;
- with one colour's picture taken again, the same cubes where they lay, after a knock on the
  camera (moved 4-12 mm, turned 1-3 degrees): it must be accepted, naming that picture as
  lined up with the others (all the others when it is the last, white, one:
  `companion/vision/lined_up_set.py`).

It prints per condition:

- set-ups, clean sets refused (must be 0: a user with good pictures cannot go on), re-shots
  refused (must be 0 too),
- mixed sets refused for holding cubes of two colours, refused for another reason, accepted,
- sets with another colour's picture refused and accepted,
- sets with the brown and black pictures swapped refused and accepted,
- sets with a knocked picture accepted naming it, and not (refused, or naming others),

and lists every refused clean set or re-shot and accepted mixed or wrong set with the seeds
that reproduce it.

Run: .venv/bin/python benchmarks/calibration_checks.py [--setups 3] [--seeds 21 13 5]
     [--reshots 2]
"""

from __future__ import annotations

import argparse
import sys
import time

import cv2
import numpy as np

# The same conditions at the same index as vision_accuracy.py: the set-up seeds depend on it.
from vision_accuracy import CONDITIONS

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.simtray.sets import sub_seed
from companion.devices.tray_render import CalibrationSet, TrayScene, calibration_set, render

try:
    import companion.vision as vision
except ImportError as error:  # pragma: no cover - depends on the vision package
    sys.exit(f"benchmarks/calibration_checks.py: companion.vision cannot be imported ({error})")

# A hand or another picture play no part in calibration, nor a knocked camera as a condition
# of its own (each set-up is checked with one picture taken after a knock instead).
NOT_CALIBRATION = ("hand", "no-tray", "bumped")
# What a refusal of a mixed set must say to count as caught.
CAUGHT = "holds cubes that look"
# Another frame of the same scene: sensor noise (levels) and the camera's JPEG quality.
RESHOT_NOISE = 2.0
RESHOT_QUALITY = 90


def _reshot(picture: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same picture as another camera frame: fresh sensor noise, compressed again."""
    noisy = picture.astype(np.float32) + rng.normal(0.0, RESHOT_NOISE, picture.shape)
    frame = np.clip(np.round(noisy), 0, 255).astype(np.uint8)
    _, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, RESHOT_QUALITY])
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _refusal(empty: np.ndarray, pictures: dict[Colour, np.ndarray]) -> str | None:
    """Why calibration refuses this set, or None when it accepts it."""
    try:
        vision.calibrate(empty, pictures)
    except vision.VisionError as error:
        return str(error)
    return None


def _knock_missed(cal: CalibrationSet, pictures: dict[Colour, np.ndarray], seed: int) -> str | None:
    """What went wrong when one colour's picture (drawn from `seed`) is taken again after a
    knock on the camera, the same cubes where they lay; None when the set is accepted naming
    the pictures lined up as expected."""
    colour, shot = cal.colours[int(np.random.default_rng([seed, 3]).integers(len(COLOURS)))]
    knocked = render(shot.scene.knocked(seed)).image
    try:
        profile = vision.calibrate(cal.empty.image, {**pictures, colour: knocked})
    except vision.VisionError as error:
        return f"{colour.value} picture knocked, refused: {error}"
    # The pictures are lined up with the last one (white): when that is the one knocked,
    # all the others are.
    names = ("empty", *(c.value for c in COLOURS))
    expected = (colour.value,) if colour != COLOURS[-1] else names[:-1]
    if profile.moved_pictures != expected:
        named = ", ".join(profile.moved_pictures) or "none"
        return f"{colour.value} picture knocked, accepted naming {named}"
    return None


def check_setup(
    seed: int, condition: str, index: int, k: int, reshots: int
) -> tuple[str | None, list[str], str, str | None, bool, str | None]:
    """(why the clean set was refused or None, why each refused re-shot was, what happened
    to the mixed set: 'caught', 'accepted' or 'refused: ...', the set with another colour's
    picture: None when refused, else which picture held which cubes, whether the set
    with the brown and black pictures swapped was refused, and what went wrong with a
    knocked picture or None) for one set-up."""
    setup_seed = sub_seed(seed, k, index)
    cal = calibration_set(setup_seed, condition, tests=0, jpeg=False)
    shots = cal.calibration_pictures()
    pictures = {colour: shots[colour.value].image for colour in COLOURS}
    clean = _refusal(shots["empty"].image, pictures)
    noise = np.random.default_rng([setup_seed, 5])
    refused_reshots = []
    for _ in range(reshots):
        why = _refusal(
            _reshot(shots["empty"].image, noise),
            {colour: _reshot(picture, noise) for colour, picture in pictures.items()},
        )
        if why is not None:
            refused_reshots.append(why)
    rng = np.random.default_rng(setup_seed)
    own, stray = (COLOURS[int(i)] for i in rng.choice(len(COLOURS), 2, replace=False))
    scene = TrayScene.random(
        setup_seed + 7, condition, counts=Counts.of({own: 3, stray: 2}), setup=cal.setup
    )
    mixed = dict(pictures)
    mixed[own] = render(scene).image
    pair = f"{own.value} picture with 2 {stray.value}"
    why = _refusal(shots["empty"].image, mixed)
    if why is None:
        outcome = f"accepted ({pair})"
    elif CAUGHT in why:
        outcome = "caught"
    else:
        outcome = f"refused ({pair}): {why}"
    others = TrayScene.random(
        setup_seed + 11, condition, counts=Counts.of({stray: 3}), setup=cal.setup
    )
    wrong = dict(pictures)
    wrong[own] = render(others).image
    unseen = None
    if _refusal(shots["empty"].image, wrong) is None:
        unseen = f"{own.value} picture with 3 {stray.value} alone"
    swapped = {
        **pictures,
        Colour.BROWN: pictures[Colour.BLACK],
        Colour.BLACK: pictures[Colour.BROWN],
    }
    swap_refused = _refusal(shots["empty"].image, swapped) is not None
    knock = _knock_missed(cal, pictures, setup_seed + 13)
    return clean, refused_reshots, outcome, unseen, swap_refused, knock


def main() -> None:
    """Check every condition and print the table."""
    parser = argparse.ArgumentParser(description="calibration set checks on simulated trays")
    parser.add_argument("--setups", type=int, default=3, help="set-ups per condition and seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[21, 13, 5], help="seeds")
    parser.add_argument("--only", nargs="*", default=None, help="condition names to run")
    parser.add_argument(
        "--reshots", type=int, default=1, help="noisy re-shots of each clean set to calibrate"
    )
    args = parser.parse_args()
    print(
        f"calibration checks: {args.setups} set-ups per condition, seeds {args.seeds}, "
        f"{args.reshots} re-shot(s) of each clean set"
    )
    header = f"{'condition':12} {'sets':>4} {'clean refused':>13} {'re-shots refused':>16} {'mixed caught':>12} {'other':>5} {'accepted':>8} {'other colour refused':>20} {'accepted':>8} {'swap refused':>12} {'accepted':>8} {'knock named':>11} {'not':>4} {'secs':>5}"
    print(header)
    print("-" * len(header))
    notes: list[str] = []
    totals = [0] * 12
    for index, (_, condition) in enumerate(CONDITIONS):
        if condition in NOT_CALIBRATION or (args.only and condition not in args.only):
            continue
        start = time.perf_counter()
        row = [0] * 12
        for seed in args.seeds:
            for k in range(args.setups):
                clean, reshots, mixed, unseen, swap_refused, knock = check_setup(
                    seed, condition, index, k, args.reshots
                )
                where = f"seed {seed} {condition} set-up {k}"
                row[0] += 1
                if clean is not None:
                    row[1] += 1
                    notes.append(f"  {where}: clean set refused: {clean}")
                row[2] += len(reshots)
                notes.extend(f"  {where}: re-shot refused: {why}" for why in reshots)
                if mixed == "caught":
                    row[3] += 1
                elif mixed.startswith("accepted"):
                    row[5] += 1
                    notes.append(f"  {where}: mixed set {mixed}")
                else:
                    row[4] += 1
                    notes.append(f"  {where}: mixed set {mixed}")
                if unseen is None:
                    row[6] += 1
                else:
                    row[7] += 1
                    notes.append(f"  {where}: accepted the {unseen}")
                if swap_refused:
                    row[8] += 1
                else:
                    row[9] += 1
                    notes.append(f"  {where}: accepted the brown and black pictures swapped")
                if knock is None:
                    row[10] += 1
                else:
                    row[11] += 1
                    notes.append(f"  {where}: {knock}")
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        seconds = time.perf_counter() - start
        print(
            f"{condition:12} {row[0]:4d} {row[1]:13d} {row[2]:16d} {row[3]:12d} {row[4]:5d} "
            f"{row[5]:8d} {row[6]:20d} {row[7]:8d} {row[8]:12d} {row[9]:8d} {row[10]:11d} "
            f"{row[11]:4d} {seconds:5.0f}",
            flush=True,
        )
    print("-" * len(header))
    print(
        f"{'all':12} {totals[0]:4d} {totals[1]:13d} {totals[2]:16d} {totals[3]:12d} "
        f"{totals[4]:5d} {totals[5]:8d} {totals[6]:20d} {totals[7]:8d} {totals[8]:12d} "
        f"{totals[9]:8d} {totals[10]:11d} {totals[11]:4d}"
    )
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
