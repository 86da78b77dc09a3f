"""hardware/wiring.md agrees with the boards' pinouts, the app's settings and the firmware.

The pinouts below are facts of the boards (the Raspberry Pi 40-pin header, the Pico's pads and
the RP2040's I2C and PWM pin functions); the pin choices come from companion/settings.py and
firmware/main.py, read from the code itself.
"""

from __future__ import annotations

import ast
import re
from types import ModuleType
from typing import Any

import pytest
from wiring_tables import REPO, WIRING_MD, load_wiring_svg

from companion.settings import Settings

# Raspberry Pi 40-pin header: BCM GPIO number -> physical pin.
PI_HEADER = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31,
    13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26,
    1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}  # fmt: skip
PI_POWER = {1: "3.3 V", 17: "3.3 V", 2: "5 V", 4: "5 V"} | {
    n: "GND" for n in (6, 9, 14, 20, 25, 30, 34, 39)
}
PI_HARDWARE_PWM = {12, 13, 18, 19}
# Raspberry Pi Pico: GP number -> pad; GP23..25 and GP29 are on the board only.
PICO_PADS = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip
PICO_POWER = {36: "3.3 V", 39: "VSYS", 40: "VBUS"} | {
    n: "GND" for n in (3, 8, 13, 18, 23, 28, 33, 38)
}
RP2040_I2C = {
    (0, "SDA"): {0, 4, 8, 12, 16, 20, 24, 28},
    (0, "SCL"): {1, 5, 9, 13, 17, 21, 25, 29},
    (1, "SDA"): {2, 6, 10, 14, 18, 22, 26},
    (1, "SCL"): {3, 7, 11, 15, 19, 23, 27},
}


@pytest.fixture(scope="module")
def wiring() -> ModuleType:
    return load_wiring_svg()


@pytest.fixture(scope="module")
def tables(wiring: ModuleType) -> list[Any]:
    return list(wiring.read_tables(WIRING_MD.read_text(encoding="utf-8")))


def _rows(table: Any) -> list[dict[str, str]]:
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows]


@pytest.fixture(scope="module")
def pi_rows(wiring: ModuleType, tables: list[Any]) -> list[dict[str, str]]:
    return _rows(wiring.table_under(tables, "Raspberry Pi 40-pin header"))


@pytest.fixture(scope="module")
def pico_rows(wiring: ModuleType, tables: list[Any]) -> list[dict[str, str]]:
    return _rows(wiring.table_under(tables, "Chute sensor board"))


def test_pi_gpio_rows_use_the_right_header_pins(pi_rows: list[dict[str, str]]) -> None:
    gpio = [r for r in pi_rows if r["BCM"] != "-"]
    assert len(gpio) == 4
    for row in gpio:
        assert PI_HEADER[int(row["BCM"])] == int(row["header pin"]), row


def test_pi_power_rows_name_what_the_pin_really_is(pi_rows: list[dict[str, str]]) -> None:
    for row in (r for r in pi_rows if r["BCM"] == "-"):
        kind = PI_POWER[int(row["header pin"])]
        assert row["function"].startswith(kind), row


def test_no_pin_carries_two_signals(pi_rows: list[dict[str, str]]) -> None:
    gpio_pins = [r["header pin"] for r in pi_rows if r["BCM"] != "-"]
    assert len(gpio_pins) == len(set(gpio_pins))
    all_pins = [r["header pin"] for r in pi_rows]
    assert not set(gpio_pins) & {p for p in all_pins if all_pins.count(p) > 1}


def test_every_settings_pin_is_wired_as_its_default(pi_rows: list[dict[str, str]]) -> None:
    defaults = Settings().gpio.pins.model_dump()
    documented = {
        r["settings key"].removeprefix("gpio.pins."): int(r["BCM"])
        for r in pi_rows
        if r["settings key"].startswith("gpio.pins.")
    }
    assert documented == defaults


def test_led_ring_is_on_a_hardware_pwm_pin() -> None:
    assert Settings().gpio.pins.led_ring in PI_HARDWARE_PWM


def test_sensor_usb_id_is_the_settings_default(tables: list[Any]) -> None:
    sensor = Settings().sensor
    other = next(t for t in tables if "connection" in t.columns)
    row = next(r for r in _rows(other) if r["connection"] == "chute sensor")
    assert f"VID:PID {sensor.vid_pid}" in row["to"]
    assert row["settings key"] == "sensor.usb_vid, sensor.usb_pid"


def _firmware_constants() -> dict[str, int]:
    tree = ast.parse((REPO / "firmware" / "main.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, int)
        ):
            found[node.targets[0].id] = node.value.value
    return found


def test_pico_rows_use_the_right_pads(pico_rows: list[dict[str, str]]) -> None:
    for row in pico_rows:
        if row["GP"] != "-" and row["board pin"] != "-":
            assert PICO_PADS[int(row["GP"])] == int(row["board pin"]), row
        elif row["GP"] == "-":
            assert row["function"].startswith(PICO_POWER[int(row["board pin"])]), row


def test_firmware_pins_are_the_documented_ones(pico_rows: list[dict[str, str]]) -> None:
    constants = _firmware_constants()
    documented = {r["firmware constant"]: int(r["GP"]) for r in pico_rows if r["firmware constant"]}
    assert documented == {name: constants[name] for name in documented}
    assert {"SDA_PIN", "SCL_PIN", "BEAM_PIN"} <= set(documented)


def test_i2c_pins_belong_to_the_bus_the_firmware_opens(pico_rows: list[dict[str, str]]) -> None:
    constants = _firmware_constants()
    bus = constants["I2C_ID"]
    for row in pico_rows:
        match = re.match(r"I2C(\d) (SDA|SCL)", row["function"])
        if match:
            assert int(match.group(1)) == bus, row
            assert int(row["GP"]) in RP2040_I2C[(bus, match.group(2))], row


def test_diagram_is_drawn_from_the_current_tables(wiring: ModuleType, tables: list[Any]) -> None:
    committed = (REPO / "hardware" / "wiring.svg").read_text(encoding="utf-8")
    assert committed == wiring.render_svg(tables), "run: python hardware/wiring_svg.py"


def test_diagram_shows_every_documented_pin(tables: list[Any], wiring: ModuleType) -> None:
    svg = wiring.render_svg(tables)
    for row in wiring.table_under(tables, "Raspberry Pi 40-pin header").rows:
        assert f"pin {row[1]} · " in svg


def test_a_ragged_table_is_refused(wiring: ModuleType) -> None:
    text = "## T\n\n| a | b |\n|---|---|\n| 1 | 2 | 3 |\n"
    with pytest.raises(ValueError, match="has 3 cells, the header has 2"):
        wiring.read_tables(text)
