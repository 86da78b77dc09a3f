"""Finding the chute board among the serial ports by its USB vendor and product id."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo

DEFAULT_VID_PID = "2e8a:0005"
"""MicroPython on a Raspberry Pi RP2040 board."""


def parse_vid_pid(text: str) -> tuple[int, int]:
    """(vid, pid) from `vvvv:pppp` in hex; ValueError saying the expected form otherwise."""
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(len(p) == 4 for p in parts):
        raise ValueError(f"USB id must look like 2e8a:0005 (vendor:product in hex), got {text!r}")
    try:
        return int(parts[0], 16), int(parts[1], 16)
    except ValueError:
        raise ValueError(f"USB id must be hex digits like 2e8a:0005, got {text!r}") from None


def find_port(
    vid_pid: str = DEFAULT_VID_PID,
    comports: Callable[[], Sequence[ListPortInfo]] = list_ports.comports,
) -> str | None:
    """The device path of the first port with this USB id (sorted by path), or None."""
    vid, pid = parse_vid_pid(vid_pid)
    matches = sorted(p.device for p in comports() if p.vid == vid and p.pid == pid)
    return matches[0] if matches else None
