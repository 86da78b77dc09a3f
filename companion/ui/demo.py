"""The scripted demo: a seeded 4-player game played through the app's own widgets, printed as
it goes, with a screenshot of every screen along the way."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from companion.core.events import Drop, Event, PirateRevealed, SetupDrop
from companion.core.simulate import simulate_game
from companion.core.views import scores, winners

DEMO_PLAYERS = 4


class SimulatedCamera:
    """Stands in for the camera: before each drop it posts what landed, from another thread,
    through the app's reading bridge (as the reading service does with real hardware).

    The simulated tower is the game's script, so its readings are right; a misread the script
    corrects later is posted as misread and then fixed with the +/- buttons.
    """

    def __init__(self, app: object, *, pictures: bool) -> None:
        from companion.ui.bridge import ReadingBridge

        self.app = app
        self.pictures = pictures
        self.bridge = ReadingBridge(app.controller, "simulated camera")  # type: ignore[attr-defined]
        app.bridge = self.bridge  # type: ignore[attr-defined]
        self.drops = 0

    def before(self, event: Event, number: int) -> None:
        """Post the reading of a drop before it is confirmed (and wait for the UI to show it)."""
        import threading

        from companion.ui import harness
        from companion.ui.screenshots import simulated_reading, unpictured_reading

        if not isinstance(event, SetupDrop | Drop):
            return
        self.drops += 1
        with_picture = self.pictures and self.drops <= 3
        reading = (simulated_reading if with_picture else unpictured_reading)(event.counts, number)
        received = self.bridge.received
        worker = threading.Thread(target=self.bridge.post_reading, args=(reading,))
        worker.start()
        worker.join()
        harness.wait_until(lambda: self.bridge.received > received)


def describe(event: Event, names: list[str]) -> str:
    """One line about an event for the demo's printout."""
    data = event.model_dump(exclude_defaults=True, mode="json")
    data.pop("kind", None)
    kind = event.kind
    player = data.pop("player", None)
    who = f"{names[player]}: " if player is not None else ""
    details = ", ".join(f"{k}={v}" for k, v in data.items())
    return f"{who}{kind}" + (f" ({details})" if details else "")


def play_demo(
    *,
    data: Path,
    seed: int,
    screenshots: Path | None,
    size: tuple[int, int],
    language: str,
    out: TextIO,
    through_widgets: bool = True,
) -> int:
    """Play the seeded game; returns 0 when the app recorded all of it.

    `through_widgets` taps every event in (about 2-3 minutes offscreen); otherwise the events go
    straight to the controller and only the screens are drawn (seconds: for screenshots).
    """
    from companion.ui import harness
    from companion.ui.app import CompanionApp
    from companion.ui.autoplay import enter
    from companion.ui.launch import build_app
    from companion.ui.screenshots import ScreenshotTour

    script = simulate_game(DEMO_PLAYERS, seed=seed)
    names = [p.name for p in script.state.players]
    app = build_app(data)
    assert isinstance(app, CompanionApp)
    app._run_prepare()  # builds the app on the window without Kivy's blocking loop
    harness.start()
    harness.frames(3)
    tour = ScreenshotTour(app, screenshots, size, language)
    tour.shoot("new-game")
    controller = app.controller
    controller.new_game(names, script.log.options, script.log.box)
    print(f"Demo game (seed {seed}): {', '.join(names)}", file=out, flush=True)
    camera = SimulatedCamera(app, pictures=screenshots is not None)
    from companion.ui.bridge import SimulatedCalibrationPictures

    app.grab_picture = SimulatedCalibrationPictures().next_picture
    for number, event in enumerate(script.events, start=1):
        camera.before(event, number)
        tour.before(event, number)
        if through_widgets:
            enter(app, event)
        elif not controller.apply(event):
            print(f"the app refused event {number}: {controller.message}", file=out)
            return 1
        else:
            harness.frames(1)
        state = controller.state
        assert state is not None
        prefix = f"[round {state.round}]"
        print(f"{number:4d} {prefix} {describe(event, names)}", file=out, flush=True)
        tour.after(event, number)
        if isinstance(event, SetupDrop | Drop | PirateRevealed):
            harness.frames(1)
    state = controller.state
    assert state is not None
    tour.finish()
    for score in scores(state):
        print(f"{score.name}: {score.total} VP", file=out)
    best = ", ".join(state.players[i].name for i in winners(state))
    print(f"Winner: {best}", file=out, flush=True)
    if screenshots is not None:
        print(f"Screenshots in {screenshots}", file=out, flush=True)
    app.stop()
    same = controller.game is not None and controller.game.events == script.events
    return 0 if same and state.finished else 1
