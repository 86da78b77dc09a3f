"""docs/chute-protocol.md stays true: its example frame decodes, its id rule is the code's."""

from __future__ import annotations

import re
from pathlib import Path

from companion.devices.chute import cubeproto as P
from companion.devices.chute.calibration import ChuteCalibration

DOC = Path(__file__).resolve().parents[3] / "docs" / "chute-protocol.md"


def test_the_example_frames_in_the_doc_decode() -> None:
    examples = re.findall(r"^(CT1 [A-Z]+ \d+ .*\*[0-9A-F]{4})$", DOC.read_text(), re.MULTILINE)
    assert examples, "the protocol doc should show at least one complete frame"
    for line in examples:
        P.decode(line.encode())


def test_the_calibration_id_is_the_crc_of_the_documented_text() -> None:
    table = ChuteCalibration.default().to_table()
    text = f"rej={table.reject} cmax={table.cmax} " + " ".join(
        f"k{i}=" + ",".join(str(v) for v in ref)
        for i, ref in enumerate(table.refs)
        if ref is not None
    )
    assert table.table_id() == P.crc16(text.encode())
