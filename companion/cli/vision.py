"""`companion calibrate`, `count` and `watch`: the tray camera from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2

from companion.cli.errors import CommandError
from companion.core.cubes import COLOURS
from companion.vision import (
    BGRImage,
    CalibrationError,
    ImageError,
    Profile,
    ProfileError,
    TrayReading,
    calibrate,
    load_image,
    read_tray,
)
from companion.vision.camouflage import camouflaged
from companion.vision.lit import white_in_shade
from companion.vision.settle import SettledReading, Settler, StatusChange

PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg")
CALIBRATION_NAMES = ("empty", *(c.value for c in COLOURS))

CLIPPED_NOTE = "  clipped (too bright: less light or exposure tells it apart better)"
HIDING_NOTE = "  hard to see: {share:.0%} of the floor looks like it"
SHADE_ADVICE = (
    "the white cubes look darker than most of the floor (L {white:.0f} against {floor:.0f}): "
    "they may have lain in shade; take the white picture again with them in the open light"
)
MOVED_ADVICE = (
    "the tray (or the camera) moved between the pictures: the {pictures} lined up with the "
    "last one (white), where the tray lies now. If it moves again, calibrate again"
)
HIDING_ADVICE = (
    "the floor's print looks like {colours} cubes; a lamp from one side (their edges and "
    "shadows then show) or a tray insert of another colour helps; calibrate again after"
)


def register(subparsers: Any) -> None:
    """Add the `calibrate`, `count` and `watch` commands."""
    cal = subparsers.add_parser(
        "calibrate",
        help="learn a camera set-up from pictures of the empty tray and of each colour",
        description=(
            "DIR holds empty.png (the empty tray) and one picture per colour named blue, black, "
            "red, brown, green, yellow, white (.png, .jpg or .jpeg, any case), each showing "
            "only cubes of that colour. Writes the profile to --out (overwriting it)."
        ),
    )
    cal.add_argument("folder", type=Path, metavar="DIR", help="folder with the pictures")
    cal.add_argument("--out", type=Path, required=True, metavar="PROFILE.json")
    cal.set_defaults(handler=run_calibrate)

    count = subparsers.add_parser(
        "count",
        help="count the cubes in tray pictures",
        description=(
            "Count the cubes in each picture with a profile from `companion calibrate`. "
            "Exit status 2 when any picture could not be read."
        ),
    )
    count.add_argument("images", nargs="+", type=str, metavar="IMAGE")
    count.add_argument("--profile", type=Path, required=True, metavar="PROFILE.json")
    count.add_argument("--json", action="store_true", help="one JSON object per picture per line")
    count.add_argument("--annotate", type=Path, metavar="DIR", help="write annotated pictures here")
    count.set_defaults(handler=run_count)

    watch = subparsers.add_parser(
        "watch",
        help="report settled readings from a camera or a video file",
        description=(
            "Watch a camera (an index such as 0) or a video file; print one line per settled "
            "reading and one per status change, until the source ends or Ctrl-C."
        ),
    )
    watch.add_argument("source", metavar="SOURCE", help="camera index, video file, or `sim`")
    watch.add_argument("--profile", type=Path, required=True, metavar="PROFILE.json")
    watch.add_argument("--json", action="store_true", help="one JSON object per line")
    watch.set_defaults(handler=run_watch)


def calibration_files(folder: Path) -> dict[str, Path]:
    """The picture file for each calibration name in `folder`; CommandError naming what is wrong."""
    if not folder.is_dir():
        raise CommandError(f"{folder} is not a folder; give the folder with the pictures")
    found: dict[str, list[Path]] = {}
    for file in sorted(folder.iterdir()):
        if file.is_file() and file.suffix.lower() in PICTURE_SUFFIXES:
            name = file.stem.lower()
            if name in CALIBRATION_NAMES:
                found.setdefault(name, []).append(file)
    doubles = {name: files for name, files in found.items() if len(files) > 1}
    if doubles:
        name, files = next(iter(doubles.items()))
        listed = ", ".join(f.name for f in files)
        raise CommandError(f"two pictures for {name} in {folder} ({listed}); keep only one")
    missing = [name for name in CALIBRATION_NAMES if name not in found]
    if missing:
        raise CommandError(
            f"{folder} has no picture for {', '.join(missing)}; name them "
            f"{', '.join(CALIBRATION_NAMES)} with .png, .jpg or .jpeg"
        )
    return {name: files[0] for name, files in found.items()}


def run_calibrate(args: argparse.Namespace) -> int:
    """Calibrate from a folder of pictures and write the profile; print a summary."""
    files = calibration_files(args.folder)
    try:
        pictures = {name: load_image(path) for name, path in files.items()}
        profile = calibrate(pictures["empty"], {c: pictures[c.value] for c in COLOURS})
    except (ImageError, CalibrationError) as error:
        raise CommandError(str(error)) from None
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        profile.save(args.out)
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror or error}") from None
    where = "found" if profile.tray_found else "NOT found (the whole picture is used)"
    print(f"profile written to {args.out}")
    print(f"pictures {profile.picture_width}x{profile.picture_height}, tray {where}")
    corners = ", ".join(f"({x:.0f},{y:.0f})" for x, y in profile.tray_corners)
    print(f"tray corners {corners}")
    print(
        f"cube side {profile.cube_side:.1f} px in the {profile.view_width}x{profile.view_height} tray view"
    )
    hidden = camouflaged(profile)
    for colour in COLOURS:
        model = profile.colours[colour]
        lab = " ".join(f"{v:6.1f}" for v in model.mean)
        # A clipped colour is told apart less sharply: the person can dim the light.
        clipped = CLIPPED_NOTE if model.clipped else ""
        hiding = HIDING_NOTE.format(share=hidden[colour]) if colour in hidden else ""
        print(
            f"  {colour.value:<7} {model.cubes_seen:2d} cubes  Lab {lab}  area {model.cube_area:5.0f} px"
            f"{clipped}{hiding}"
        )
    if hidden:
        names = " and ".join(colour.value for colour in hidden)
        print("warning: " + HIDING_ADVICE.format(colours=names))
    if profile.moved_pictures:
        names = " and ".join(profile.moved_pictures)
        many = len(profile.moved_pictures) > 1
        which = f"{names} {'pictures were' if many else 'picture was'}"
        print("warning: " + MOVED_ADVICE.format(pictures=which))
    shaded = white_in_shade(profile)
    if shaded is not None:
        print("warning: " + SHADE_ADVICE.format(white=shaded[0], floor=shaded[1]))
    return 0


def load_profile(path: Path) -> Profile:
    """The profile at `path`, or CommandError with the reason."""
    try:
        return Profile.load(path)
    except ProfileError as error:
        raise CommandError(str(error)) from None


def _annotation_path(folder: Path, image: str, used: set[Path]) -> Path:
    """A new file name in `folder` for the annotated version of `image`."""
    stem = Path(image).stem or "picture"
    candidate = folder / f"{stem}-annotated.png"
    number = 2
    while candidate in used:
        candidate = folder / f"{stem}-annotated-{number}.png"
        number += 1
    used.add(candidate)
    return candidate


def run_count(args: argparse.Namespace) -> int:
    """Count each picture; one line (JSON or table row) per picture, in order."""
    profile = load_profile(args.profile)
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CommandError(f"cannot make {args.annotate}: {error.strerror or error}") from None
    status = 0
    used: set[Path] = set()
    if not args.json:
        print(f"{'image':<30} " + " ".join(f"{c.code:>3}" for c in COLOURS) + "  conf  reasons")
    for image in args.images:
        try:
            reading = read_tray(load_image(image), profile, annotate=args.annotate is not None)
        except ImageError as error:
            status = 2
            if args.json:
                print(json.dumps({"image": image, "error": str(error)}), flush=True)
            else:
                print(f"{image:<30} error: {error}", flush=True)
            continue
        if args.annotate is not None and reading.picture is not None:
            target = _annotation_path(args.annotate, image, used)
            if not cv2.imwrite(str(target), reading.picture):
                print(f"companion count: could not write {target}", file=sys.stderr)
        print(_line(image, reading, as_json=args.json), flush=True)
    return status


def _line(image: str, reading: TrayReading, *, as_json: bool) -> str:
    """One output line for a reading."""
    if as_json:
        return json.dumps({"image": image, **reading.as_json()})
    counts = " ".join(f"{reading.counts[c]:>3}" for c in COLOURS)
    mark = "ok" if reading.confident else "UNSURE"
    reasons = "; ".join(reading.reasons)
    return f"{image:<30} {counts}  {reading.confidence:4.2f} {mark} {reasons}".rstrip()


def _video_fps(source: str) -> float | None:
    """Frames per second of a video file (None for cameras and unknown rates)."""
    if source.isdigit() or not Path(source).is_file():
        return None
    capture = cv2.VideoCapture(source)
    try:
        fps = float(capture.get(cv2.CAP_PROP_FPS))
    finally:
        capture.release()
    return fps if fps > 0 else None


def run_watch(args: argparse.Namespace) -> int:
    """Print status changes and settled readings until the source ends or Ctrl-C."""
    from companion.devices.frames import (
        CameraLost,
        FrameSourceError,
        FrameTimeout,
        SourceEnded,
        open_source,
    )

    profile = load_profile(args.profile)
    fps = _video_fps(args.source)
    try:
        source = open_source(args.source)
    except FrameSourceError as error:
        raise CommandError(str(error)) from None
    settler = Settler(profile)
    status = 0
    frames = 0
    with source:
        while True:
            try:
                frame = source.read()
            except SourceEnded:
                break
            except FrameTimeout as error:
                _emit(settler.lost(time.monotonic(), str(error)), args.json)
                continue
            except CameraLost as error:
                _emit(settler.lost(time.monotonic(), str(error)), args.json)
                status = 1
                break
            # A video file decodes faster than it was filmed: use its own clock.
            timestamp = frame.index / fps if fps else frame.timestamp
            image: BGRImage = frame.image
            frames += 1
            _emit(settler.feed(image, timestamp), args.json)
    if frames == 1 and status == 0:
        # (OpenCV opens a picture as a video of one frame: nothing can settle in it.)
        raise CommandError(
            f"{args.source} holds a single frame: count a still picture with `companion count`"
        )
    if status == 0 and (unread := settler.unread()) is not None:
        print(f"companion watch: {unread}", file=sys.stderr)
    return status


def _emit(events: list[StatusChange | SettledReading], as_json: bool) -> None:
    """Print events, one line each."""
    for event in events:
        if isinstance(event, StatusChange):
            if as_json:
                line: dict[str, Any] = {
                    "time": round(event.timestamp, 3),
                    "status": event.status.value,
                    "message": event.message,
                }
                print(json.dumps(line), flush=True)
            else:
                print(f"{event.timestamp:9.2f}s  {event.status.value}: {event.message}", flush=True)
        else:
            if as_json:
                payload = {
                    "time": round(event.timestamp, 3),
                    **event.reading.as_json(),
                    "moved_by_hand": event.moved_by_hand,
                }
                print(json.dumps(payload), flush=True)
            else:
                text = _line(f"{event.timestamp:9.2f}s", event.reading, as_json=False)
                after_hand = "  (after a hand moved the cubes)" if event.moved_by_hand else ""
                print(text + after_hand, flush=True)


__all__ = ["register"]
