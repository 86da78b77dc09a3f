"""Screenshots of every screen along the demo game, named screen-language-WxH.png."""

from __future__ import annotations

from pathlib import Path

from companion.core.events import (
    ActionEvent,
    Drop,
    Event,
    MoveShips,
    PirateRevealed,
    SetupDrop,
)
from companion.ui import choices, harness
from companion.ui.app import CompanionApp
from companion.ui.controller import PendingReading


def simulated_reading(counts: object, seed: int) -> PendingReading:
    """A rendered picture of the tray holding exactly `counts`, every cube marked: what the
    simulated camera shows when no hardware is connected."""
    from companion.core.cubes import Counts
    from companion.devices.tray_render import TrayScene, render

    assert isinstance(counts, Counts)
    shot = render(TrayScene.random(seed, counts=counts), jpeg=False)
    return PendingReading(
        counts=shot.counts,
        source="simulated camera",
        confident=True,
        confidence=1.0,
        picture=shot.image,
        markers=tuple((cube.colour, cube.x, cube.y) for cube in shot.cubes),
    )


def unpictured_reading(counts: object, seed: int) -> PendingReading:
    """The simulated camera's counts without rendering a picture (fast, for long games)."""
    from companion.core.cubes import Counts

    assert isinstance(counts, Counts)
    return PendingReading(counts=counts, source="simulated camera", confident=True, confidence=1.0)


class ScreenshotTour:
    """Decides when, during the demo, each screen is at its most telling, and saves it."""

    def __init__(
        self, app: CompanionApp, folder: Path | None, size: tuple[int, int], language: str
    ) -> None:
        self.app = app
        self.folder = folder
        self.suffix = f"{language}-{size[0]}x{size[1]}"
        self.taken: set[str] = set()
        self.drops = 0

    def shoot(self, name: str, screen: str | None = None) -> None:
        """Save the screen (shown first if given) once under this name."""
        if self.folder is None or name in self.taken:
            return
        if screen is not None:
            self.app.show(screen)
        harness.frames(3)
        harness.screenshot(self.folder / f"{name}-{self.suffix}.png")
        self.taken.add(name)

    def before(self, event: Event, number: int) -> None:
        """Called before the event is tapped in."""
        state = self.app.controller.state
        assert state is not None
        if isinstance(event, SetupDrop | Drop):
            self.drops += 1
        if isinstance(event, PirateRevealed):
            self.shoot("pirates-setup" if state.round == 1 else "round-end", "round_end")
        elif isinstance(event, SetupDrop):
            self.shoot("setup-drop", "phase")
        elif isinstance(event, Drop) and self.drops == 3:
            self.shoot("phase-drop", "phase")
        elif isinstance(event, ActionEvent) and state.round >= 2:
            self.shoot("phase-turns", "phase")
            if isinstance(event, MoveShips) and "turn-ships" not in self.taken:
                self._turn_screen(event)
        if state.round == 3 and "scores-midgame" not in self.taken:
            self.shoot("scores-midgame", "scores")
            self.app.show(self.app.controller.screen_for_stage())

    def _turn_screen(self, event: MoveShips) -> None:
        phase = self.app.screen("phase")
        for button in phase.turn_panel.ids.actions.children:
            if button.payload.colour is not None and button.payload.kind == "blue":
                harness.tap(button)
                self.shoot("turn-ships")
                harness.tap(self.app.screen("turn").ids.back)
                return

    def after(self, event: Event, number: int) -> None:
        """Called after the event was recorded."""

    def finish(self) -> None:
        """The final scores step by step, then the set-up screens."""
        if self.folder is None:
            return
        scores = self.app.screen("scores")
        self.app.show("scores")
        harness.frames(2)
        self.shoot("final-scoring-step1")
        for _ in range(4):
            harness.tap(scores.ids.next_step)
        self.shoot("final-winner")
        self.shoot("devices", "devices")
        self.shoot("box-data", "box_data")
        # The owner half-way through copying the tracks (not saved): the drawings follow.
        from companion.core.box import TEST_BOX
        from companion.ui.box_text import box_texts

        box_screen = self.app.screen("box_data")
        texts = box_texts(TEST_BOX)
        for field in ("progress_track", "special_track"):
            box_screen.inputs[field].text = texts[field]
        box_screen.inputs["pirate_markers"].text = "0 0 2"
        self.shoot("box-data-typing")
        for field in ("progress_track", "special_track", "pirate_markers"):
            box_screen.inputs[field].text = ""
        self.app.show("calibration")
        calibration = self.app.screen("calibration")
        for _ in range(4):
            harness.tap(calibration.ids.take)
        self.shoot("calibration")
        self._sheet_reading_turn()

    def _sheet_reading_turn(self) -> None:
        """A brown turn of a game with the real box (track layout unknown): the sheet readings
        on the turn screen. Played on a side controller so the demo's own game is untouched."""
        import tempfile

        from companion.core.box import REAL_BOX
        from companion.core.events import Progress
        from companion.core.simulate import simulate_game
        from companion.ui.controller import Controller
        from companion.ui.saved_game import SavedGame

        script = simulate_game(2, seed=5, box=REAL_BOX)
        with tempfile.TemporaryDirectory(prefix="companion-shot-") as folder:
            side = Controller(SavedGame(Path(folder)))
            side.new_game([p.name for p in script.state.players], script.log.options, REAL_BOX)
            for event in script.events:
                if isinstance(event, Progress) and event.vp_spaces:
                    break
                side.apply(event)
            state = side.state
            assert state is not None
            choice = next(c for c in choices.action_choices(state) if c.kind == "brown")
            turn = self.app.screen("turn")
            turn.start(side, choice)
            self.app.root.manager.current = "turn"
            form = turn.main_form
            form.row("vp_spaces").step(1)
            for _ in range(10):
                form.row("highest_vp").step(1)
            self.shoot("turn-progress-readings")
