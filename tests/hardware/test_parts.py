"""Every printed part renders with OpenSCAD, without warnings, to a closed solid that fits.

The parts are rendered once per session by hardware/render.sh, the same script `make parts`
runs, into a temporary directory.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from stl_mesh import Mesh, read_ascii_stl

REPO = Path(__file__).resolve().parents[2]
HARDWARE = REPO / "hardware"
SCAD = HARDWARE / "scad"
RENDER = HARDWARE / "render.sh"
# Shared files that are not parts (render.sh keeps the same list).
NOT_PARTS = {"params", "lib", "assembly"}
PARTS = sorted(p.stem for p in SCAD.glob("*.scad") if p.stem not in NOT_PARTS)

Params = dict[str, float | list[float]]


def num(params: Params, name: str) -> float:
    """A single-number parameter (mm)."""
    value = params[name]
    assert isinstance(value, float), f"{name} is not a number: {value!r}"
    return value


def _need_openscad() -> None:
    if shutil.which("openscad") is None:
        pytest.fail(
            "openscad is not installed: run `bash scripts/system-packages.sh` as root "
            "(or `make test`, which does)"
        )


def _openscad(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["openscad", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(scope="session")
def params(tmp_path_factory: pytest.TempPathFactory) -> Params:
    """Values from params.scad as OpenSCAD itself evaluates them (numbers and number lists)."""
    _need_openscad()
    names = [
        "bed",
        "camera_height",
        "tray_floor",
        "cam_depth",
        "arm_bar",
        "led_ring_od",
        "led_holder_screw_spacing",
        "wall",
        "tower_exit_w",
        "tower_exit_h",
        "chute_len",
    ]
    work = tmp_path_factory.mktemp("params")
    probe = work / "probe.scad"
    probe.write_text(
        f"include <{SCAD / 'params.scad'}>\n"
        + "echo("
        + ", ".join(f"{n}={n}" for n in names)
        + ");\n"
    )
    result = _openscad("-o", str(work / "values.echo"), str(probe), cwd=work)
    assert result.returncode == 0, result.stderr
    echoed = (work / "values.echo").read_text()
    values: Params = {}
    for name in names:
        match = re.search(rf"\b{name} = (\[[^\]]*\]|[-0-9.e]+)", echoed)
        assert match, f"{name} missing from {echoed!r}"
        text = match.group(1)
        values[name] = (
            [float(x) for x in text.strip("[]").split(",")] if text.startswith("[") else float(text)
        )
    return values


@pytest.fixture(scope="session")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Mesh]:
    """Every part rendered by hardware/render.sh, read back as a mesh, by part name."""
    _need_openscad()
    out = tmp_path_factory.mktemp("stl")
    result = subprocess.run(
        ["bash", str(RENDER), "stl", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f"render failed:\n{result.stdout}\n{result.stderr}"
    return {path.stem: read_ascii_stl(path) for path in sorted(out.glob("*.stl"))}


def test_there_are_the_four_parts_the_issue_names() -> None:
    assert PARTS == ["camera_arm", "chute_sensor_housing", "led_ring_holder", "pi_screen_stand"]


def test_every_part_renders_to_one_stl(rendered: dict[str, Mesh]) -> None:
    assert sorted(rendered) == PARTS


@pytest.mark.parametrize("part", PARTS)
def test_part_is_a_closed_solid(rendered: dict[str, Mesh], part: str) -> None:
    mesh = rendered[part]
    assert len(mesh.triangles) >= 12, "fewer facets than a cube"
    open_edges = mesh.open_edges()
    assert not open_edges, f"{part} is not closed; first open edges: {open_edges[:3]}"
    # Facets face outwards, and the solid holds at least 5 cm^3 of plastic but is not a brick.
    assert 5_000 < mesh.volume() < 300_000


@pytest.mark.parametrize("part", PARTS)
def test_part_fits_the_printer_and_is_not_paper_thin(
    rendered: dict[str, Mesh], params: Params, part: str
) -> None:
    bed = params["bed"]
    assert isinstance(bed, list)
    size = rendered[part].size()
    assert size[0] <= bed[0] and size[1] <= bed[1] and size[2] <= bed[2], f"{part}: {size}"
    assert min(size) >= 2 * num(params, "wall")


def test_camera_arm_reaches_the_camera_height(rendered: dict[str, Mesh], params: Params) -> None:
    # Printed lying down with the arm's height along the bed's y axis (camera_arm_print).
    expected = sum(num(params, n) for n in ("tray_floor", "camera_height", "cam_depth", "arm_bar"))
    size = rendered["camera_arm"].size()
    assert abs(size[1] - expected) < 1.0, (size, expected)


def test_led_holder_surrounds_the_ring_and_reaches_its_screws(
    rendered: dict[str, Mesh], params: Params
) -> None:
    width, depth, _ = rendered["led_ring_holder"].size()
    assert depth >= num(params, "led_ring_od") + 2 * num(params, "wall")
    assert width > num(params, "led_holder_screw_spacing")


def test_chute_housing_covers_the_tower_exit(rendered: dict[str, Mesh], params: Params) -> None:
    width, length, height = rendered["chute_sensor_housing"].size()
    assert width > num(params, "tower_exit_w") and height > num(params, "tower_exit_h")
    assert abs(length - num(params, "chute_len")) < 0.5


def test_a_camera_height_out_of_range_is_refused(tmp_path: Path) -> None:
    _need_openscad()
    result = _openscad(
        "-D",
        "camera_height=400",
        "-o",
        str(tmp_path / "arm.stl"),
        str(SCAD / "camera_arm.scad"),
        cwd=tmp_path,
    )
    assert "camera_height must be 150..300" in result.stderr


def test_render_fails_on_a_warning_and_names_the_part(tmp_path: Path) -> None:
    _need_openscad()
    # A copy of the hardware folder with one broken part: a typo'd variable is only a warning
    # in OpenSCAD, and would silently make a wrong shape.
    copy = tmp_path / "hardware"
    shutil.copytree(SCAD, copy / "scad")
    shutil.copy(RENDER, copy / "render.sh")
    (copy / "scad" / "broken_part.scad").write_text("include <params.scad>\ncube([wal, 10, 10]);\n")
    result = subprocess.run(
        ["bash", str(copy / "render.sh"), "stl", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode != 0
    assert "FAILED: broken_part" in result.stderr
    assert "wal" in result.stderr
    # The good parts still rendered: one broken part does not hide the state of the others.
    assert {p.stem for p in (tmp_path / "out").glob("*.stl")} >= set(PARTS)


@pytest.mark.parametrize(
    ("overrides", "height"),
    [(["camera_height=150"], 150.0), (["camera_height=300", "bed=[350,350,350]"], 300.0)],
)
def test_camera_arm_follows_the_camera_height(
    tmp_path: Path, params: Params, overrides: list[str], height: float
) -> None:
    _need_openscad()
    defines = [arg for o in overrides for arg in ("-D", o)]
    out = tmp_path / "arm.stl"
    result = _openscad(
        "--hardwarnings", *defines, "-o", str(out), str(SCAD / "camera_arm.scad"), cwd=tmp_path
    )
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr
    mesh = read_ascii_stl(out)
    assert not mesh.open_edges()
    expected = (
        num(params, "tray_floor") + height + num(params, "cam_depth") + num(params, "arm_bar")
    )
    size = mesh.size()
    assert abs(size[1] - expected) < 1.0, (size, expected)
