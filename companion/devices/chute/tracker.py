"""Turns the board's running totals into readings of one drop each. Pure: frames and times in.

The board counts cubes per colour since it booted and repeats the totals in every frame, so a
lost frame is repaired by the next one. A new boot id means the board restarted (reset button,
power, USB replug): its totals start again from zero, and what it counted before is kept here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.core.cubes import COLOURS, Counts
from companion.devices.chute import cubeproto

_SEQ_GAP_LIMIT = 1000
"""A larger jump in sequence numbers is a reconnection, not lost frames."""


@dataclass(frozen=True, slots=True)
class ChuteReading:
    """What the chute counted for the current drop.

    `counts`: cubes of a recognised colour since the drop began; `unknown`: cubes that fell but
    whose colour was rejected; `confidence` 0..1 with `reasons` when below 1; `settled`: no cube
    for the settle time and a later report confirmed the totals; `totals`: every cube of a
    recognised colour since the reader started, across board restarts, and `unknown_total` the
    rejected ones; `at_s`: the reader's clock (monotonic s).
    """

    counts: Counts
    unknown: int
    confidence: float
    reasons: tuple[str, ...]
    settled: bool
    totals: Counts
    unknown_total: int
    at_s: float


@dataclass(slots=True)
class _Drop:
    base: list[int]
    base_unknown: int
    least_conf: float = 1.0
    lost_frames: int = 0
    restarted: bool = False
    offline: bool = False
    last_change_s: float | None = None
    settled: bool = False
    confirm_asked: bool = False
    extra: list[str] = field(default_factory=list)


class ChuteTracker:
    """Feed it every valid frame (`on_frame`) and the link's ups and downs; it returns readings.

    `settle_s`: seconds without a new cube before a drop's reading is final.
    """

    def __init__(self, settle_s: float = 0.8) -> None:
        self.settle_s = settle_s
        self.boot: str | None = None
        self._dev_base = [0] * len(COLOURS)
        self._dev_base_unknown = 0
        self._carried = [0] * len(COLOURS)
        self._carried_unknown = 0
        self._totals = [0] * len(COLOURS)
        self._unknown = 0
        self._last_dev = [0] * len(COLOURS)
        self._last_dev_unknown = 0
        self._last_seq: int | None = None
        self.lost_frames = 0
        self.restarts = 0
        self._drop = _Drop(base=list(self._totals), base_unknown=0)

    # ---- what the reader tells it ----

    def link_opened(self) -> None:
        """A (re)opened port: the sequence number jumps over what was sent while closed."""
        self._last_seq = None

    def went_offline(self) -> None:
        """The board fell silent; a drop in progress may have lost cubes."""
        if self._drop.last_change_s is not None and not self._drop.settled:
            self._drop.offline = True

    def start_drop(self, now_s: float) -> ChuteReading:
        """Count from here: the next reading holds only cubes that fall after this call."""
        self._drop = _Drop(base=list(self._totals), base_unknown=self._unknown)
        return self.reading(now_s)

    def wants_confirmation(self, now_s: float) -> bool:
        """True once per drop when the settle time has passed and a fresh report would settle it
        (the reader then sends PING so it need not wait for the next heartbeat)."""
        drop = self._drop
        if drop.last_change_s is None or drop.settled or drop.confirm_asked:
            return False
        if now_s - drop.last_change_s >= self.settle_s:
            drop.confirm_asked = True
            return True
        return False

    def on_frame(self, frame: cubeproto.Frame, now_s: float) -> ChuteReading | None:
        """Take one valid frame from the board; a reading when the counts changed or settled.

        Raises cubeproto.ProtocolError when a field the frame needs is malformed (nothing changes).
        """
        if "tot" not in frame.fields:
            gap = self._note_seq(frame, frame.boot())
            if gap and self._drop.last_change_s is not None and not self._drop.settled:
                self._drop.lost_frames += gap
            return None
        boot = frame.boot()
        dev = frame.totals()
        dev_unknown = frame.uint("rej")
        if self.boot is None:
            # First contact: what the board counted before we listened belongs to no drop of ours.
            self._dev_base = list(dev)
            self._dev_base_unknown = dev_unknown
        elif boot != self.boot or any(d < b for d, b in zip(dev, self._last_dev, strict=True)):
            self._restart()
        gap = self._note_seq(frame, boot)
        self.boot = boot
        self._last_dev = list(dev)
        self._last_dev_unknown = dev_unknown
        totals = [c + d - b for c, d, b in zip(self._carried, dev, self._dev_base, strict=True)]
        unknown = self._carried_unknown + dev_unknown - self._dev_base_unknown
        changed = totals != self._totals or unknown != self._unknown
        drop = self._drop
        if changed:
            if drop.settled:
                # The first cube after a settled drop begins the next drop.
                self._drop = drop = _Drop(base=list(self._totals), base_unknown=self._unknown)
            self._totals = totals
            self._unknown = unknown
            # Lost frames right before a change may have carried this drop's first cubes.
            drop.lost_frames += gap
            drop.last_change_s = now_s
            drop.confirm_asked = False
            if frame.kind == cubeproto.EVT and frame.colour() != cubeproto.NO_COLOUR:
                conf = frame.uint("conf", cubeproto.PERMILLE) / cubeproto.PERMILLE
                drop.least_conf = min(drop.least_conf, conf)
            return self.reading(now_s)
        if drop.last_change_s is not None and not drop.settled:
            drop.lost_frames += gap
        if (
            drop.last_change_s is not None
            and not drop.settled
            and now_s - drop.last_change_s >= self.settle_s
        ):
            drop.settled = True
            return self.reading(now_s)
        return None

    def _note_seq(self, frame: cubeproto.Frame, boot: str) -> int:
        """Frames lost just before this one (0 after a restart or reconnection)."""
        gap = 0
        if self._last_seq is not None and boot == self.boot:
            gap = cubeproto.seq_gap(self._last_seq, frame.seq)
            if gap >= _SEQ_GAP_LIMIT:
                gap = 0
        self._last_seq = frame.seq
        self.lost_frames += gap
        return gap

    def _restart(self) -> None:
        self.restarts += 1
        self._carried = [
            c + d - b for c, d, b in zip(self._carried, self._last_dev, self._dev_base, strict=True)
        ]
        self._carried_unknown += self._last_dev_unknown - self._dev_base_unknown
        self._dev_base = [0] * len(COLOURS)
        self._dev_base_unknown = 0
        self._last_seq = None
        if not self._drop.settled:
            self._drop.restarted = True

    # ---- the reading ----

    def reading(self, now_s: float) -> ChuteReading:
        """The current drop's reading as things stand."""
        drop = self._drop
        counts = Counts.from_tuple([t - b for t, b in zip(self._totals, drop.base, strict=True)])
        unknown = self._unknown - drop.base_unknown
        confidence = 1.0
        reasons: list[str] = []
        if unknown:
            confidence = min(confidence, 0.3)
            reasons.append(f"{unknown} cube(s) fell but their colour was not recognised")
        if drop.restarted:
            confidence = min(confidence, 0.5)
            reasons.append("the sensor restarted during this drop; cubes may be missing")
        if drop.offline:
            confidence = min(confidence, 0.5)
            reasons.append("the sensor was offline during this drop; cubes may be missing")
        if drop.lost_frames:
            confidence = min(confidence, 0.9)
            reasons.append(f"{drop.lost_frames} report(s) lost; the running totals filled the gap")
        if drop.least_conf < 1.0:
            confidence = min(confidence, drop.least_conf)
            reasons.append(f"least certain cube colour: {drop.least_conf:.2f}")
        if not drop.settled:
            reasons.append("cubes may still be falling")
        return ChuteReading(
            counts=counts,
            unknown=unknown,
            confidence=round(confidence, 3),
            reasons=tuple(reasons),
            settled=drop.settled,
            totals=Counts.from_tuple(self._totals),
            unknown_total=self._unknown,
            at_s=now_s,
        )
