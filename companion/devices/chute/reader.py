"""The host side of the chute sensor: a thread that keeps the link up and posts readings.

It finds the board by USB id (or takes a port or pyserial URL), opens it with
`serial.serial_for_url`, sends SYNC (data the board sent before the port was open is lost on USB
CDC), sends the calibration when the board holds another, reconnects with backoff, and counts
garbage and CRC errors without ever stopping. Readings and status changes go to callbacks on the
reader's own thread: a UI must hand them over to its own thread (Kivy: Clock.schedule_once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import serial
from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo

from companion.devices.chute import cubeproto
from companion.devices.chute.calibration import ChuteCalibration
from companion.devices.chute.ports import DEFAULT_VID_PID, find_port
from companion.devices.chute.tracker import ChuteReading, ChuteTracker
from companion.settings import ChuteSensorSettings

log = logging.getLogger(__name__)

BAUD = 115200  # ignored by USB CDC, needed by real UARTs and harmless on ptys
_READ_TIMEOUT_S = 0.05
_WRITE_TIMEOUT_S = 1.0  # a board that stops reading must not hang the reader thread
_CAL_RESEND_S = 5.0
_REOPEN_AFTER_SILENCES = 4  # reopen the port after this many offline periods of silence


class LinkState(StrEnum):
    """Where the link to the board stands."""

    STARTING = "starting"
    """The reader has not tried yet."""
    SEARCHING = "searching"
    """No port with the board's USB id: it is not plugged in."""
    CONNECTING = "connecting"
    """A port is there but could not be opened, or the board has not answered yet."""
    ONLINE = "online"
    """Valid frames arrive."""
    OFFLINE = "offline"
    """No valid frame for longer than the offline time, or the port vanished."""
    STOPPED = "stopped"
    """The reader was stopped."""


@dataclass(frozen=True, slots=True)
class ChuteStatus:
    """The link's health, for the status bar and the diagnostics screen.

    Counters run since the reader started: `crc_errors` (frames damaged on the way),
    `garbage_lines` (lines that are not frames at all), `lost_frames` (gaps in sequence
    numbers, repaired by running totals), `restarts` (new boot ids), `reconnects` (ports
    reopened), `device_errors` (ERR frames). `message` says what is happening and what to do.
    """

    state: LinkState
    message: str
    port: str | None = None
    boot: str | None = None
    firmware: str | None = None
    sensor_ok: bool | None = None
    calibrated: bool | None = None
    crc_errors: int = 0
    garbage_lines: int = 0
    lost_frames: int = 0
    restarts: int = 0
    reconnects: int = 0
    device_errors: int = 0


def _log_sparsely(n: int, message: str, *args: object) -> None:
    """A warning for the 1st, 10th, 100th... occurrence, debug otherwise: a noisy cable must
    show in the log without flooding it."""
    if n > 0 and 10 ** len(str(n)) // 10 == n:
        log.warning(message, *args)
    else:
        log.debug(message, *args)


ReadingCallback = Callable[[ChuteReading], None]
StatusCallback = Callable[[ChuteStatus], None]
CubeCallback = Callable[[int, tuple[int, int, int, int]], None]
"""Called once per cube event: (colour index 0..6 or cubeproto.NO_COLOUR, raw r, g, b, clear)."""
PortOpener = Callable[..., Any]


class ChuteReader:
    """Runs the link on its own thread; `start()`, `stop()`, `start_drop()`, `status`.

    `port`: a device path or pyserial URL (`loop://`, a pty path); None finds the board by
    `vid_pid` with `comports`. `offline_after_s`: silence that means the board is offline.
    `settle_s`: quiet time before a drop's reading is final. `backoff_s`: first and longest
    wait between attempts to reconnect (doubling). `clock`: monotonic seconds. `on_cube`: told
    each cube's colour index and raw reading as its event arrives (calibration needs the raw
    readings, which readings of a drop do not carry); a lost event frame is not repeated.
    """

    def __init__(
        self,
        on_reading: ReadingCallback,
        on_status: StatusCallback | None = None,
        *,
        port: str | None = None,
        vid_pid: str = DEFAULT_VID_PID,
        calibration: ChuteCalibration | None = None,
        offline_after_s: float = 3.0,
        settle_s: float = 0.8,
        backoff_s: tuple[float, float] = (0.5, 5.0),
        comports: Callable[[], Sequence[ListPortInfo]] = list_ports.comports,
        open_port: PortOpener = serial.serial_for_url,
        clock: Callable[[], float] = time.monotonic,
        on_cube: CubeCallback | None = None,
    ) -> None:
        self._on_reading = on_reading
        self._on_status = on_status
        self._on_cube = on_cube
        self._port = port
        self._vid_pid = vid_pid
        self._calibration = calibration if calibration is not None else ChuteCalibration.default()
        self._cal_table = self._calibration.to_table()
        self._offline_after_s = offline_after_s
        self._backoff_s = backoff_s
        self._comports = comports
        self._open_port = open_port
        self._clock = clock
        self._tracker = ChuteTracker(settle_s=settle_s)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._status = ChuteStatus(LinkState.STARTING, "the chute sensor reader has not started")
        self._seq = 0

    @classmethod
    def from_settings(
        cls,
        settings: ChuteSensorSettings,
        on_reading: ReadingCallback,
        on_status: StatusCallback | None = None,
        *,
        calibration: ChuteCalibration | None = None,
    ) -> ChuteReader:
        """A reader for the board the settings describe (its port, or its USB id)."""
        return cls(
            on_reading,
            on_status,
            port=settings.port,
            vid_pid=settings.vid_pid,
            calibration=calibration,
            offline_after_s=settings.offline_after_s,
        )

    # ---- public ----

    def start(self) -> None:
        """Start the reader thread (once)."""
        if self._thread is not None:
            raise RuntimeError("this chute reader was already started")
        self._thread = threading.Thread(target=self._run, name="chute-reader", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stop the thread and close the port; waits up to `timeout_s` seconds.

        The final STOPPED status is posted on the caller's thread, after the reader's has ended.
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        self._set_status(LinkState.STOPPED, "the chute sensor reader was stopped")

    def start_drop(self) -> None:
        """Readings from now on count only cubes falling after this call (thread-safe)."""
        with self._lock:
            self._tracker.start_drop(self._clock())

    @property
    def calibration(self) -> ChuteCalibration:
        """The colour references this reader sends to the board."""
        return self._calibration

    @property
    def status(self) -> ChuteStatus:
        """The latest status (a copy; safe from any thread)."""
        with self._lock:
            return self._status

    def reading(self) -> ChuteReading:
        """The current drop's reading as things stand (safe from any thread)."""
        with self._lock:
            return self._tracker.reading(self._clock())

    # ---- the thread ----

    def _run(self) -> None:
        wait = self._backoff_s[0]
        opened_before = False
        while not self._stop.is_set():
            url = self._port or find_port(self._vid_pid, self._comports)
            if url is None:
                self._set_status(
                    LinkState.SEARCHING,
                    f"no chute sensor plugged in (USB id {self._vid_pid}); plug it in, or count "
                    "with the camera or by hand",
                )
            else:
                try:
                    port = self._open_port(
                        url, baudrate=BAUD, timeout=_READ_TIMEOUT_S, write_timeout=_WRITE_TIMEOUT_S
                    )
                except (serial.SerialException, OSError, ValueError) as error:
                    self._set_status(
                        LinkState.CONNECTING,
                        f"cannot open the chute sensor at {url} ({error}); retrying",
                        port=url,
                    )
                else:
                    if opened_before:
                        self._bump(reconnects=1)
                    opened_before = True
                    try:
                        if self._session(port, url):
                            wait = self._backoff_s[0]
                    except (serial.SerialException, OSError) as error:
                        log.info("chute sensor link lost: %s", error)
                        self._set_status(
                            LinkState.OFFLINE,
                            "the chute sensor was unplugged or its link failed; reconnecting "
                            "(check the USB cable)",
                            port=url,
                        )
                        with self._lock:
                            self._tracker.went_offline()
                    finally:
                        port.close()
            if self._stop.wait(wait):
                break
            wait = min(wait * 2, self._backoff_s[1])

    def _send(self, port: Any, kind: str, fields: list[tuple[str, str]]) -> None:
        port.write(cubeproto.encode(kind, self._seq, fields))
        self._seq = cubeproto.next_seq(self._seq)

    def _session(self, port: Any, url: str) -> bool:
        """Talk to an open port until it fails or stays silent too long; True if it ever spoke.

        Raises serial.SerialException / OSError when the port goes away.
        """
        with self._lock:
            self._tracker.link_opened()
        self._set_status(LinkState.CONNECTING, f"waiting for the chute sensor at {url}", port=url)
        self._send(port, cubeproto.SYNC, [])
        opened = self._clock()
        last_valid: float | None = None
        last_sync = opened
        last_cal = -_CAL_RESEND_S
        buf = bytearray()
        spoke = False
        while not self._stop.is_set():
            data = port.read(max(1, port.in_waiting))
            now = self._clock()
            if data:
                buf += data
                while True:
                    end = buf.find(b"\n")
                    if end < 0:
                        break
                    line = bytes(buf[: end + 1])
                    del buf[: end + 1]
                    frame = self._frame(line)
                    if frame is None:
                        continue
                    last_valid = now
                    spoke = True
                    if frame.kind in (cubeproto.HELLO, cubeproto.HB):
                        held = frame.fields.get("cal")
                        wanted = str(self._cal_table.table_id())
                        if held != wanted and now - last_cal >= _CAL_RESEND_S:
                            # The board holds another table (or none): give it ours.
                            self._send(port, cubeproto.CAL, self._cal_table.frame_fields())
                            last_cal = now
                    self._take(frame, now, url)
                if len(buf) > cubeproto.MAX_LINE:
                    self._bump(garbage_lines=1)
                    log.debug("chute sensor: %d bytes without a newline dropped", len(buf))
                    buf.clear()
            with self._lock:
                confirm = self._tracker.wants_confirmation(now)
            if confirm:
                self._send(port, cubeproto.PING, [])
            silent = now - (last_valid if last_valid is not None else opened)
            if silent > self._offline_after_s:
                if self.status.state is not LinkState.OFFLINE:
                    self._set_status(
                        LinkState.OFFLINE,
                        f"no word from the chute sensor for {silent:.0f} s; check its USB cable "
                        "(counting goes on with the camera or by hand)",
                        port=url,
                    )
                    with self._lock:
                        self._tracker.went_offline()
                if now - last_sync > self._offline_after_s:
                    self._send(port, cubeproto.SYNC, [])
                    last_sync = now
                if silent > self._offline_after_s * _REOPEN_AFTER_SILENCES:
                    # A port that stays open but mute (a wedged USB link) may recover on reopen.
                    log.info("chute sensor silent for %.0f s; reopening %s", silent, url)
                    return spoke
        return spoke

    def _frame(self, line: bytes) -> cubeproto.Frame | None:
        try:
            frame = cubeproto.decode(line)
        except cubeproto.ProtocolError as error:
            if line.startswith(b"CT1 "):
                self._bump(crc_errors=1)
                n = self.status.crc_errors
                _log_sparsely(n, "chute sensor: damaged frame #%d (%s): %r", n, error, line[:80])
            else:
                self._bump(garbage_lines=1)
                n = self.status.garbage_lines
                _log_sparsely(n, "chute sensor: line #%d is not a frame: %r", n, line[:80])
            return None
        if frame.kind in cubeproto.HOST_KINDS:
            return None  # our own command echoed back (loop://): nothing from the board
        return frame

    def _take(self, frame: cubeproto.Frame, now: float, url: str) -> None:
        try:
            boot = frame.boot()
            cube = self._cube(frame)  # before the tracker: a malformed EVT changes nothing
            with self._lock:
                before = self._tracker.restarts
                reading = self._tracker.on_frame(frame, now)
                restarted = self._tracker.restarts - before
                lost = self._tracker.lost_frames
        except cubeproto.ProtocolError as error:
            self._bump(crc_errors=1)
            log.debug("chute sensor: malformed %s frame: %s", frame.kind, error)
            return
        status = self.status
        changes: dict[str, Any] = {"boot": boot, "lost_frames": lost}
        if restarted:
            changes["restarts"] = status.restarts + restarted
            log.info("chute sensor restarted (boot id %s)", boot)
        if frame.kind == cubeproto.HELLO:
            changes["firmware"] = frame.fields.get("fw")
        if frame.kind in (cubeproto.HELLO, cubeproto.HB):
            changes["calibrated"] = frame.fields.get("cal") == str(self._cal_table.table_id())
        if frame.kind == cubeproto.HB:
            changes["sensor_ok"] = frame.fields.get("sens") == "1"
        if frame.kind == cubeproto.ERR:
            changes["device_errors"] = status.device_errors + 1
            log.info("chute sensor reports an error: %s", frame.fields.get("code"))
            if frame.fields.get("code") == "sensor":
                changes["sensor_ok"] = False
        message = "chute sensor online"
        if changes.get("sensor_ok", status.sensor_ok) is False:
            message = (
                "chute sensor online, but its colour sensor does not answer: cubes are counted "
                "without colour (check the sensor's cable)"
            )
        self._set_status(LinkState.ONLINE, message, port=url, **changes)
        if cube is not None and self._on_cube is not None:
            try:
                self._on_cube(*cube)
            except Exception:
                log.exception("chute cube callback failed")
        if reading is not None:
            self._post(reading)

    @staticmethod
    def _cube(frame: cubeproto.Frame) -> tuple[int, tuple[int, int, int, int]] | None:
        """(colour index, raw rgbc) of an EVT frame, None for other kinds; ProtocolError when
        its fields are malformed."""
        if frame.kind != cubeproto.EVT:
            return None
        r, g, b, c = frame.uints("rgbc", 4, 0xFFFF)
        return frame.colour(), (r, g, b, c)

    # ---- callbacks ----

    def _post(self, reading: ChuteReading) -> None:
        try:
            self._on_reading(reading)
        except Exception:
            # A broken consumer must not take the link down with it.
            log.exception("chute reading callback failed")

    def _bump(self, **deltas: int) -> None:
        with self._lock:
            status = self._status
            self._status = replace(
                status, **{key: getattr(status, key) + n for key, n in deltas.items()}
            )

    def _set_status(self, state: LinkState, message: str, **changes: Any) -> None:
        with self._lock:
            old = self._status
            new = replace(old, state=state, message=message, **changes)
            self._status = new
        if (new.state, new.message) != (old.state, old.message) and self._on_status is not None:
            try:
                self._on_status(new)
            except Exception:
                log.exception("chute status callback failed")
