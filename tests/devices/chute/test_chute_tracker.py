"""Running totals into per-drop readings: lost frames, restarts, settling, confidence."""

from __future__ import annotations

import pytest

from companion.core.cubes import Counts
from companion.devices.chute import cubeproto as P
from companion.devices.chute.tracker import ChuteReading, ChuteTracker


def _line(kind: str, seq: int, boot: str, tot: list[int], rej: int = 0, **extra: str) -> bytes:
    fields = [("boot", boot)]
    if kind == P.EVT:
        fields += [
            ("c", extra.get("c", "0")),
            ("rgbc", "1,2,3,4"),
            ("conf", extra.get("conf", "1000")),
        ]
    elif kind == P.HB:
        fields += [("up", "1000"), ("cal", "0"), ("sens", "1")]
    elif kind == P.HELLO:
        fields += [("proto", "1"), ("fw", "t"), ("cal", "0")]
    fields += [("tot", P.format_uints(tot)), ("rej", str(rej))]
    return P.encode(kind, seq, fields)


def feed(tracker: ChuteTracker, now: float, line: bytes) -> ChuteReading | None:
    return tracker.on_frame(P.decode(line), now)


def test_totals_counted_before_first_contact_belong_to_no_drop() -> None:
    t = ChuteTracker()
    assert feed(t, 0.0, _line(P.HELLO, 0, "aa", [3, 0, 0, 0, 0, 0, 1])) is None
    r = feed(t, 0.1, _line(P.EVT, 1, "aa", [3, 0, 1, 0, 0, 0, 1], c="2"))
    assert r is not None and r.counts == Counts(red=1) and r.totals == Counts(red=1)
    assert not r.settled and "cubes may still be falling" in r.reasons


def test_a_lost_event_is_repaired_by_the_next_report() -> None:
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [1, 0, 0, 0, 0, 0, 0]))
    # EVT 2 (a red cube) is lost on the way.
    r = feed(t, 0.3, _line(P.EVT, 3, "aa", [1, 0, 1, 0, 0, 0, 1], c="6"))
    assert r is not None and r.counts == Counts(blue=1, red=1, white=1)
    assert t.lost_frames == 1
    assert r.confidence == 0.9
    assert any("1 report(s) lost" in reason for reason in r.reasons)


def test_a_drop_settles_only_on_a_report_after_the_quiet_time() -> None:
    t = ChuteTracker(settle_s=0.8)
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 1.0, _line(P.EVT, 1, "aa", [0, 1, 0, 0, 0, 0, 0], c="1"))
    assert not t.wants_confirmation(1.5)
    assert feed(t, 1.5, _line(P.HB, 2, "aa", [0, 1, 0, 0, 0, 0, 0])) is None
    assert t.wants_confirmation(1.8)
    assert not t.wants_confirmation(1.9)  # asked once per drop
    r = feed(t, 1.85, _line(P.HB, 3, "aa", [0, 1, 0, 0, 0, 0, 0]))
    assert r is not None and r.settled and r.counts == Counts(black=1)
    assert r.confidence == 1.0 and r.reasons == ()
    assert feed(t, 3.0, _line(P.HB, 4, "aa", [0, 1, 0, 0, 0, 0, 0])) is None


def test_the_first_cube_after_a_settled_drop_starts_the_next_drop() -> None:
    t = ChuteTracker(settle_s=0.5)
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [2, 0, 0, 0, 0, 0, 0]))
    feed(t, 1.0, _line(P.HB, 2, "aa", [2, 0, 0, 0, 0, 0, 0]))
    r = feed(t, 2.0, _line(P.EVT, 3, "aa", [2, 0, 0, 0, 1, 0, 0], c="4"))
    assert r is not None and r.counts == Counts(green=1)
    assert r.totals == Counts(blue=2, green=1)


def test_start_drop_counts_from_now() -> None:
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [1, 0, 0, 0, 0, 0, 0]))
    assert t.start_drop(0.2).counts == Counts()
    r = feed(t, 0.3, _line(P.EVT, 2, "aa", [1, 0, 0, 0, 0, 1, 0], c="5"))
    assert r is not None and r.counts == Counts(yellow=1)


def test_a_restart_keeps_what_was_counted_and_lowers_confidence_mid_drop() -> None:
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [0, 0, 2, 0, 0, 0, 0], c="2"))
    # The board resets (new boot id) and counts from zero again.
    r = feed(t, 0.4, _line(P.EVT, 0, "bb", [0, 0, 1, 0, 0, 0, 0], c="2"))
    assert r is not None and r.counts == Counts(red=3) and r.totals == Counts(red=3)
    assert t.restarts == 1 and t.boot == "bb"
    assert r.confidence == 0.5
    assert any("restarted" in reason for reason in r.reasons)
    assert t.lost_frames == 0  # sequence numbers restart with the boot: no false losses


def test_a_restart_between_drops_costs_no_confidence() -> None:
    t = ChuteTracker(settle_s=0.5)
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [1, 0, 0, 0, 0, 0, 0]))
    feed(t, 1.0, _line(P.HB, 2, "aa", [1, 0, 0, 0, 0, 0, 0]))
    feed(t, 2.0, _line(P.HELLO, 0, "cc", [0] * 7))
    r = feed(t, 2.5, _line(P.EVT, 1, "cc", [0, 0, 0, 1, 0, 0, 0], c="3"))
    assert r is not None and r.counts == Counts(brown=1) and r.confidence == 1.0
    assert r.totals == Counts(blue=1, brown=1)


def test_totals_going_down_within_a_boot_are_treated_as_a_restart() -> None:
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [0, 0, 0, 0, 0, 0, 2], c="6"))
    r = feed(t, 0.2, _line(P.EVT, 2, "aa", [0, 0, 0, 0, 0, 0, 1], c="6"))
    assert r is not None and r.counts == Counts(white=3) and t.restarts == 1


def test_rejected_cubes_make_the_reading_unsure() -> None:
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    r = feed(t, 0.1, _line(P.EVT, 1, "aa", [0] * 7, rej=1, c="-", conf="0"))
    assert r is not None and r.unknown == 1 and r.counts == Counts()
    assert r.confidence == 0.3
    feed(t, 0.2, _line(P.HB, 2, "aa", [0] * 7, rej=1))
    t.start_drop(0.3)
    r = feed(t, 0.4, _line(P.EVT, 3, "aa", [0] * 7, rej=2, c="-", conf="0"))
    assert r is not None and r.unknown == 1 and r.unknown_total == 2
    assert "1 cube(s) fell but their colour was not recognised" in r.reasons


def test_the_least_certain_cube_sets_the_confidence() -> None:
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [1, 0, 0, 0, 0, 0, 0], conf="950"))
    r = feed(t, 0.2, _line(P.EVT, 2, "aa", [2, 0, 0, 0, 0, 0, 0], conf="700"))
    assert r is not None and r.confidence == 0.7


def test_offline_during_a_drop_is_reported() -> None:
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [0] * 7))
    feed(t, 0.1, _line(P.EVT, 1, "aa", [1, 0, 0, 0, 0, 0, 0]))
    t.went_offline()
    t.link_opened()
    r = feed(t, 5.0, _line(P.HELLO, 9, "aa", [1, 1, 0, 0, 0, 0, 0]))
    assert r is not None and r.counts == Counts(blue=1, black=1) and r.confidence == 0.5
    assert t.lost_frames == 0  # frames sent while the port was closed are not "lost"


@pytest.mark.parametrize(
    "line",
    [
        _line(P.HB, 1, "aa", [0] * 7).replace(b"tot=0,0,0,0,0,0,0", b"tot=0,0,0"),
        _line(P.HB, 1, "aa", [0] * 7).replace(b"boot=aa", b"boot=ZZ"),
    ],
)
def test_a_frame_with_a_malformed_field_changes_nothing(line: bytes) -> None:
    # Re-frame the edited text so that only the field, not the CRC, is wrong.
    body = line.rsplit(b"*", 1)[0]
    fixed = P.encode(*_split(body))
    t = ChuteTracker()
    feed(t, 0.0, _line(P.HELLO, 0, "aa", [1, 0, 0, 0, 0, 0, 0]))
    with pytest.raises(P.ProtocolError):
        feed(t, 0.1, fixed)
    assert t.reading(0.2).totals == Counts()


def _split(body: bytes) -> tuple[str, int, list[tuple[str, str]]]:
    words = body.decode().split(" ")
    fields = [(w.split("=", 1)[0], w.split("=", 1)[1]) for w in words[3:]]
    return words[1], int(words[2]), fields
