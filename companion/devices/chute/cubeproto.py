"""The chute sensor's line protocol: one module, run unchanged by CPython (host) and MicroPython (board).

A frame is one line of printable ASCII:

    CT1 <KIND> <SEQ> key=value key=value*<CRC>\\n

CRC is CRC-16/CCITT-FALSE of every byte before the `*`, as four upper-case hex digits. The full
description, with every kind and field, is docs/chute-protocol.md.

MicroPython has no `typing` module and no `__future__`, so this file imports nothing beyond
builtins and uses annotations that both interpreters accept without evaluating anything exotic.
The firmware install step copies this file byte for byte onto the board (a test checks it).
"""

PROTO = "CT1"
VERSION = 1
N_COLOURS = (
    7  # colour indices 0..6 in action-circuit order (blue, black, red, brown, green, yellow, white)
)
MAX_LINE = 240  # bytes, newline included; longer lines are garbage by definition
MAX_SEQ = 0xFFFF
NO_COLOUR = -1  # a cube fell but its colour was rejected
PERMILLE = 1000

# Device to host.
HELLO = "HELLO"
EVT = "EVT"
HB = "HB"
ERR = "ERR"
ACK = "ACK"
# Host to device.
SYNC = "SYNC"
PING = "PING"
RESET = "RESET"
CAL = "CAL"

DEVICE_KINDS = (HELLO, EVT, HB, ERR, ACK)
HOST_KINDS = (SYNC, PING, RESET, CAL)

# Fields every frame of a known kind must carry; a frame without them is malformed.
REQUIRED = {
    HELLO: ("boot", "proto", "fw", "cal", "tot", "rej"),
    EVT: ("boot", "c", "rgbc", "conf", "tot", "rej"),
    HB: ("boot", "up", "cal", "sens", "tot", "rej"),
    ERR: ("boot", "code"),
    ACK: ("boot", "id", "ok"),
    SYNC: (),
    PING: (),
    RESET: ("id",),
    CAL: ("id", "rej", "cmax"),
}

_HEX = "0123456789ABCDEF"
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
_VALUE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,:;_+-"


class ProtocolError(ValueError):
    """A line that is not a valid frame; the message says what is wrong with it."""


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) of `data`."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def _is_digits(text: str) -> bool:
    if not text:
        return False
    return all("0" <= ch <= "9" for ch in text)


def parse_uint(text: str, limit: int, what: str) -> int:
    """A decimal integer 0..limit written with digits only (no sign, spaces or underscores)."""
    if not _is_digits(text) or len(text) > 10:
        raise ProtocolError(what + " must be a decimal number, got " + repr(text))
    value = int(text)
    if value > limit:
        raise ProtocolError(what + " must be at most " + str(limit) + ", got " + text)
    return value


def parse_uints(text: str, count: int, limit: int, what: str) -> list[int]:
    """`count` comma-separated decimal integers, each 0..limit."""
    parts = text.split(",")
    if len(parts) != count:
        raise ProtocolError(
            what + " needs " + str(count) + " comma-separated numbers, got " + str(len(parts))
        )
    return [parse_uint(part, limit, what) for part in parts]


def format_uints(values: list[int] | tuple[int, ...]) -> str:
    """Integers joined by commas, the wire form of totals and raw readings."""
    return ",".join([str(int(v)) for v in values])


def _check_token(text: str, allowed: str, what: str) -> None:
    if not text:
        raise ProtocolError(what + " is empty")
    for ch in text:
        if ch not in allowed:
            raise ProtocolError(what + " has a character not allowed here: " + repr(ch))


class Frame:
    """One decoded frame: its kind, sequence number and fields (all values still text)."""

    __slots__ = ("fields", "kind", "seq")

    def __init__(self, kind: str, seq: int, fields: dict[str, str]) -> None:
        self.kind = kind
        self.seq = seq
        self.fields = fields

    def __repr__(self) -> str:
        return "Frame(" + repr(self.kind) + ", " + str(self.seq) + ", " + repr(self.fields) + ")"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return False
        return self.kind == other.kind and self.seq == other.seq and self.fields == other.fields

    def text(self, key: str) -> str:
        """The raw text of a field; ProtocolError when it is missing."""
        value = self.fields.get(key)
        if value is None:
            raise ProtocolError(self.kind + " frame has no field " + key)
        return value

    def uint(self, key: str, limit: int = 0xFFFFFFFF) -> int:
        """A field as a decimal integer 0..limit."""
        return parse_uint(self.text(key), limit, key)

    def uints(self, key: str, count: int, limit: int = 0xFFFFFFFF) -> list[int]:
        """A field as `count` comma-separated integers."""
        return parse_uints(self.text(key), count, limit, key)

    def totals(self) -> list[int]:
        """The running count of cubes per colour since the device booted (seven integers)."""
        return self.uints("tot", N_COLOURS)

    def colour(self) -> int:
        """The colour index of an EVT (0..6), or NO_COLOUR when the colour was rejected."""
        value = self.text("c")
        if value == "-":
            return NO_COLOUR
        return parse_uint(value, N_COLOURS - 1, "c")

    def boot(self) -> str:
        """The boot id: 1 to 8 lower-case hex digits, new at every start of the firmware."""
        value = self.text("boot")
        if len(value) > 8:
            raise ProtocolError("boot id is longer than 8 hex digits")
        _check_token(value, "0123456789abcdef", "boot id")
        return value


def encode(
    kind: str, seq: int, fields: list[tuple[str, str]] | tuple[tuple[str, str], ...]
) -> bytes:
    """The complete line (newline included) for one frame; fields keep the order given.

    Raises ProtocolError when a key, value, kind or sequence number cannot be written.
    """
    _check_token(kind, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "kind")
    if seq < 0 or seq > MAX_SEQ:
        raise ProtocolError("sequence number must be 0.." + str(MAX_SEQ))
    parts = [PROTO, kind, str(seq)]
    for key, value in fields:
        _check_token(key, _KEY_CHARS, "key")
        if value != "-":
            _check_token(value, _VALUE_CHARS, "value of " + key)
        parts.append(key + "=" + value)
    body = " ".join(parts).encode()
    line = body + b"*" + f"{crc16(body):04X}".encode() + b"\n"
    if len(line) > MAX_LINE:
        raise ProtocolError("frame would be " + str(len(line)) + " bytes, over " + str(MAX_LINE))
    return line


def decode(line: bytes) -> Frame:
    """The frame in one line (with or without its CR/LF ending).

    Raises ProtocolError, and nothing else, for anything that is not a complete, intact frame:
    wrong prefix, bad CRC, bad characters, missing required fields, a repeated key.
    """
    if len(line) > MAX_LINE:
        raise ProtocolError("line is " + str(len(line)) + " bytes, over " + str(MAX_LINE))
    end = len(line)
    while end > 0 and line[end - 1] in (10, 13):
        end -= 1
    for i in range(end):
        byte = line[i]
        if byte < 32 or byte > 126:
            raise ProtocolError("line has a non-printable byte at offset " + str(i))
    text = bytes(line[:end]).decode()
    star = text.rfind("*")
    if star < 0:
        raise ProtocolError("line has no *CRC ending")
    crc_text = text[star + 1 :]
    if len(crc_text) != 4:
        raise ProtocolError("CRC must be 4 hex digits, got " + repr(crc_text))
    for ch in crc_text:
        if ch not in _HEX:
            raise ProtocolError("CRC must be upper-case hex, got " + repr(crc_text))
    body = text[:star]
    if int(crc_text, 16) != crc16(body.encode()):
        raise ProtocolError("CRC mismatch")
    words = body.split(" ")
    if len(words) < 3 or words[0] != PROTO:
        raise ProtocolError("frame must start with '" + PROTO + " KIND SEQ'")
    kind = words[1]
    _check_token(kind, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "kind")
    seq = parse_uint(words[2], MAX_SEQ, "sequence number")
    fields: dict[str, str] = {}
    for word in words[3:]:
        eq = word.find("=")
        if eq <= 0:
            raise ProtocolError("field must be key=value, got " + repr(word))
        key = word[:eq]
        value = word[eq + 1 :]
        _check_token(key, _KEY_CHARS, "key")
        if value != "-":
            _check_token(value, _VALUE_CHARS, "value of " + key)
        if key in fields:
            raise ProtocolError("field " + key + " appears twice")
        fields[key] = value
    for key in REQUIRED.get(kind, ()):
        if key not in fields:
            raise ProtocolError(kind + " frame lacks its " + key + " field")
    return Frame(kind, seq, fields)


def next_seq(seq: int) -> int:
    """The sequence number after `seq` (wraps from 65535 to 0)."""
    return (seq + 1) & MAX_SEQ


def seq_gap(previous: int, current: int) -> int:
    """How many frames were lost between two received sequence numbers (0 when consecutive)."""
    return (current - previous - 1) & MAX_SEQ


# ---- calibration table: what a CAL frame carries and how the firmware classifies with it ----


def features(rgbc: list[int] | tuple[int, ...], cmax: int) -> tuple[int, int, int, int]:
    """A raw (r, g, b, clear) reading as per-mille chromaticity plus per-mille brightness.

    r, g and b are divided by clear (so the cube's distance from the sensor matters little); the
    fourth value is clear over `cmax` (the sensor's full scale), which tells black from white.
    """
    r, g, b, c = rgbc[0], rgbc[1], rgbc[2], rgbc[3]
    if c <= 0:
        return (0, 0, 0, 0)
    bright = c * PERMILLE // cmax if cmax > 0 else 0
    if bright > PERMILLE:
        bright = PERMILLE
    return (r * PERMILLE // c, g * PERMILLE // c, b * PERMILLE // c, bright)


def distance(a: tuple[int, ...] | list[int], b: tuple[int, ...] | list[int]) -> int:
    """Euclidean distance between two feature vectors, in per-mille units (rounded down)."""
    total = 0
    for i in range(len(a)):
        d = a[i] - b[i]
        total += d * d
    return int(total**0.5)


class CalTable:
    """Reference features per colour index, a reject distance and the sensor's full scale.

    `refs[i]` is None when colour i is not calibrated (it is then never chosen).
    """

    __slots__ = ("cmax", "refs", "reject")

    def __init__(
        self, refs: list[tuple[int, int, int, int] | None], reject: int, cmax: int
    ) -> None:
        if len(refs) != N_COLOURS:
            raise ProtocolError("a calibration table needs " + str(N_COLOURS) + " entries")
        if reject <= 0 or cmax <= 0:
            raise ProtocolError("reject distance and full scale must be positive")
        self.refs = refs
        self.reject = reject
        self.cmax = cmax

    def table_id(self) -> int:
        """A content hash (CRC-16 of the canonical fields), the table's id on the wire."""
        text = " ".join([key + "=" + value for key, value in self._fields()])
        return crc16(text.encode())

    def _fields(self) -> list[tuple[str, str]]:
        out = [("rej", str(self.reject)), ("cmax", str(self.cmax))]
        for i in range(N_COLOURS):
            ref = self.refs[i]
            if ref is not None:
                out.append(("k" + str(i), format_uints(ref)))
        return out

    def frame_fields(self) -> list[tuple[str, str]]:
        """The fields of a CAL frame carrying this table (id first)."""
        out = [("id", str(self.table_id()))]
        out.extend(self._fields())  # MicroPython has no [*a, *b]
        return out

    def to_text(self) -> str:
        """One line of text the firmware keeps in flash and reads back with from_text."""
        return " ".join([key + "=" + value for key, value in self.frame_fields()])

    @classmethod
    def from_text(cls, text: str) -> "CalTable":
        """The table written by to_text; ProtocolError when the text is damaged."""
        fields: dict[str, str] = {}
        for word in text.strip().split(" "):
            eq = word.find("=")
            if eq <= 0:
                raise ProtocolError("stored calibration is damaged")
            fields[word[:eq]] = word[eq + 1 :]
        return cls.from_fields(fields)

    @classmethod
    def from_fields(cls, fields: dict[str, str]) -> "CalTable":
        """The table in a CAL frame's fields; checks the id matches the content."""
        refs: list[tuple[int, int, int, int] | None] = []
        for i in range(N_COLOURS):
            value = fields.get("k" + str(i))
            if value is None:
                refs.append(None)
            else:
                v = parse_uints(value, 4, PERMILLE * 4, "k" + str(i))
                refs.append((v[0], v[1], v[2], v[3]))
        if "rej" not in fields or "cmax" not in fields:
            raise ProtocolError("calibration needs rej and cmax")
        table = cls(
            refs,
            parse_uint(fields["rej"], PERMILLE * 4, "rej"),
            parse_uint(fields["cmax"], 0xFFFF, "cmax"),
        )
        if "id" in fields and parse_uint(fields["id"], 0xFFFF, "id") != table.table_id():
            raise ProtocolError("calibration id does not match its content")
        return table

    def classify(self, rgbc: list[int] | tuple[int, ...]) -> tuple[int, int]:
        """(colour index or NO_COLOUR, confidence in per-mille) for one raw reading.

        The nearest reference wins when it is within the reject distance. Confidence is the
        smaller of 1 - (distance / reject)^2 and (runner-up distance - distance) / runner-up
        distance, in per-mille.
        """
        f = features(rgbc, self.cmax)
        best = NO_COLOUR
        d1 = -1
        d2 = -1
        for i in range(N_COLOURS):
            ref = self.refs[i]
            if ref is None:
                continue
            d = distance(f, ref)
            if d1 < 0 or d < d1:
                d2 = d1
                d1 = d
                best = i
            elif d2 < 0 or d < d2:
                d2 = d
        if best == NO_COLOUR or d1 > self.reject:
            return (NO_COLOUR, 0)
        # Quadratic fall-off: sensor noise near a reference costs little, the reject edge a lot.
        conf = PERMILLE - d1 * d1 * PERMILLE // (self.reject * self.reject)
        if d2 >= 0:
            margin = (d2 - d1) * PERMILLE // d2 if d2 > 0 else 0
            if margin < conf:
                conf = margin
        return (best, conf)
