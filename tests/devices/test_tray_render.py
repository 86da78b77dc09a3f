"""The simulated tray renderer: deterministic, truthful, and geometrically consistent."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.simtray.backdrop import backdrop_for, tray_points
from companion.devices.simtray.colour import blackbody_rgb
from companion.devices.simtray.layout import arrange, polygons_overlap
from companion.devices.tray_render import (
    CONDITIONS,
    SetUp,
    TrayScene,
    calibration_set,
    clear_caches,
    drop_frames,
    render,
    session_frames,
    write_set,
    write_video,
)

SMALL = (400, 300)


def small(scene: TrayScene) -> TrayScene:
    """The same scene at a small picture size, so tests stay quick."""
    return dataclasses.replace(scene, setup=dataclasses.replace(scene.setup, image_size=SMALL))


def test_picture_size_can_be_asked_for() -> None:
    scene = TrayScene.random(6, "any", image_size=(320, 200))
    assert scene.image_size == (320, 200)
    assert render(scene).image.shape == (200, 320, 3)
    with pytest.raises(ValueError, match="picture size"):
        TrayScene.random(6, image_size=(0, 100))


def test_same_seed_same_picture_and_truth() -> None:
    scene = TrayScene.random(41, "clustered")
    assert TrayScene.random(41, "clustered") == scene
    first = render(small(scene), jpeg=True)
    clear_caches()
    again = render(small(TrayScene.random(41, "clustered")), jpeg=True)
    assert first.jpeg == again.jpeg
    assert np.array_equal(first.image, again.image)
    assert first.cubes == again.cubes
    other = render(small(TrayScene.random(42, "clustered")))
    assert not np.array_equal(first.image, other.image)


@pytest.mark.parametrize(
    "counts",
    [
        Counts(),
        Counts(blue=1),
        Counts.from_tuple([2, 0, 3, 1, 0, 4, 1]),
        Counts.full(),
    ],
)
def test_truth_counts_equal_requested_counts(counts: Counts) -> None:
    scene = small(TrayScene.random(7, "any", counts=counts))
    shot = render(scene)
    assert shot.counts == counts
    assert len(shot.cubes) == counts.total
    for colour in COLOURS:
        assert sum(1 for c in shot.cubes if c.colour is colour) == counts[colour]


@pytest.mark.parametrize("seed", [3, 11])
def test_every_cube_lies_inside_the_tray_quadrilateral(seed: int) -> None:
    scene = small(TrayScene.random(seed, "tilted", counts=Counts.full()))
    shot = render(scene)
    backdrop = backdrop_for(scene.setup)
    floor_quad = np.array(shot.tray_corners, dtype=np.float32)
    box_uv, _ = backdrop.camera.project(tray_points(scene.setup.tray))
    outline = cv2.convexHull(box_uv.astype(np.float32))
    width, height = scene.image_size
    for cube in shot.cubes:
        # Where the cube stands on the floor is inside the floor's quadrilateral...
        foot = np.array([[cube.centre_mm[0], cube.centre_mm[1], 0.0]])
        uv, _ = backdrop.camera.project(foot)
        assert cv2.pointPolygonTest(floor_quad, (float(uv[0, 0]), float(uv[0, 1])), False) > 0
        # ...and its upper face's centre is inside the tray's outline and the picture.
        assert cv2.pointPolygonTest(outline, (cube.x, cube.y), False) >= 0
        assert 0 <= cube.x < width and 0 <= cube.y < height
    assert min(c.visible_fraction for c in shot.cubes) >= 0.0


def test_tray_corners_run_clockwise_from_top_left() -> None:
    shot = render(small(TrayScene.random(5, "any", counts=Counts())))
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = shot.tray_corners
    assert tlx < trx and blx < brx
    assert tly < bly and try_ < bry


def test_cubes_are_drawn_where_the_truth_says() -> None:
    scene = TrayScene.random(17, "neutral", counts=Counts.from_tuple([2, 2, 2, 2, 2, 2, 2]))
    shot = render(scene)
    empty = render(dataclasses.replace(scene, counts=Counts()))
    changed = np.abs(shot.image.astype(np.int16) - empty.image.astype(np.int16)).max(axis=2)
    for cube in shot.cubes:
        if cube.occluded:
            continue
        x, y = round(cube.x), round(cube.y)
        patch = changed[y - 2 : y + 3, x - 2 : x + 3]
        assert patch.mean() > 12, f"no cube drawn at {cube}"
    # Far from every cube (and its shadow) the picture is the empty tray's.
    corner = shot.tray_corners[0]
    assert changed[int(corner[1]) + 2, int(corner[0]) + 2] < 40


def test_jpeg_bytes_decode_to_the_image() -> None:
    shot = render(small(TrayScene.random(23, "noisy")), jpeg=True)
    assert shot.jpeg is not None and shot.jpeg[:2] == b"\xff\xd8"
    decoded = cv2.imdecode(np.frombuffer(shot.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, shot.image)
    assert shot.image.dtype == np.uint8 and shot.image.shape == (SMALL[1], SMALL[0], 3)
    assert render(small(TrayScene.random(23, "noisy"))).jpeg is None


def test_calibration_set_shares_one_set_up_and_one_colour_per_picture(tmp_path: Path) -> None:
    cal = calibration_set(8, "warm", tests=2, image_size=SMALL)
    pictures = cal.calibration_pictures()
    assert list(pictures) == ["empty", *[c.value for c in COLOURS]]
    assert pictures["empty"].counts == Counts()
    for colour in COLOURS:
        counts = pictures[colour.value].counts
        assert counts[colour] >= 1
        assert counts.total == counts[colour], f"{colour} picture holds other colours"
    for picture in [*pictures.values(), *cal.tests]:
        assert picture.scene.setup == cal.setup
    assert cal.setup.light.kelvin <= 3200

    truth_path = write_set(cal, tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    expected = ["empty.png", *[f"{c.value}.png" for c in COLOURS]]
    assert names == sorted([*expected, "test_000.jpg", "test_001.jpg", "truth.json"])
    truth = json.loads(truth_path.read_text())
    assert [r["image"] for r in truth["pictures"]] == ["test_000.jpg", "test_001.jpg"]
    for record, picture in zip(truth["pictures"], cal.tests, strict=True):
        assert record["counts"] == picture.counts.as_dict()
        assert len(record["cubes"]) == picture.counts.total
        on_disk = cv2.imread(str(tmp_path / record["image"]))
        assert np.array_equal(on_disk, picture.image)
    white = cv2.imread(str(tmp_path / "white.png"))
    assert np.array_equal(white, pictures["white"].image)


def test_conditions_pin_what_they_name() -> None:
    for seed in range(4):
        assert TrayScene.random(seed, "warm").light_kelvin <= 3200
        assert TrayScene.random(seed, "daylight").light_kelvin >= 5800
        assert TrayScene.random(seed, "tilted").setup.camera.tilt_deg >= 15
        assert 30 <= TrayScene.random(seed, "setup-drop").counts.total <= 49
        assert TrayScene.random(seed, "empty").counts == Counts()
        assert TrayScene.random(seed, "noisy").jpeg_quality <= 70
        assert TrayScene.random(seed, "colourful").setup.tray.print_kind == "colourful"
        hard = TrayScene.random(seed, "hard-pairs")
        assert hard.light_kelvin <= 3500 and 4 <= hard.counts.total <= 12
        assert not {Colour.BLUE, Colour.GREEN} & set(hard.counts.present())
        for condition in CONDITIONS:
            counts = TrayScene.random(seed, condition).counts
            assert all(n <= 7 for n in counts.as_tuple())
    with pytest.raises(ValueError, match="unknown condition"):
        TrayScene.random(1, "sunset")


def test_special_pictures() -> None:
    hand = render(small(TrayScene.random(2, "hand")))
    assert hand.hand_in_view
    plain = render(small(dataclasses.replace(TrayScene.random(2, "hand"), hand=None)))
    changed = np.abs(hand.image.astype(int) - plain.image.astype(int)).max(axis=2) > 30
    assert changed.mean() > 0.03, "the hand should cover a good part of the picture"
    other = render(small(TrayScene.random(2, "no-tray")))
    assert not other.has_tray and other.counts == Counts()
    elsewhere = TrayScene.random(3, "no-tray", setup=SetUp.random(2))
    assert not elsewhere.setup.has_tray
    dark = render(small(TrayScene.random(2, "dark")))
    assert dark.image.mean() < 30 < plain.image.mean()


def test_layout_has_no_interpenetrating_cubes() -> None:
    for seed in range(3):
        scene = TrayScene.random(seed, "clustered", counts=Counts.full())
        cubes = arrange(
            scene.counts, scene.setup.tray, scene.arrangement, np.random.default_rng(seed)
        )
        assert len(cubes) == 49
        a, b = scene.setup.tray.width_mm / 2, scene.setup.tray.depth_mm / 2
        for i, cube in enumerate(cubes):
            corners = cube.corners()
            assert np.all(np.abs(corners[:, 0]) <= a + 0.1)
            assert np.all(np.abs(corners[:, 1]) <= b + 0.1)
            assert corners[:, 2].min() >= -0.01
            for j in range(i):
                other = cubes[j]
                same_level = cube.stacked == other.stacked
                touching_support = i == other.support or j == cube.support
                if same_level and not touching_support:
                    assert not polygons_overlap(cube.footprint(), other.footprint())
            if cube.stacked:
                support = cubes[cube.support]
                top = support.centre[2] + support.size / 2
                assert corners[:, 2].min() == pytest.approx(top, abs=0.01)


def test_drop_frames_roll_then_settle() -> None:
    scene = small(TrayScene.random(12, "any", counts=Counts(red=2, white=2)))
    frames = drop_frames(scene, frames=10)
    assert len(frames) == 10
    assert any(f.moving for f in frames)
    assert not frames[-1].moving and frames[-1].counts == scene.counts
    assert frames[0].counts.total <= scene.counts.total
    settled = [f for f in frames if not f.moving and f.counts == scene.counts]
    assert len(settled) >= 2
    # A still tray differs between frames only by sensor noise.
    diff = np.abs(settled[-1].image.astype(int) - settled[-2].image.astype(int))
    assert 0 < diff.mean() < 6


def test_blackbody_colours() -> None:
    warm = blackbody_rgb(2700)
    daylight = blackbody_rgb(6500)
    assert warm[0] > warm[1] > warm[2]
    assert daylight[0] == pytest.approx(1.0, abs=0.05)
    assert daylight[2] == pytest.approx(1.0, abs=0.06)
    with pytest.raises(ValueError):
        blackbody_rgb(100)


def test_too_many_cubes_is_refused_with_a_reason() -> None:
    setup = SetUp.random(1)
    with pytest.raises(ValueError, match="at most 60"):
        TrayScene.random(1, counts=Counts.from_tuple([9] * 7), setup=setup)
    assert Colour.WHITE in TrayScene.random(1, counts=Counts(white=1)).counts.present()


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vision"


def test_committed_fixtures_are_small_readable_and_consistent() -> None:
    folder = FIXTURES / "warm_wood"
    truth = json.loads((folder / "truth.json").read_text())
    names = [r["image"] for r in truth["calibration"]]
    assert names == ["empty.jpg", *[f"{c.value}.jpg" for c in COLOURS]]
    for record in truth["calibration"] + truth["pictures"]:
        path = folder / record["image"]
        assert path.stat().st_size < 60_000, f"{path.name} is too big for a fixture"
        image = cv2.imread(str(path))
        assert image is not None and image.shape[:2][::-1] == tuple(record["image_size"])
        assert set(record["counts"]) == {c.value for c in COLOURS}
        listed = Counter(cube["colour"] for cube in record["cubes"])
        assert all(record["counts"][c] == listed.get(c, 0) for c in record["counts"])
        quad = np.array(record["tray_corners"], dtype=np.float32)
        assert cv2.contourArea(quad) > 0.2 * image.shape[0] * image.shape[1]
    for colour in COLOURS:
        record = truth["calibration"][1 + COLOURS.index(colour)]
        assert [c for c, n in record["counts"].items() if n] == [colour.value]


SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_trays.py"


def test_make_trays_writes_calibration_folders(tmp_path: Path) -> None:
    args = [sys.executable, str(SCRIPT), str(tmp_path), "--n", "1", "--seed", "4"]
    done = subprocess.run(
        [*args, "--tests", "1", "--size", "320x240", "--condition", "clustered"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "setup_000"
    names = sorted(p.name for p in folder.iterdir())
    expected = ["empty.png", *[f"{c.value}.png" for c in COLOURS], "test_000.jpg", "truth.json"]
    assert names == sorted(expected)
    assert cv2.imread(str(folder / "test_000.jpg")).shape == (240, 320, 3)
    bad = subprocess.run([*args, "--size", "big"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "WIDTHxHEIGHT" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_bumped_camera_moves_the_tray_in_the_picture() -> None:
    cal = calibration_set(14, "bumped", tests=1, image_size=SMALL)
    assert cal.empty.scene.setup == cal.setup
    moved = cal.tests[0]
    assert moved.scene.setup != cal.setup
    shift = np.abs(np.array(moved.tray_corners) - np.array(cal.empty.tray_corners)).max()
    assert shift > 1.0


def test_a_scene_knocked_keeps_its_cubes_and_takes_the_bumped_draw() -> None:
    # The same cubes where they lay, the camera knocked as a "bumped" scene of that seed is.
    cal = calibration_set(14, "neutral", tests=0, image_size=SMALL)
    scene = cal.colours[0][1].scene
    knocked = scene.knocked(3)
    assert knocked.arrangement == scene.arrangement and knocked.counts == scene.counts
    bumped = TrayScene.random(3, "bumped", counts=scene.counts, setup=scene.setup)
    assert knocked.setup == bumped.setup != scene.setup
    shift = np.abs(np.array(render(knocked).tray_corners) - np.array(cal.empty.tray_corners))
    assert shift.max() > 1.0


def test_a_knocked_camera_keeps_its_lens() -> None:
    # Knocked, this set-up's camera may no longer fit the whole tray in its picture: widening
    # the view to fit it zoomed out by up to 17%, which no knock does.
    cal = calibration_set(428648480, "bumped", tests=4, image_size=SMALL)
    lens = backdrop_for(cal.setup).camera.focal_px
    refitted = []
    for shot in cal.tests:
        knocked = shot.scene.setup
        assert knocked.camera != cal.setup.camera
        assert backdrop_for(knocked).camera.focal_px == pytest.approx(lens, rel=1e-9)
        loose = dataclasses.replace(
            knocked, camera=dataclasses.replace(knocked.camera, lens_fixed=False)
        )
        refitted.append(backdrop_for(loose).camera.focal_px / lens)
    assert min(refitted) < 0.97, refitted


def test_a_session_video_reads_back_with_its_truth(tmp_path: Path) -> None:
    frames = session_frames(3, drops=1, still=2, image_size=SMALL)
    truth_path = write_video(frames, tmp_path / "session.avi")
    truth = json.loads(truth_path.read_text())
    states = [f["state"] for f in truth["frames"]]
    assert {"still", "hand", "rolling"} <= set(states)
    capture = cv2.VideoCapture(str(tmp_path / "session.avi"))
    read = 0
    while True:
        ok, image = capture.read()
        if not ok:
            break
        assert image.shape == (SMALL[1], SMALL[0], 3)
        read += 1
    capture.release()
    assert read == len(frames) == len(states)
    # After the cubes stop rolling the tray holds the whole drop, until a hand clears it.
    last_rolling = max(i for i, s in enumerate(states) if s == "rolling")
    settled = truth["frames"][last_rolling + 1]
    assert settled["state"] == "still" and sum(settled["counts"].values()) > 0
    assert sum(truth["frames"][-1]["counts"].values()) == 0
