"""The tower's GPIO parts through gpiozero: "next" and "undo" buttons, LED ring, tray break-beam.

The pin factory is chosen once (`pin_factory_for`) and handed to every device in its
constructor, as gpiozero itself does; tests give gpiozero's own MockFactory. Off a Raspberry Pi
with no mock asked for, GPIO is simply off: `TowerPanel.status` says so and the app carries on
with on-screen buttons.

The break-beam is an edge-triggered DigitalInputDevice: a falling cube breaks the beam for a few
milliseconds, far shorter than a smoothed, polled sensor can see.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from companion.devices.health import Health, SourceHealth
from companion.settings import GPIO_ENV, GpioBackend, GpioSettings

GpioMode = Literal["real", "mock", "off"]
Callback = Callable[[], None]


@dataclass(frozen=True, slots=True)
class GpioStatus:
    """Which GPIO back-end is in use and, when it is off, why and what to do."""

    mode: GpioMode
    message: str

    @property
    def on(self) -> bool:
        """True when buttons, LED ring and beam work (for real or with mock pins)."""
        return self.mode != "off"

    def health(self) -> SourceHealth:
        """This status as an input's health, for the status bar next to camera and sensor."""
        return SourceHealth("gpio", Health.OK if self.on else Health.OFF, self.message)


def pin_factory_for(backend: GpioBackend) -> tuple[Any | None, GpioStatus]:
    """The gpiozero pin factory for `backend`, or None with a status saying why GPIO is off.

    `auto` tries the Pi's own pins and falls back to off; `real` reports a failure as off too,
    with the reason (the app never stops for missing GPIO); `mock` gives gpiozero's MockFactory
    with PWM-capable pins.
    """
    if backend == "off":
        return None, GpioStatus("off", f"GPIO is off ({GPIO_ENV}=off); use the on-screen buttons")
    if backend == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin), GpioStatus("mock", "GPIO uses mock pins")
    from gpiozero import Device

    try:
        # gpiozero warns once per back-end it falls back from; the status below says it all.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            factory = Device._default_pin_factory()
    except Exception as error:  # BadPinFactory, ImportError, OSError from the chip driver
        hint = (
            "not a Raspberry Pi, or lgpio is missing (apt install python3-lgpio)"
            if backend == "auto"
            else f"{error}"
        )
        return None, GpioStatus(
            "off",
            f"GPIO is off: no usable pins ({hint}); the buttons, LED ring and tray beam are "
            f"not used; set {GPIO_ENV}=mock to try them with mock pins",
        )
    return factory, GpioStatus("real", f"GPIO on {type(factory).__name__}")


class BeamWatch:
    """Counts break-beam interruptions and knows when cubes last fell (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._breaks = 0
        self._last: float | None = None

    def broken(self) -> None:
        """Record one interruption now."""
        with self._lock:
            self._breaks += 1
            self._last = time.monotonic()

    @property
    def breaks(self) -> int:
        """Interruptions so far (roughly one per cube; cubes falling together count once)."""
        with self._lock:
            return self._breaks

    def quiet_for(self) -> float | None:
        """Seconds since the last interruption, None when the beam was never broken."""
        with self._lock:
            return None if self._last is None else time.monotonic() - self._last


class TowerPanel:
    """Buttons, LED ring and beam on one pin factory; with no factory, everything is off.

    Callbacks run on gpiozero's threads: they must only post work (never touch widgets).
    `on_next` and `on_undo` fire on a press; `on_beam` fires on each beam interruption.
    """

    def __init__(
        self,
        settings: GpioSettings,
        *,
        pin_factory: Any | None,
        status: GpioStatus | None = None,
        on_next: Callback | None = None,
        on_undo: Callback | None = None,
        on_beam: Callback | None = None,
    ) -> None:
        self.status = status or (
            GpioStatus("off", "GPIO is off: no pin factory given")
            if pin_factory is None
            else GpioStatus("real", f"GPIO on {type(pin_factory).__name__}")
        )
        self.beam = BeamWatch()
        self.pin_factory = pin_factory
        """The gpiozero pin factory in use (None when GPIO is off)."""
        self._devices: list[Any] = []
        self._led: Any | None = None
        if pin_factory is None:
            return
        from gpiozero import PWMLED, Button, DigitalInputDevice

        pins = settings.pins
        bounce = settings.button_bounce_s or None
        try:
            next_button = Button(
                pins.next_button, pull_up=True, bounce_time=bounce, pin_factory=pin_factory
            )
            self._devices.append(next_button)
            undo_button = Button(
                pins.undo_button, pull_up=True, bounce_time=bounce, pin_factory=pin_factory
            )
            self._devices.append(undo_button)
            # IR receivers are open-collector: the line is pulled up and goes low when broken.
            beam = DigitalInputDevice(
                pins.tray_beam, pull_up=True, bounce_time=None, pin_factory=pin_factory
            )
            self._devices.append(beam)
            self._led = PWMLED(pins.led_ring, initial_value=0, pin_factory=pin_factory)
            self._devices.append(self._led)
        except Exception as error:  # pin in use, no PWM on that pin, permissions
            self.close()
            self.pin_factory = None
            self.status = GpioStatus(
                "off",
                f"GPIO is off: cannot set up the pins ({error}); check the pin numbers in the "
                "settings file and that no other program uses them",
            )
            return

        def beam_broken() -> None:
            self.beam.broken()
            if on_beam is not None:
                on_beam()

        if on_next is not None:
            next_button.when_pressed = lambda: on_next()
        if on_undo is not None:
            undo_button.when_pressed = lambda: on_undo()
        beam.when_activated = beam_broken

    def set_light(self, level: float) -> None:
        """Set the LED ring's brightness, 0 (off) to 1 (full); no effect when GPIO is off."""
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"LED level must be between 0 and 1, got {level}")
        if self._led is not None:
            self._led.value = level

    @property
    def light(self) -> float:
        """The LED ring's brightness 0..1 (0 when GPIO is off)."""
        return float(self._led.value) if self._led is not None else 0.0

    def close(self) -> None:
        """Release every pin (idempotent)."""
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()
        self._led = None


def open_panel(
    settings: GpioSettings,
    *,
    on_next: Callback | None = None,
    on_undo: Callback | None = None,
    on_beam: Callback | None = None,
) -> TowerPanel:
    """A TowerPanel on the back-end the settings choose (see companion.settings)."""
    factory, status = pin_factory_for(settings.backend)
    return TowerPanel(
        settings,
        pin_factory=factory,
        status=status,
        on_next=on_next,
        on_undo=on_undo,
        on_beam=on_beam,
    )
