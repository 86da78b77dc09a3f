"""App speed: start to first screen drawn, and a reading arriving to the screen updated.

Prints the start-up time (one cold start in this process, seconds) and the median over many
readings of the time from a device thread posting a reading to the phase screen showing it
(milliseconds). Goals: under 3 s and under 50 ms. Runs offscreen when there is no display.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path

START = time.perf_counter()

from companion.ui import kivy_env  # noqa: E402

kivy_env.prepare((800, 480))


def main() -> None:
    from companion.core.cubes import COLOURS, Counts
    from companion.core.events import PirateRevealed
    from companion.ui import harness, i18n
    from companion.ui.app import CompanionApp
    from companion.ui.bridge import ReadingBridge
    from companion.ui.controller import Controller, PendingReading
    from companion.ui.saved_game import SavedGame

    i18n.set_language("en")
    data = Path(tempfile.mkdtemp(prefix="companion-bench-"))
    app = CompanionApp(Controller(SavedGame(data)))
    app._run_prepare()
    harness.start()
    harness.frames(1)
    first_screen = time.perf_counter() - START
    print(f"start to first screen drawn: {first_screen:.2f} s (goal < 3 s)")

    controller = app.controller
    controller.new_game(["Ada", "Bruno", "Carla", "Dmitri"], controller_options())
    controller.apply(PirateRevealed(value=2))
    harness.frames(2)
    bridge = ReadingBridge(controller, "benchmark thread")
    panel = app.screen("phase").drop_panel
    timings = []
    for i in range(60):
        counts = Counts.of({COLOURS[i % 7]: 1 + i % 5, COLOURS[(i + 3) % 7]: i % 3})
        reading = PendingReading(counts, "camera", True, 1.0)
        posted = time.perf_counter()
        worker = threading.Thread(target=bridge.post_reading, args=(reading,))
        worker.start()
        worker.join()
        # One frame runs the clock (the posted callback and the layout it triggers) and then
        # draws; the first frame after which the panel shows the counts has drawn them.
        harness.frames(1)
        while panel.counts() != counts:
            harness.frames(1)
        timings.append((time.perf_counter() - posted) * 1000)
    print(
        f"reading arriving to screen updated: median {statistics.median(timings):.1f} ms "
        f"over {len(timings)} readings (goal < 50 ms)"
    )
    # Switching the language makes every screen again (their texts come from the catalogue).
    switches = []
    for language in ("de", "en", "de", "en", "de", "en"):
        began = time.perf_counter()
        app.set_language(language)
        harness.frames(1)
        switches.append(time.perf_counter() - began)
    print(
        f"language switch to the screen redrawn: median {statistics.median(switches):.2f} s "
        f"over {len(switches)} switches"
    )
    app.stop()


def controller_options() -> object:
    from companion.core.options import RuleOptions

    return RuleOptions()


if __name__ == "__main__":
    main()
