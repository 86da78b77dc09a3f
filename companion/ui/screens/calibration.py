"""The calibration wizard: the empty tray, then each colour's cubes alone, with progress and a
check of the result (the vision's `calibrate` names the picture that is unusable)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.app import App

from companion.core.cubes import COLOURS, Colour
from companion.ui.controller import Controller, colour_name
from companion.ui.i18n import tr, trf
from companion.ui.screens.base import BaseScreen, load_kv

load_kv(__file__)

Grabber = Callable[[], Any]
"""Returns the camera's latest picture (BGR array), or raises an error saying what is wrong."""


class CalibrationScreen(BaseScreen):
    """Step 0 is the empty tray, steps 1-7 one colour each in circuit order; then the check."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.pictures: list[Any] = []
        self.outcome = ""

    def grabber(self) -> Grabber | None:
        """The app's camera, when it has one."""
        found: Grabber | None = getattr(App.get_running_app(), "grab_picture", None)
        return found

    def refresh(self, controller: Controller) -> None:
        self.controller = controller
        step = len(self.pictures)
        self.ids.progress.value = step
        if self.grabber() is None:
            self.ids.step.text = tr("No camera is connected: connect one to calibrate.")
            self.ids.take.disabled = True
        elif step == 0:
            self.ids.step.text = tr("Step 1 of 8: empty the tray, then take a picture.")
            self.ids.take.disabled = False
        elif step <= len(COLOURS):
            colour = COLOURS[step - 1]
            self.ids.step.text = trf(
                "Step {n} of 8: put only {colour} ({code}) cubes in the tray, spread apart, then take a picture.",
                n=step + 1,
                colour=colour_name(colour),
                code=colour.code,
            )
            self.ids.take.disabled = False
        else:
            self.ids.step.text = tr("All pictures taken.")
            self.ids.take.disabled = True
        self.ids.result.text = self.outcome

    def take(self) -> None:
        """Take the picture for the current step; after the last, calibrate and save."""
        grab = self.grabber()
        if grab is None:
            return
        try:
            picture = grab()
        except (OSError, RuntimeError, ValueError) as error:
            self.outcome = trf("The camera did not give a picture: {error}", error=str(error))
            self.refresh(self.controller)
            return
        self.pictures.append(picture)
        self.ids.picture.show(picture)
        if len(self.pictures) == len(COLOURS) + 1:
            self._finish()
        self.refresh(self.controller)

    def _finish(self) -> None:
        from companion.vision import CalibrationError, calibrate

        empty, *rest = self.pictures
        per_colour: dict[Colour, Any] = dict(zip(COLOURS, rest, strict=True))
        try:
            profile = calibrate(empty, per_colour)
        except CalibrationError as error:
            self.outcome = trf("Calibration failed: {error}. Start over.", error=str(error))
            return
        path = self.controller.saved.directory / "profile.json"
        profile.save(path)
        self.outcome = "\n".join(
            [
                trf("Calibrated; saved as {path}.", path=str(path)),
                # What the person should act on comes before the check's details.
                *hard_to_see(profile),
                *white_in_shade_line(profile),
                *moved_line(profile),
                check(profile, per_colour),
            ]
        )

    def restart(self) -> None:
        """Forget the pictures taken and begin again with the empty tray."""
        self.pictures = []
        self.outcome = ""
        self.ids.picture.show(None)
        self.refresh(self.controller)


def hard_to_see(profile: Any) -> list[str]:
    """A line for the person when the tray's print looks like a colour's cubes (they may be
    missed there, see the vision's `camouflage`); none when every colour stands out."""
    from companion.vision.camouflage import camouflaged

    hidden = camouflaged(profile)
    if not hidden:
        return []
    names = ", ".join(colour_name(colour) for colour in hidden)
    return [
        trf(
            "Hard to see on this tray: {colours}. Light from one side helps; then calibrate again.",
            colours=names,
        )
    ]


def white_in_shade_line(profile: Any) -> list[str]:
    """A line for the person when the white cubes were learned in shade (then white cubes
    in the open light may be missed, see the vision's `lit`); none otherwise."""
    from companion.vision.lit import white_in_shade

    if white_in_shade(profile) is None:
        return []
    return [
        tr("The white cubes looked as if in shade. Take their picture again in the open light.")
    ]


def moved_line(profile: Any) -> list[str]:
    """A line for the person when the tray moved while the pictures were taken (those before
    were lined up with the last, see the vision's `lined_up_set`); none otherwise."""
    if not profile.moved_pictures:
        return []
    names = ", ".join(
        tr("empty tray") if name == "empty" else colour_name(Colour(name))
        for name in profile.moved_pictures
    )
    return [
        trf(
            "The tray moved while the pictures were taken: {pictures} lined up with the last "
            "one. If it moves again, start over.",
            pictures=names,
        )
    ]


def check(profile: Any, per_colour: dict[Colour, Any]) -> str:
    """Read every colour's picture back with the new profile: each must show only its colour.

    Returns one line for the person: the count per colour, and which pictures also showed
    other colours (then the calibration should be done again).
    """
    from companion.vision import read_tray

    found = []
    wrong = []
    for colour, picture in per_colour.items():
        counts = read_tray(picture, profile).counts
        found.append(f"{colour.code} {counts[colour]}")
        if counts.total != counts[colour] or counts[colour] == 0:
            wrong.append(colour.code)
    line = trf("Check: {counts}.", counts=", ".join(found))
    if wrong:
        return line + " " + trf("Not clean: {codes}; start over.", codes=", ".join(wrong))
    return line + " " + tr("Every picture shows only its colour.")
