"""The host reader against the in-process simulated board on a real pty, with every fault."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial

from companion.core.cubes import Colour, Counts
from companion.devices.chute.reader import ChuteReader, ChuteStatus, LinkState
from companion.devices.chute.simdevice import SimulatedChute
from companion.devices.chute.tracker import ChuteReading
from companion.devices.simtower import FaultKind, FaultPlan, SimulatedTower
from companion.settings import ChuteSensorSettings


class Collector:
    """Readings and statuses posted by the reader thread, with waiting."""

    def __init__(self) -> None:
        self.readings: list[ChuteReading] = []
        self.statuses: list[ChuteStatus] = []
        self.threads: set[str] = set()
        self._cond = threading.Condition()

    def reading(self, reading: ChuteReading) -> None:
        with self._cond:
            self.threads.add(threading.current_thread().name)
            self.readings.append(reading)
            self._cond.notify_all()

    def status(self, status: ChuteStatus) -> None:
        with self._cond:
            self.statuses.append(status)
            self._cond.notify_all()

    def wait(self, what: str, predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
        deadline = time.monotonic() + timeout_s
        with self._cond:
            # Some conditions (the reader's status fields) change without a callback: poll too.
            while not self._cond.wait_for(predicate, 0.02):
                if time.monotonic() > deadline:
                    last = self.statuses[-1] if self.statuses else None
                    raise AssertionError(f"timed out waiting for {what}; last status {last}")

    def settled(self, counts: Counts) -> Callable[[], bool]:
        return lambda: any(r.settled and r.counts == counts for r in self.readings)

    def state(self, state: LinkState) -> Callable[[], bool]:
        return lambda: bool(self.statuses) and self.statuses[-1].state is state


@pytest.fixture
def device(tmp_path: Path) -> Iterator[SimulatedChute]:
    dev = SimulatedChute(tmp_path / "ttyCHUTE", heartbeat_s=0.2)
    dev.plug()
    yield dev
    dev.stop()


@pytest.fixture
def got() -> Collector:
    return Collector()


@pytest.fixture
def reader(device: SimulatedChute, got: Collector) -> Iterator[ChuteReader]:
    r = ChuteReader(
        got.reading,
        got.status,
        port=str(device.link),
        offline_after_s=0.6,
        settle_s=0.3,
        backoff_s=(0.05, 0.2),
    )
    r.start()
    got.wait("online", got.state(LinkState.ONLINE))
    # The board gets the host's calibration once it has said which table it holds.
    got.wait("calibrated", lambda: r.status.calibrated is True)
    yield r
    r.stop()


def test_a_clean_drop_gives_one_settled_reading_off_the_ui_thread(
    device: SimulatedChute, reader: ChuteReader, got: Collector
) -> None:
    device.feed([(Colour.RED, 0.0), (Colour.BLUE, 0.05), (Colour.RED, 0.1), (Colour.WHITE, 0.15)])
    got.wait("the drop", got.settled(Counts(red=2, blue=1, white=1)))
    final = [r for r in got.readings if r.settled]
    assert len(final) == 1 and final[0].confidence == 1.0 and final[0].reasons == ()
    assert got.threads == {"chute-reader"}
    status = reader.status
    assert status.firmware == "sim-0.1.0" and status.sensor_ok is True
    assert (status.crc_errors, status.garbage_lines, status.lost_frames) == (0, 0, 0)


def test_garbage_and_crc_errors_are_counted_and_do_no_harm(
    device: SimulatedChute, reader: ChuteReader, got: Collector, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="companion.devices.chute.reader")
    device.send_garbage(b"Traceback (most recent call last):\r\n")
    device.send_garbage(bytes(range(256)) * 2)  # binary noise, no newline for 512 bytes
    device.send_garbage(b"\n")
    device.garble_frames(2)
    device.feed([(Colour.GREEN, 0.0), (Colour.GREEN, 0.05), (Colour.YELLOW, 0.1)])
    got.wait("the drop", got.settled(Counts(green=2, yellow=1)))
    status = reader.status
    assert status.crc_errors == 2
    assert status.garbage_lines >= 2
    assert status.state is LinkState.ONLINE
    logged = caplog.text
    assert "line #1 is not a frame: b'Traceback" in logged
    assert "damaged frame #1 (CRC mismatch)" in logged
    assert "damaged frame #2" not in logged  # the log is not flooded


def test_lost_lines_are_repaired_by_running_totals(
    device: SimulatedChute, reader: ChuteReader, got: Collector
) -> None:
    device.feed([(Colour.BLACK, 0.0)])
    got.wait("the first cube", lambda: any(r.counts == Counts(black=1) for r in got.readings))
    device.drop_frames(2)  # the next two frames, whichever they are, never arrive
    device.feed([(Colour.BROWN, 0.0), (Colour.BLACK, 0.05)])
    got.wait("the drop", got.settled(Counts(black=2, brown=1)))
    final = next(r for r in got.readings if r.settled)
    assert final.confidence == 0.9
    assert reader.status.lost_frames == 2


def test_a_stall_goes_offline_and_comes_back(
    device: SimulatedChute, reader: ChuteReader, got: Collector
) -> None:
    device.stall(1.2)
    got.wait("offline", got.state(LinkState.OFFLINE))
    assert "no word from the chute sensor" in reader.status.message
    got.wait("online again", got.state(LinkState.ONLINE))
    device.feed([(Colour.BLUE, 0.0)])
    got.wait("a drop after the stall", got.settled(Counts(blue=1)))


def test_a_reset_mid_drop_keeps_the_counts_and_says_so(
    device: SimulatedChute, reader: ChuteReader, got: Collector
) -> None:
    device.feed([(Colour.RED, 0.0), (Colour.RED, 0.05)])
    got.wait("two reds", lambda: any(r.counts == Counts(red=2) for r in got.readings))
    device.restart()
    device.feed([(Colour.RED, 0.05), (Colour.WHITE, 0.1)])
    got.wait("the drop", got.settled(Counts(red=3, white=1)))
    final = next(r for r in got.readings if r.settled)
    assert final.confidence == 0.5 and any("restarted" in reason for reason in final.reasons)
    assert reader.status.restarts == 1 and device.totals == (0, 0, 1, 0, 0, 0, 1)


def test_unplug_and_replug_reconnects_and_counts_on(
    device: SimulatedChute, reader: ChuteReader, got: Collector
) -> None:
    device.feed([(Colour.YELLOW, 0.0)])
    got.wait("first drop", got.settled(Counts(yellow=1)))
    device.unplug()
    got.wait("offline", got.state(LinkState.OFFLINE))
    assert "unplugged" in reader.status.message
    time.sleep(0.3)  # the reader retries against a missing port meanwhile
    device.plug()
    got.wait("online again", got.state(LinkState.ONLINE))
    device.feed([(Colour.GREEN, 0.0), (Colour.YELLOW, 0.05)])
    got.wait("second drop", got.settled(Counts(green=1, yellow=1)))
    final = [r for r in got.readings if r.settled][-1]
    assert final.totals == Counts(yellow=2, green=1)
    assert reader.status.reconnects >= 1 and reader.status.restarts == 1


def test_a_broken_colour_sensor_counts_cubes_without_colour(
    device: SimulatedChute, reader: ChuteReader, got: Collector
) -> None:
    device.set_sensor_ok(False)
    device.feed([(Colour.RED, 0.0), (Colour.BLUE, 0.05)])
    got.wait("cubes without colour", lambda: any(r.unknown == 2 for r in got.readings))
    assert reader.status.sensor_ok is False
    assert "colour sensor does not answer" in reader.status.message
    assert reader.reading().confidence == 0.3
    device.set_sensor_ok(True)
    got.wait("sensor back", lambda: reader.status.sensor_ok is True)


def test_start_drop_and_the_simulated_tower_feed_the_next_reading(
    device: SimulatedChute, reader: ChuteReader, got: Collector
) -> None:
    tower = SimulatedTower(seed=3)
    detach = device.attach(tower)
    tower.spread()  # a hand spreading the tray's cubes passes nothing through the beam
    reader.start_drop()
    landing = tower.drop(Counts(red=3, blue=2))
    got.wait("the tower's drop", got.settled(landing.landed))
    detach()


def test_the_tower_unplugs_and_replugs_the_sensor(tmp_path: Path, got: Collector) -> None:
    device = SimulatedChute(tmp_path / "tty", heartbeat_s=0.2)
    tower = SimulatedTower(
        seed=1,
        faults=FaultPlan(
            device={2: (FaultKind.SENSOR_LOST,), 3: (FaultKind.SENSOR_BACK,)},
        ),
    )
    device.attach(tower)
    device.plug()
    reader = ChuteReader(
        got.reading, got.status, port=str(device.link), settle_s=0.3, backoff_s=(0.05, 0.2)
    )
    reader.start()
    try:
        got.wait("online", got.state(LinkState.ONLINE))
        got.wait("calibrated", lambda: reader.status.calibrated is True)
        first = tower.drop(Counts(white=3, red=3))
        assert first.landed.total > 0
        got.wait("drop 1", got.settled(first.landed))
        lost = tower.drop(Counts(black=4))  # the sensor is lost just before this drop
        got.wait("offline", got.state(LinkState.OFFLINE))
        time.sleep(max(e.at_s for e in lost.exits) + 0.1)  # drop 2's cubes pass unseen
        third = tower.drop(Counts(brown=4))  # and back just before this one
        got.wait("online", got.state(LinkState.ONLINE))
        got.wait("drop 3", got.settled(third.landed))
        assert lost.landed.black > 0
        assert got.readings[-1].totals == first.landed.plus(third.landed)
    finally:
        reader.stop()
        device.stop()


def test_a_failing_callback_does_not_stop_the_reader(
    device: SimulatedChute, got: Collector
) -> None:
    calls: list[ChuteReading] = []

    def bad(reading: ChuteReading) -> None:
        calls.append(reading)
        raise RuntimeError("consumer bug")

    r = ChuteReader(bad, got.status, port=str(device.link), settle_s=0.2)
    r.start()
    try:
        got.wait("online", got.state(LinkState.ONLINE))
        got.wait("calibrated", lambda: r.status.calibrated is True)
        device.feed([(Colour.BLUE, 0.0), (Colour.BLUE, 0.05)])
        got.wait("both cubes", lambda: any(c.counts == Counts(blue=2) for c in calls))
        assert r.status.state is LinkState.ONLINE
    finally:
        r.stop()


def test_no_board_plugged_in_says_so(got: Collector) -> None:
    r = ChuteReader(got.reading, got.status, vid_pid="ffff:fffe", comports=lambda: [])
    r.start()
    try:
        got.wait("searching", got.state(LinkState.SEARCHING))
        assert "no chute sensor plugged in (USB id ffff:fffe)" in r.status.message
    finally:
        r.stop()
    assert r.status.state is LinkState.STOPPED


def test_a_port_that_cannot_open_is_retried(got: Collector, tmp_path: Path) -> None:
    r = ChuteReader(got.reading, got.status, port=str(tmp_path / "nothing"), backoff_s=(0.01, 0.02))
    r.start()
    try:
        got.wait("connecting", got.state(LinkState.CONNECTING))
        assert "cannot open the chute sensor" in r.status.message
    finally:
        r.stop()


def test_loop_url_opens_and_its_echo_is_not_mistaken_for_the_board(got: Collector) -> None:
    # loop:// hands our own SYNC back: it must neither count as the board nor as garbage.
    opened: list[serial.SerialBase] = []

    def opener(url: str, **kwargs: float) -> serial.SerialBase:
        port = serial.serial_for_url(url, **kwargs)
        opened.append(port)
        return port

    r = ChuteReader(got.reading, got.status, port="loop://", offline_after_s=0.3, open_port=opener)
    r.start()
    try:
        got.wait("offline", got.state(LinkState.OFFLINE), timeout_s=3)
        assert opened and r.status.garbage_lines == 0 and r.status.crc_errors == 0
    finally:
        r.stop()


def test_a_reader_from_settings_finds_the_board_by_its_usb_id(got: Collector) -> None:
    settings = ChuteSensorSettings(usb_vid="ffff", usb_pid="FFFE", offline_after_s=1.5)
    r = ChuteReader.from_settings(settings, got.reading, got.status)
    r.start()
    try:
        got.wait("searching", got.state(LinkState.SEARCHING))
        assert "USB id ffff:fffe" in r.status.message
    finally:
        r.stop()
