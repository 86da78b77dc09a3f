"""The chute protocol module: CRC, frame table tests (real-looking and malformed lines), fuzzing."""

from __future__ import annotations

import binascii
import contextlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.cubes import COLOURS, Colour
from companion.devices.chute import cubeproto as P
from companion.devices.chute.calibration import TYPICAL_RGBC, ChuteCalibration


def test_crc_has_the_ccitt_false_check_value() -> None:
    assert P.crc16(b"123456789") == 0x29B1
    assert P.crc16(b"") == 0xFFFF


@given(st.binary(max_size=300))
def test_crc_agrees_with_the_standard_library(data: bytes) -> None:
    assert P.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def test_colour_indices_follow_the_action_circuit() -> None:
    assert len(COLOURS) == P.N_COLOURS
    assert COLOURS[0] is Colour.BLUE and COLOURS[6] is Colour.WHITE


# Lines as the board writes them (CRC computed independently with binascii below).
GOOD_LINES = [
    (
        "CT1 HELLO 0 boot=9eda01c3 proto=1 fw=0.1.0 cal=19177 tot=0,0,0,0,0,0,0 rej=0",
        "HELLO",
        0,
        {"fw": "0.1.0", "cal": "19177"},
    ),
    (
        "CT1 EVT 12 boot=9eda01c3 c=2 rgbc=307,70,65,432 conf=914 tot=1,0,3,0,0,0,0 rej=0",
        "EVT",
        12,
        {"c": "2", "rgbc": "307,70,65,432"},
    ),
    (
        "CT1 EVT 13 boot=9eda01c3 c=- rgbc=0,0,0,0 conf=0 tot=1,0,3,0,0,0,0 rej=1",
        "EVT",
        13,
        {"c": "-", "rej": "1"},
    ),
    (
        "CT1 HB 65535 boot=9eda01c3 up=3600000 cal=0 sens=0 tot=7,7,7,7,7,7,7 rej=2",
        "HB",
        65535,
        {"sens": "0", "up": "3600000"},
    ),
    ("CT1 ERR 4 boot=1 code=sensor", "ERR", 4, {"code": "sensor"}),
    ("CT1 ACK 5 boot=ab id=19177 ok=1", "ACK", 5, {"ok": "1"}),
    ("CT1 SYNC 0", "SYNC", 0, {}),
    ("CT1 PING 9", "PING", 9, {}),
    ("CT1 RESET 3 id=77", "RESET", 3, {"id": "77"}),
    ("CT1 NEWKIND 3 x=1", "NEWKIND", 3, {"x": "1"}),  # a later firmware's kind still parses
]


def _framed(body: str, ending: bytes = b"\n") -> bytes:
    crc = binascii.crc_hqx(body.encode(), 0xFFFF)
    return body.encode() + b"*" + f"{crc:04X}".encode() + ending


@pytest.mark.parametrize(("body", "kind", "seq", "some_fields"), GOOD_LINES)
@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b""])
def test_real_looking_lines_decode(
    body: str, kind: str, seq: int, some_fields: dict[str, str], ending: bytes
) -> None:
    frame = P.decode(_framed(body, ending))
    assert (frame.kind, frame.seq) == (kind, seq)
    for key, value in some_fields.items():
        assert frame.fields[key] == value


@pytest.mark.parametrize(("body", "kind", "seq", "some_fields"), GOOD_LINES)
def test_encode_writes_the_same_bytes(
    body: str, kind: str, seq: int, some_fields: dict[str, str]
) -> None:
    frame = P.decode(_framed(body))
    again = P.encode(frame.kind, frame.seq, list(frame.fields.items()))
    assert again == _framed(body)


def test_typed_accessors_read_an_evt() -> None:
    frame = P.decode(_framed(GOOD_LINES[1][0]))
    assert frame.totals() == [1, 0, 3, 0, 0, 0, 0]
    assert frame.colour() == 2
    assert frame.boot() == "9eda01c3"
    assert frame.uints("rgbc", 4) == [307, 70, 65, 432]
    assert P.decode(_framed(GOOD_LINES[2][0])).colour() == P.NO_COLOUR


BAD_LINES = [
    (b"", "no *CRC"),
    (b"\n", "no *CRC"),
    (b"Traceback (most recent call last):\n", "no *CRC"),
    (b"MicroPython v1.22.0 on 2024-01-01; Raspberry Pi Pico with RP2040\r\n", "no *CRC"),
    (b">>> \n", "no *CRC"),
    (_framed("CT1 HB 1 boot=1 up=5 cal=0 sens=1 tot=0,0,0,0,0,0,0 rej=0")[:-3] + b"\n", "CRC"),
    (b"CT1 SYNC 0*6668\n", "CRC mismatch"),
    (b"CT1 SYNC 0*6669x\n", "CRC must be 4"),
    (b"CT1 SYNC 0*6669\x00\n", "non-printable"),
    (b"CT1 SYNC 0*66g9\n", "upper-case hex"),
    (b"CT1 SYNC 0*6669*6669\n", "CRC"),
    (b"\xff\xfeCT1 SYNC 0*6669\n", "non-printable"),
    (_framed("CT2 SYNC 0"), "must start with"),
    (_framed("CT1 SYNC"), "must start with"),
    (_framed("CT1"), "must start with"),
    (_framed(" CT1 SYNC 0"), "must start with"),
    (_framed("CT1 sync 0"), "kind"),
    (_framed("CT1 SYNC -1"), "sequence number"),
    (_framed("CT1 SYNC 65536"), "at most 65535"),
    (_framed("CT1 SYNC 0x10"), "decimal"),
    (_framed("CT1 SYNC 1_0"), "decimal"),
    (_framed("CT1 SYNC  0"), "sequence number"),
    (_framed("CT1 SYNC 0 novalue"), "key=value"),
    (_framed("CT1 SYNC 0 =5"), "key=value"),
    (_framed("CT1 SYNC 0 Key=5"), "key has a character"),
    (_framed("CT1 SYNC 0 k=a=b"), "value of k"),
    (_framed("CT1 SYNC 0 k="), "value of k is empty"),
    (_framed("CT1 SYNC 0 k=1 k=2"), "twice"),
    (_framed("CT1 HB 1 boot=1 up=5 cal=0 sens=1 rej=0"), "lacks its tot"),
    (_framed("CT1 EVT 1 boot=1 c=2 rgbc=1,2,3,4 conf=9 tot=0,0,0,0,0,0,0"), "lacks its rej"),
    (_framed("CT1 RESET 1"), "lacks its id"),
    (b"CT1 SYNC 0 " + b"x=1 " * 70 + b"*0000\n", "over 240"),
]


@pytest.mark.parametrize(("line", "message"), BAD_LINES)
def test_malformed_lines_raise_protocol_error_saying_why(line: bytes, message: str) -> None:
    with pytest.raises(P.ProtocolError, match=re.escape(message)):
        P.decode(line)


@pytest.mark.parametrize(
    ("body", "accessor", "message"),
    [
        ("CT1 HB 1 boot=1 up=5 cal=0 sens=1 tot=0,0,0 rej=0", "totals", "7 comma"),
        ("CT1 HB 1 boot=1 up=5 cal=0 sens=1 tot=0,0,0,0,0,0,x rej=0", "totals", "decimal"),
        ("CT1 HB 1 boot=1 up=5 cal=0 sens=1 tot=0,0,0,0,0,0,,0 rej=0", "totals", "7 comma"),
        ("CT1 HB 1 boot=XYZ up=5 cal=0 sens=1 tot=0,0,0,0,0,0,0 rej=0", "boot", "boot id"),
        ("CT1 HB 1 boot=123456789 up=5 cal=0 sens=1 tot=0,0,0,0,0,0,0 rej=0", "boot", "8 hex"),
        ("CT1 EVT 1 boot=1 c=7 rgbc=1,2,3,4 conf=9 tot=0,0,0,0,0,0,0 rej=0", "colour", "at most 6"),
        ("CT1 EVT 1 boot=1 c=r rgbc=1,2,3,4 conf=9 tot=0,0,0,0,0,0,0 rej=0", "colour", "decimal"),
        ("CT1 SYNC 0", "totals", "no field tot"),
    ],
)
def test_malformed_fields_raise_protocol_error(body: str, accessor: str, message: str) -> None:
    frame = P.decode(_framed(body))
    with pytest.raises(P.ProtocolError, match=message):
        getattr(frame, accessor)()


@pytest.mark.parametrize(
    ("kind", "seq", "fields", "message"),
    [
        ("hb", 0, [], "kind"),
        ("HB", 70000, [], "sequence"),
        ("HB", 0, [("a b", "1")], "key"),
        ("HB", 0, [("a", "x y")], "value of a"),
        ("HB", 0, [("a", "x*1")], "value of a"),
        ("HB", 0, [("a", "1" * 300)], "over 240"),
    ],
)
def test_encode_refuses_what_cannot_be_framed(
    kind: str, seq: int, fields: list[tuple[str, str]], message: str
) -> None:
    with pytest.raises(P.ProtocolError, match=message):
        P.encode(kind, seq, fields)


def test_sequence_numbers_wrap_and_gaps_count_lost_frames() -> None:
    assert P.next_seq(65535) == 0
    assert P.seq_gap(10, 11) == 0
    assert P.seq_gap(10, 13) == 2
    assert P.seq_gap(65535, 1) == 1


# ---- fuzzing: the parser raises nothing but ProtocolError ----


@settings(max_examples=400)
@given(st.binary(max_size=300))
def test_decode_of_any_bytes_raises_only_protocol_error(data: bytes) -> None:
    try:
        frame = P.decode(data)
    except P.ProtocolError:
        return
    assert isinstance(frame, P.Frame)


_token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=6)
_value = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,:;_+-",
    min_size=1,
    max_size=12,
)


@settings(max_examples=300)
@given(
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=6),
    st.integers(0, 65535),
    st.dictionaries(_token, _value, max_size=6),
)
def test_encode_then_decode_gives_the_frame_back(
    kind: str, seq: int, fields: dict[str, str]
) -> None:
    line = P.encode(kind, seq, list(fields.items()))
    try:
        frame = P.decode(line)
    except P.ProtocolError as error:
        # Only a known kind without its required fields may be refused.
        assert "lacks" in str(error) and kind in P.REQUIRED
        return
    assert frame == P.Frame(kind, seq, fields)


@settings(max_examples=400)
@given(st.integers(0, 10_000), st.integers(0, 255), st.sampled_from(["flip", "insert", "cut"]))
def test_damaged_frames_never_pass_and_never_crash(position: int, byte: int, how: str) -> None:
    line = _framed(GOOD_LINES[1][0])
    body = bytearray(line[:-1])
    i = position % len(body)
    if how == "flip":
        body[i] ^= 1 << (byte % 8)
    elif how == "insert":
        body.insert(i, byte)
    else:
        del body[i]
    try:
        frame = P.decode(bytes(body) + b"\n")
    except P.ProtocolError:
        return
    # CRC-16 catches every 1-bit error; an inserted or removed byte may survive only if harmless.
    assert how != "flip"
    frame.totals()


@settings(max_examples=300)
@given(st.text(max_size=40), st.sampled_from(["totals", "boot", "colour"]))
def test_accessors_on_any_field_text_raise_only_protocol_error(text: str, accessor: str) -> None:
    frame = P.Frame("EVT", 0, {"tot": text, "boot": text, "c": text})
    with contextlib.suppress(P.ProtocolError):
        getattr(frame, accessor)()


# ---- the calibration table ----


def test_default_calibration_recognises_each_colour_and_rejects_a_stranger() -> None:
    table = ChuteCalibration.default().to_table()
    for colour, rgbc in TYPICAL_RGBC.items():
        index, conf = table.classify(rgbc)
        assert COLOURS[index] is colour
        assert conf == P.PERMILLE
    assert table.classify((200, 200, 20, 500)) == (P.NO_COLOUR, 0)
    assert table.classify((0, 0, 0, 0)) == (P.NO_COLOUR, 0)


def test_black_and_white_differ_by_brightness_alone() -> None:
    table = ChuteCalibration.default().to_table()
    grey = (100, 105, 100, 300)
    dark, light = (g * 105 // 300 for g in grey), (g * 990 // 300 for g in grey)
    assert COLOURS[table.classify(tuple(dark))[0]] is Colour.BLACK
    assert COLOURS[table.classify(tuple(light))[0]] is Colour.WHITE


def test_confidence_drops_with_distance() -> None:
    table = ChuteCalibration.default().to_table()
    red = TYPICAL_RGBC[Colour.RED]
    near = (red[0] - 10, red[1], red[2], red[3])
    far = (red[0] - 40, red[1] + 15, red[2], red[3])
    _, conf_near = table.classify(near)
    _, conf_far = table.classify(far)
    assert P.PERMILLE > conf_near > conf_far > 0


def test_table_text_round_trips_and_its_id_guards_the_content() -> None:
    table = ChuteCalibration.default().to_table()
    again = P.CalTable.from_text(table.to_text())
    assert again.refs == table.refs and again.table_id() == table.table_id()
    tampered = table.to_text().replace("rej=150", "rej=151")
    with pytest.raises(P.ProtocolError, match="id does not match"):
        P.CalTable.from_text(tampered)
    with pytest.raises(P.ProtocolError, match="damaged"):
        P.CalTable.from_text("garbage")
    with pytest.raises(P.ProtocolError, match="rej and cmax"):
        P.CalTable.from_fields({"k0": "1,2,3,4"})


def test_an_uncalibrated_colour_is_never_chosen() -> None:
    refs: list[tuple[int, int, int, int] | None] = [None] * P.N_COLOURS
    refs[3] = (481, 314, 222, 263)
    table = P.CalTable(refs, 150, 1024)
    assert table.classify(TYPICAL_RGBC[Colour.RED]) == (P.NO_COLOUR, 0)
    assert table.classify(TYPICAL_RGBC[Colour.BROWN])[0] == 3
    with pytest.raises(P.ProtocolError, match="7 entries"):
        P.CalTable(refs[:3], 150, 1024)
