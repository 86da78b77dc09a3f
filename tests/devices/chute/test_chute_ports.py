"""Finding the board by USB id among pyserial's port descriptions."""

from __future__ import annotations

import pytest
from serial.tools.list_ports_common import ListPortInfo

from companion.devices.chute.ports import find_port, parse_vid_pid


def _port(device: str, vid: int | None, pid: int | None) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    return info


def test_finds_the_pico_among_other_ports() -> None:
    ports = [
        _port("/dev/ttyUSB0", 0x0403, 0x6001),  # an FTDI adapter
        _port("/dev/ttyS0", None, None),
        _port("/dev/ttyACM1", 0x2E8A, 0x0005),
        _port("/dev/ttyACM0", 0x2E8A, 0x000A),  # a Pico running other firmware
    ]
    assert find_port("2e8a:0005", lambda: ports) == "/dev/ttyACM1"
    assert find_port("2E8A:000A", lambda: ports) == "/dev/ttyACM0"
    assert find_port("1234:5678", lambda: ports) is None
    assert find_port("2e8a:0005", lambda: []) is None


def test_two_boards_pick_the_first_path() -> None:
    ports = [_port("/dev/ttyACM3", 0x2E8A, 5), _port("/dev/ttyACM2", 0x2E8A, 5)]
    assert find_port("2e8a:0005", lambda: ports) == "/dev/ttyACM2"


@pytest.mark.parametrize("text", ["2e8a", "2e8a:5", "2e8a:00050", "zzzz:0005", ""])
def test_bad_usb_ids_say_the_expected_form(text: str) -> None:
    with pytest.raises(ValueError, match="2e8a:0005"):
        parse_vid_pid(text)


def test_real_port_listing_runs_here() -> None:
    # The default lister is pyserial's own; on a machine without the board it finds nothing.
    assert find_port("ffff:fffe") is None
