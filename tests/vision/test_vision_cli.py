"""The command-line contract of `companion calibrate`, `count` and `watch` (DESIGN.md 4)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.core.cubes import COLOURS, Counts
from companion.devices.tray_render import (
    CalibrationSet,
    TrayScene,
    calibration_set,
    drop_frames,
    render,
    write_set,
)

FIELDS = {"image", "counts", "confidence", "confident", "reasons", "cubes"}


@pytest.fixture(scope="module")
def folder(cal: CalibrationSet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The calibration set written as `companion calibrate` reads it, test pictures beside."""
    target = tmp_path_factory.mktemp("calibration")
    write_set(cal, target)
    return target


@pytest.fixture(scope="module")
def profile_file(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("profile") / "profile.json"
    assert main(["calibrate", str(folder), "--out", str(out)]) == 0
    return out


def _copy(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "set"
    shutil.copytree(folder, target)
    return target


def test_calibrate_writes_profile_and_summary(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.json"
    out.write_text("old contents")
    assert main(["calibrate", str(folder), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"profile written to {out}" in printed
    assert all(colour.value in printed for colour in COLOURS)
    assert json.loads(out.read_text())["version"] == 1


def test_calibrate_says_which_colours_the_camera_clipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Daylight set-up whose white cubes are at the camera's limit in their picture.
    write_set(calibration_set(1169834635, "daylight", tests=0, jpeg=False), tmp_path)
    assert main(["calibrate", str(tmp_path), "--out", str(tmp_path / "p.json")]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "clipped (too bright" in lines["white"]
    assert "clipped" not in lines["black"]


def test_calibrate_naming_rules(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures = _copy(folder, tmp_path)
    # Any case of name and extension works.
    (pictures / "blue.png").rename(pictures / "Blue.PNG")
    (pictures / "white.png").rename(pictures / "WHITE.Jpeg")
    assert main(["calibrate", str(pictures), "--out", str(tmp_path / "a.json")]) == 0
    # Two pictures for one name is an error.
    shutil.copy(pictures / "red.png", pictures / "red.jpg")
    assert main(["calibrate", str(pictures), "--out", str(tmp_path / "b.json")]) == 2
    assert "two pictures for red" in capsys.readouterr().err
    (pictures / "red.jpg").unlink()
    # A missing colour is named.
    (pictures / "green.png").unlink()
    assert main(["calibrate", str(pictures), "--out", str(tmp_path / "c.json")]) == 2
    assert "no picture for green" in capsys.readouterr().err
    assert main(["calibrate", str(tmp_path / "nowhere"), "--out", str(tmp_path / "d.json")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_calibrate_refuses_unreadable_picture(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pictures = _copy(folder, tmp_path)
    (pictures / "empty.png").write_bytes(b"not a picture")
    assert main(["calibrate", str(pictures), "--out", str(tmp_path / "p.json")]) == 2
    assert "empty.png" in capsys.readouterr().err


def test_count_json_lines_in_order_with_errors(
    folder: Path, profile_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = sorted(str(p) for p in folder.glob("test_*.jpg"))[:3]
    truncated = tmp_path / "cut.jpg"
    truncated.write_bytes(Path(good[0]).read_bytes()[:3000])
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(good[0]), (320, 240)))
    images = [good[0], str(truncated), good[1], str(tmp_path / "missing.jpg"), str(small), good[2]]
    status = main(["count", *images, "--profile", str(profile_file), "--json"])
    assert status == 2
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == images
    for line in (lines[0], lines[2], lines[5]):
        assert set(line) == FIELDS
        assert list(line["counts"]) == [c.value for c in COLOURS]
        assert 0.0 <= line["confidence"] <= 1.0
        assert len(line["cubes"]) == sum(line["counts"].values())
    assert "truncated" in lines[1]["error"]
    assert "does not exist" in lines[3]["error"]
    assert "320x240" in lines[4]["error"]


def test_count_table_and_annotations(
    folder: Path, profile_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = str(sorted(folder.glob("test_*.jpg"))[0])
    notes = tmp_path / "notes"
    assert (
        main(["count", image, image, "--profile", str(profile_file), "--annotate", str(notes)]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:8] == ["image", *(c.code for c in COLOURS)]
    assert len(out) == 3
    written = sorted(notes.glob("*.png"))
    assert [p.name for p in written] == ["test_000-annotated-2.png", "test_000-annotated.png"]
    assert cv2.imread(str(written[0])).shape == cv2.imread(image).shape


def test_count_with_bad_profile_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["count", "x.png", "--profile", str(bad), "--json"]) == 2
    assert "profile" in capsys.readouterr().err


def test_no_traceback_from_the_real_command(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "count",
            "x.png",
            "--profile",
            str(tmp_path / "no.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "does not exist" in result.stderr


def test_watch_reports_rolling_then_one_reading(
    cal: CalibrationSet, profile_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = TrayScene.random(43, "neutral", counts=Counts(red=1, green=2), setup=cal.setup)
    frames = [shot.image for shot in drop_frames(scene, frames=10, fps=15.0)]
    frames += [render(scene, frame=200 + k).image for k in range(14)]
    height, width = frames[0].shape[:2]
    video = tmp_path / "drop.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 15.0, (width, height))
    for image in frames:
        writer.write(np.ascontiguousarray(image))
    writer.release()
    assert main(["watch", str(video), "--profile", str(profile_file), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    statuses = [line["status"] for line in lines if "status" in line]
    readings = [line for line in lines if "counts" in line]
    assert "rolling" in statuses
    assert len(readings) == 1
    assert list(readings[0]["counts"]) == [c.value for c in COLOURS]
    assert readings[0]["moved_by_hand"] is False
    if readings[0]["confident"]:
        assert readings[0]["counts"] == scene.counts.as_dict()


def test_watch_missing_source_exits_2(
    profile_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["watch", "no-such-video.avi", "--profile", str(profile_file)]) == 2
    assert "no-such-video.avi" in capsys.readouterr().err


def test_watch_says_a_still_picture_is_for_count(
    cal: CalibrationSet, profile_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "tray.png"
    cv2.imwrite(str(picture), cal.tests[0].image)
    assert main(["watch", str(picture), "--profile", str(profile_file)]) == 2
    error = capsys.readouterr().err
    assert "single frame" in error and "companion count" in error


def test_watch_says_when_the_video_ends_before_the_drop_settles(
    cal: CalibrationSet, profile_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = TrayScene.random(43, "neutral", counts=Counts(red=1, green=2), setup=cal.setup)
    frames = [shot.image for shot in drop_frames(scene, frames=10, fps=15.0)]
    height, width = frames[0].shape[:2]
    video = tmp_path / "cut.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 15.0, (width, height))
    for image in frames[:5]:
        writer.write(np.ascontiguousarray(image))
    writer.release()
    assert main(["watch", str(video), "--profile", str(profile_file)]) == 0
    captured = capsys.readouterr()
    assert "rolling" in captured.out
    assert "the last drop was not read" in captured.err
