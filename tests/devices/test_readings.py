"""The reading service: camera first, sensor next, the person last; disagreements are asked."""

from __future__ import annotations

import queue
import time

import pytest

from companion.core.cubes import Counts
from companion.devices.health import Health, SourceHealth
from companion.devices.readings import (
    LOOKED_AGAIN,
    DropReading,
    Outcome,
    ReadingService,
    SensorCount,
    Timing,
    decide,
)
from companion.vision.reading import TrayReading

FOUR_BLUE = Counts(blue=4, red=1)
OTHER = Counts(blue=3, red=1, white=1)


def seen(counts: Counts, confident: bool = True, reasons: tuple[str, ...] = ()) -> TrayReading:
    return TrayReading(counts, [], 0.9 if confident else 0.3, confident, list(reasons))


@pytest.mark.parametrize(
    ("camera", "sensor", "outcome", "source", "counts"),
    [
        (seen(FOUR_BLUE), None, Outcome.ACCEPTED, "camera", FOUR_BLUE),
        (seen(FOUR_BLUE), SensorCount(FOUR_BLUE), Outcome.ACCEPTED, "camera", FOUR_BLUE),
        (seen(FOUR_BLUE), SensorCount(OTHER), Outcome.CONFIRM, "camera", FOUR_BLUE),
        (
            seen(OTHER, confident=False),
            SensorCount(FOUR_BLUE),
            Outcome.ACCEPTED,
            "sensor",
            FOUR_BLUE,
        ),
        (None, SensorCount(FOUR_BLUE), Outcome.ACCEPTED, "sensor", FOUR_BLUE),
        (None, SensorCount(FOUR_BLUE, confident=False), Outcome.CONFIRM, "sensor", FOUR_BLUE),
        (seen(OTHER, confident=False), None, Outcome.MANUAL, "manual", OTHER),
        (None, None, Outcome.MANUAL, "manual", None),
    ],
)
def test_decide_prefers_camera_then_sensor_then_person(
    camera: TrayReading | None,
    sensor: SensorCount | None,
    outcome: Outcome,
    source: str,
    counts: Counts | None,
) -> None:
    verdict = decide(1, camera, sensor)
    assert (verdict.outcome, verdict.source, verdict.counts) == (outcome, source, counts)
    assert verdict.camera == (camera.counts if camera else None)
    assert verdict.sensor == (sensor.counts if sensor else None)
    if outcome is not Outcome.ACCEPTED:
        assert verdict.reasons


def test_disagreement_names_both_values() -> None:
    verdict = decide(3, seen(FOUR_BLUE), SensorCount(OTHER))
    assert verdict.outcome is Outcome.CONFIRM
    assert str(FOUR_BLUE) in verdict.reasons[0] and str(OTHER) in verdict.reasons[0]


def test_unsure_camera_reasons_travel_with_the_sensor_value() -> None:
    verdict = decide(1, seen(OTHER, False, ("hand in view",)), SensorCount(FOUR_BLUE))
    assert "camera unsure: hand in view" in verdict.reasons


def test_impossible_counts_go_to_the_person() -> None:
    verdict = decide(1, seen(Counts(blue=5)), None, possible=Counts(blue=4, red=7))
    assert verdict.outcome is Outcome.CONFIRM
    assert "5 blue seen but at most 4" in verdict.reasons[0]


def test_strays_are_always_shown() -> None:
    verdict = decide(2, seen(Counts(red=1)), None, kind="stray")
    assert verdict.outcome is Outcome.CONFIRM and verdict.kind == "stray"


FAST = Timing(sensor_quiet_s=0.05, nothing_out_s=0.15, camera_wait_s=0.6, tick_s=0.005)
CAMERA_OK = SourceHealth("camera", Health.OK, "camera 0")
SENSOR_OK = SourceHealth("sensor", Health.OK, "chute sensor on /dev/ttyACM0")
CAMERA_LOST = SourceHealth("camera", Health.OFFLINE, "camera unplugged: plug it back in")
SENSOR_LOST = SourceHealth("sensor", Health.OFFLINE, "no word from the chute sensor for 3 s")


class Collected:
    def __init__(self) -> None:
        self.readings: queue.Queue[DropReading] = queue.Queue()
        self.health: list[SourceHealth] = []

    def next(self, timeout: float = 3.0) -> DropReading:
        return self.readings.get(timeout=timeout)

    def none_within(self, seconds: float) -> bool:
        try:
            self.readings.get(timeout=seconds)
        except queue.Empty:
            return True
        return False


def service(
    camera: SourceHealth = CAMERA_OK, sensor: SourceHealth = SENSOR_OK
) -> tuple[ReadingService, Collected]:
    got = Collected()
    made = ReadingService(
        got.readings.put, got.health.append, timing=FAST, camera=camera, sensor=sensor
    )
    return made, got


def test_camera_and_sensor_agree() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts(blue=2))
        number = svc.expect_drop(Counts.full())
        svc.sensor_totals(Counts(blue=4))
        svc.sensor_totals(Counts(blue=6, red=1))
        svc.camera_reading(seen(FOUR_BLUE))
        verdict = got.next()
    assert (verdict.drop, verdict.kind, verdict.outcome) == (number, "drop", Outcome.ACCEPTED)
    assert verdict.camera == FOUR_BLUE and verdict.sensor == FOUR_BLUE


def test_camera_and_sensor_disagree_ask_the_person() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts())
        svc.expect_drop()
        svc.sensor_totals(OTHER)
        svc.camera_reading(seen(FOUR_BLUE))
        verdict = got.next()
    assert verdict.outcome is Outcome.CONFIRM
    assert (verdict.camera, verdict.sensor) == (FOUR_BLUE, OTHER)


def test_camera_lost_falls_back_to_the_sensor() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts())
        svc.camera_health(CAMERA_LOST)
        svc.expect_drop()
        svc.sensor_totals(FOUR_BLUE)
        verdict = got.next()
    assert (verdict.outcome, verdict.source, verdict.counts) == (
        Outcome.ACCEPTED,
        "sensor",
        FOUR_BLUE,
    )
    assert any("plug it back in" in r for r in verdict.reasons)
    assert [h.state for h in got.health] == [Health.OFFLINE]
    assert svc.health()["camera"] == got.health[0]


def test_camera_silent_falls_back_to_the_sensor_after_waiting() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts())
        started = time.monotonic()
        svc.expect_drop()
        svc.sensor_totals(FOUR_BLUE)
        verdict = got.next()
    assert time.monotonic() - started >= FAST.camera_wait_s
    assert verdict.source == "sensor"
    assert any("no settled picture" in r for r in verdict.reasons)


def test_both_lost_asks_for_manual_entry() -> None:
    svc, got = service(camera=CAMERA_LOST, sensor=SENSOR_LOST)
    with svc:
        svc.expect_drop()
        verdict = got.next()
    assert verdict.outcome is Outcome.MANUAL and verdict.counts is None
    assert any("plug it back in" in r for r in verdict.reasons)
    assert any("3 s" in r for r in verdict.reasons)


def test_unsure_camera_and_no_sensor_offers_its_guess() -> None:
    svc, got = service(sensor=SourceHealth("sensor", Health.OFF, "not fitted"))
    with svc:
        svc.expect_drop()
        svc.camera_reading(seen(OTHER, confident=False, reasons=("cubes overlap",)))
        verdict = got.next()
    assert verdict.outcome is Outcome.MANUAL and verdict.counts == OTHER
    assert "camera unsure: cubes overlap" in verdict.reasons


def test_nothing_came_out_is_a_reading_of_zero() -> None:
    svc, got = service(camera=SourceHealth("camera", Health.OFF, "no camera"))
    with svc:
        svc.sensor_totals(Counts(green=3))
        svc.expect_drop()
        verdict = got.next()
    assert verdict.outcome is Outcome.ACCEPTED and verdict.counts == Counts()


def test_sensor_restart_mid_drop_loses_only_its_count() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts(blue=5))
        svc.expect_drop()
        svc.sensor_totals(Counts(red=1))
        svc.camera_reading(seen(FOUR_BLUE))
        verdict = got.next()
    assert verdict.outcome is Outcome.ACCEPTED and verdict.counts == FOUR_BLUE
    assert any("restarted" in r for r in verdict.reasons)


def test_camera_reading_from_before_the_drop_is_ignored() -> None:
    svc, got = service(sensor=SourceHealth("sensor", Health.OFF, "not fitted"))
    with svc:
        early = time.monotonic()
        svc.expect_drop()
        svc.camera_reading(seen(OTHER), at=early - 1)
        svc.camera_reading(seen(FOUR_BLUE))
        verdict = got.next()
    assert verdict.counts == FOUR_BLUE


def test_a_stray_counted_by_sensor_and_camera_is_one_stray() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts())
        svc.expect_drop()
        svc.sensor_totals(FOUR_BLUE)
        svc.camera_reading(seen(FOUR_BLUE))
        assert got.next().outcome is Outcome.ACCEPTED
        svc.sensor_totals(FOUR_BLUE.plus(Counts(white=1)))
        svc.camera_reading(seen(FOUR_BLUE.plus(Counts(white=1))))
        stray = got.next()
        assert got.none_within(0.3)
    assert stray.kind == "stray" and stray.outcome is Outcome.CONFIRM
    assert stray.counts == Counts(white=1) and stray.sensor == Counts(white=1)


def test_tidying_the_tray_is_not_a_stray() -> None:
    svc, got = service(sensor=SourceHealth("sensor", Health.OFF, "not fitted"))
    with svc:
        svc.expect_drop()
        svc.camera_reading(seen(FOUR_BLUE))
        got.next()
        svc.camera_reading(seen(Counts(blue=1)))
        svc.camera_reading(seen(Counts()))
        assert got.none_within(0.3)


NO_SENSOR = SourceHealth("sensor", Health.OFF, "not fitted")
HIDDEN = "a cube may be hidden in a heap"


def heaped_drop(
    svc: ReadingService,
    got: Collected,
    possible: Counts | None = None,
    sensor: Counts | None = None,
    sensor_confidence: float = 1.0,
) -> DropReading:
    """A drop the camera sees as four blue in a heap, unsure (and the chute sensor counts
    `sensor`, when given): the service's verdict on it."""
    svc.expect_drop(possible)
    if sensor is not None:
        svc.sensor_totals(sensor, confidence=sensor_confidence)
    svc.camera_reading(seen(FOUR_BLUE, confident=False, reasons=(HIDDEN,)))
    return got.next()


def test_cubes_spread_by_hand_are_a_second_look_at_the_drop_not_strays() -> None:
    svc, got = service(sensor=NO_SENSOR)
    with svc:
        first = heaped_drop(svc, got, Counts(blue=6, red=6))
        # The players spread the heap: a blue that lay under the others comes into view.
        svc.camera_reading(seen(Counts(blue=5, red=1)), moved_by_hand=True)
        again = got.next()
        # Spread once more, the same cubes: nothing new to say.
        svc.camera_reading(seen(Counts(blue=5, red=1)), moved_by_hand=True)
        assert got.none_within(0.3)
        # Once more: a cube lying apart now shows its colour better, none more nor fewer.
        svc.camera_reading(seen(Counts(blue=4, black=1, red=1)), moved_by_hand=True)
        third = got.next()
    assert (first.kind, first.outcome, first.counts) == ("drop", Outcome.MANUAL, FOUR_BLUE)
    assert (again.drop, again.kind, again.outcome) == (first.drop, "second look", Outcome.ACCEPTED)
    assert again.counts == Counts(blue=5, red=1)
    assert again.reasons == (LOOKED_AGAIN,)
    assert (third.drop, third.kind, third.counts) == (first.drop, "second look", third.camera)
    assert third.counts == Counts(blue=4, black=1, red=1)


def test_a_second_look_is_weighed_like_the_drop() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts())
        first = heaped_drop(svc, got, Counts(blue=4, red=7), sensor=Counts(blue=5, red=1))
        # Spread out, the camera agrees with the sensor: the drop's value stands, no news.
        svc.camera_reading(seen(Counts(blue=5, red=1)), moved_by_hand=True)
        assert got.none_within(0.3)
    assert (first.source, first.counts) == ("sensor", Counts(blue=5, red=1))
    # Without a sensor, more cubes than could have come out still go to the person.
    svc, got = service(sensor=NO_SENSOR)
    with svc:
        heaped_drop(svc, got, Counts(blue=4, red=7))
        svc.camera_reading(seen(Counts(blue=5, red=1)), moved_by_hand=True)
        again = got.next()
    assert again.kind == "second look" and again.outcome is Outcome.CONFIRM
    assert "5 blue seen but at most 4 could have come out" in again.reasons


def test_a_second_look_that_settles_the_sensor_s_doubt_is_news() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts())
        first = heaped_drop(
            svc, got, Counts(blue=6, red=6), sensor=Counts(blue=5, red=1), sensor_confidence=0.5
        )
        # Spread out, the camera is sure and counts what the unsure sensor did.
        svc.camera_reading(seen(Counts(blue=5, red=1)), moved_by_hand=True)
        again = got.next()
        # Once sure, the same counts again are no news.
        svc.camera_reading(seen(Counts(blue=5, red=1)), moved_by_hand=True)
        assert got.none_within(0.3)
    assert (first.source, first.outcome) == ("sensor", Outcome.CONFIRM)
    assert (again.kind, again.source, again.outcome) == ("second look", "camera", Outcome.ACCEPTED)
    assert again.counts == first.counts


def test_more_cubes_without_a_hand_or_after_tidying_are_no_second_look() -> None:
    svc, got = service(sensor=NO_SENSOR)
    with svc:
        svc.expect_drop()
        svc.camera_reading(seen(FOUR_BLUE))
        got.next()
        # No hand in view: a cube fell out of the tower by itself.
        svc.camera_reading(seen(FOUR_BLUE.plus(Counts(white=1))))
        stray = got.next()
    assert stray.kind == "stray" and stray.counts == Counts(white=1)
    svc, got = service(sensor=NO_SENSOR)
    with svc:
        heaped_drop(svc, got)
        # A hand took cubes away, then more show up: what is left is no longer the drop.
        svc.camera_reading(seen(Counts(blue=1)), moved_by_hand=True)
        svc.camera_reading(seen(Counts(blue=2)), moved_by_hand=True)
        assert got.none_within(0.3)


def test_health_changes_are_posted_once() -> None:
    svc, got = service()
    with svc:
        svc.sensor_health(SENSOR_LOST)
        svc.sensor_health(SourceHealth("sensor", Health.OFFLINE, SENSOR_LOST.message))
        svc.sensor_health(SENSOR_OK)
        svc.expect_drop()
        svc.camera_reading(seen(Counts()))
        got.next()
    assert [h.state for h in got.health] == [Health.OFFLINE, Health.OK]


def test_cube_of_unknown_colour_makes_the_sensor_unsure() -> None:
    svc, got = service(camera=SourceHealth("camera", Health.OFF, "no camera"))
    with svc:
        svc.sensor_totals(Counts(), unknown=2)
        svc.expect_drop()
        svc.sensor_totals(Counts(red=2), unknown=3)
        verdict = got.next()
    assert verdict.outcome is Outcome.CONFIRM and verdict.counts == Counts(red=2)
    assert any("1 cube(s) fell whose colour" in r for r in verdict.reasons)


def test_sensor_doubts_during_the_drop_reach_the_person() -> None:
    svc, got = service(camera=SourceHealth("camera", Health.OFF, "no camera"))
    with svc:
        svc.sensor_totals(Counts())
        svc.expect_drop()
        svc.sensor_totals(
            Counts(red=2),
            confidence=0.5,
            reasons=("the sensor restarted during this drop", "cubes may still be falling"),
        )
        verdict = got.next()
    assert verdict.outcome is Outcome.CONFIRM
    assert "the sensor restarted during this drop" in verdict.reasons
    assert not any("still be falling" in r for r in verdict.reasons)


def test_camera_picture_from_before_the_last_cube_is_not_used() -> None:
    svc, got = service()
    with svc:
        svc.sensor_totals(Counts())
        started = time.monotonic()
        svc.expect_drop()
        svc.camera_reading(seen(Counts(blue=2)), at=started + 0.01)
        svc.sensor_totals(FOUR_BLUE, last_cube_at=started + 0.02)
        verdict = got.next()
    assert (verdict.source, verdict.counts, verdict.camera) == ("sensor", FOUR_BLUE, None)
    assert any("before the last cube fell" in r for r in verdict.reasons)


def test_sensor_count_waits_for_the_sensor_to_say_it_is_settled() -> None:
    svc, got = service(camera=SourceHealth("camera", Health.OFF, "no camera"))
    with svc:
        svc.sensor_totals(Counts(), settled=True)
        svc.expect_drop()
        svc.sensor_totals(Counts(green=1), settled=False)
        # Quiet for longer than the quiet time, but the sensor has not confirmed its count.
        assert got.none_within(FAST.sensor_quiet_s * 4)
        svc.sensor_totals(Counts(green=4, black=1), settled=False)
        svc.sensor_totals(Counts(green=4, black=1), settled=True)
        verdict = got.next()
    assert verdict.counts == Counts(green=4, black=1)
