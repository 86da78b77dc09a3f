"""The firmware's logic under the real MicroPython unix port, held to CPython's protocol bytes."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

from companion.core.cubes import COLOURS
from companion.devices.chute import cubeproto as P
from companion.devices.chute.calibration import TYPICAL_RGBC, ChuteCalibration
from companion.devices.chute.firmware_sim import FIRMWARE, find_tool, stage_firmware

HERE = Path(__file__).parent


_GOOD: list[tuple[str, int, list[tuple[str, str]]]] = [
    (
        P.HELLO,
        0,
        [
            ("boot", "9e"),
            ("proto", "1"),
            ("fw", "0.1.0"),
            ("cal", "0"),
            ("tot", "0,0,0,0,0,0,0"),
            ("rej", "0"),
        ],
    ),
    (
        P.EVT,
        65535,
        [
            ("boot", "9e"),
            ("c", "-"),
            ("rgbc", "0,0,0,0"),
            ("conf", "0"),
            ("tot", "1,2,3,4,5,6,7"),
            ("rej", "9"),
        ],
    ),
    (P.SYNC, 1, []),
    ("NEW", 7, [("k", "A.b,c:d;e_f+g-h")]),
]


def _fuzz_lines() -> list[bytes]:
    """Seeded random lines: damaged copies of real frames, and plain noise."""
    rng = random.Random(4)
    seeds = [P.encode(kind, seq, fields) for kind, seq, fields in _GOOD]
    lines: list[bytes] = []
    for _ in range(300):
        line = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(line))
            how = rng.random()
            if how < 0.4:
                line[i] ^= 1 << rng.randrange(8)
            elif how < 0.7:
                line.insert(i, rng.randrange(256))
            else:
                del line[i]
        lines.append(bytes(line))
    lines += [bytes(rng.randrange(256) for _ in range(rng.randrange(60))) for _ in range(100)]
    return lines


def _outcome(line: bytes) -> object:
    """What CPython makes of a line: the frame as a list, or "error"."""
    try:
        frame = P.decode(line)
    except P.ProtocolError:
        return "error"
    return [frame.kind, frame.seq, sorted(frame.fields.items())]


def _cases() -> dict[str, object]:
    good = _GOOD
    table = ChuteCalibration.default().to_table()
    classify = [list(rgbc) for rgbc in TYPICAL_RGBC.values()]
    classify += [[200, 200, 20, 500], [0, 0, 0, 0], [290, 75, 70, 425], [100, 100, 100, 300]]
    return {
        "good": [
            (kind, seq, fields, P.encode(kind, seq, fields).decode()) for kind, seq, fields in good
        ],
        "bad": [
            "CT1 SYNC 0*6668",
            "CT1 SYNC 0*66g9",
            "Traceback (most recent call last):",
            "CT1 HB 1 boot=1*" + f"{P.crc16(b'CT1 HB 1 boot=1'):04X}",
            "CT1 SYNC 0 k=1 k=2*" + f"{P.crc16(b'CT1 SYNC 0 k=1 k=2'):04X}",
        ],
        "cal_text": table.to_text(),
        "cal_id": table.table_id(),
        "cal_frame": P.encode(P.CAL, 9, table.frame_fields()).decode(),
        "classify": [(rgbc, list(table.classify(rgbc))) for rgbc in classify],
        "fuzz": [(line.hex(), _outcome(line)) for line in _fuzz_lines()],
    }


def test_firmware_logic_passes_under_micropython(tmp_path: Path) -> None:
    micropython = find_tool("micropython", venv_first=True)
    stage = tmp_path / "stage"
    stage_firmware(stage)
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(_cases()))
    flash = tmp_path / "flash"
    flash.mkdir()
    env = dict(os.environ, MICROPYPATH=f"{stage}:{FIRMWARE / 'sim'}")
    result = subprocess.run(
        [micropython, str(HERE / "mp_checks.py"), str(cases), str(flash)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("mp-checks ok ")
    assert int(result.stdout.split()[-1]) > 400  # the fuzzed lines were all checked
    assert len(COLOURS) == P.N_COLOURS
