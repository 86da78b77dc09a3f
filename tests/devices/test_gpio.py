"""The GPIO panel on gpiozero's own MockFactory: buttons, LED ring, edge-triggered beam."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.devices.gpio import TowerPanel, open_panel, pin_factory_for
from companion.devices.health import Health
from companion.settings import GpioSettings, Pins


@pytest.fixture
def factory() -> Iterator[Any]:
    made = MockFactory(pin_class=MockPWMPin)
    yield made
    # Reservations are class-level in gpiozero: without a reset the next test's pins clash.
    made.reset()


def test_buttons_call_back_on_press(factory: Any) -> None:
    pressed: list[str] = []
    panel = TowerPanel(
        GpioSettings(button_bounce_s=0),
        pin_factory=factory,
        on_next=lambda: pressed.append("next"),
        on_undo=lambda: pressed.append("undo"),
    )
    # Buttons pull up: pressing connects the pin to ground.
    factory.pin(17).drive_low()
    factory.pin(17).drive_high()
    factory.pin(27).drive_low()
    assert pressed == ["next", "undo"]
    assert panel.status.on
    panel.close()


def test_beam_counts_every_short_break(factory: Any) -> None:
    beams: list[int] = []
    panel = TowerPanel(GpioSettings(), pin_factory=factory, on_beam=lambda: beams.append(1))
    beam_pin = factory.pin(22)
    beam_pin.drive_high()
    assert panel.beam.quiet_for() is None
    for _ in range(5):
        beam_pin.drive_low()
        beam_pin.drive_high()
    assert panel.beam.breaks == 5
    assert len(beams) == 5
    quiet = panel.beam.quiet_for()
    assert quiet is not None and 0 <= quiet < 5
    panel.close()


def test_led_ring_is_pwm(factory: Any) -> None:
    panel = TowerPanel(GpioSettings(), pin_factory=factory)
    panel.set_light(0.4)
    assert factory.pin(18).state == pytest.approx(0.4)
    assert panel.light == pytest.approx(0.4)
    with pytest.raises(ValueError, match="between 0 and 1"):
        panel.set_light(1.5)
    panel.close()


def test_custom_pins_are_used(factory: Any) -> None:
    pressed: list[str] = []
    pins = Pins(next_button=5, undo_button=6, led_ring=12, tray_beam=16)
    panel = TowerPanel(
        GpioSettings(pins=pins), pin_factory=factory, on_next=lambda: pressed.append("n")
    )
    factory.pin(5).drive_low()
    assert pressed == ["n"]
    panel.close()


def test_pin_in_use_turns_gpio_off_with_a_reason(factory: Any) -> None:
    first = TowerPanel(GpioSettings(), pin_factory=factory)
    second = TowerPanel(GpioSettings(), pin_factory=factory)
    assert not second.status.on
    assert "cannot set up the pins" in second.status.message
    first.close()
    second.close()


def test_off_panel_carries_on() -> None:
    panel = open_panel(GpioSettings(backend="off"))
    assert not panel.status.on
    assert "on-screen" in panel.status.message
    assert panel.status.health().state is Health.OFF
    panel.set_light(0.5)
    assert panel.light == 0.0
    assert panel.beam.breaks == 0
    panel.close()


def test_auto_off_a_pi_is_off_with_advice(monkeypatch: pytest.MonkeyPatch) -> None:
    # This machine is no Pi: the default factory search fails, which must read as "off".
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    factory, status = pin_factory_for("auto")
    if factory is not None:
        factory.close()
        pytest.skip("real GPIO pins are present on this machine")
    assert status.mode == "off"
    assert "COMPANION_GPIO=mock" in status.message


def test_mock_backend_from_settings() -> None:
    factory, status = pin_factory_for("mock")
    try:
        assert status.mode == "mock"
        assert isinstance(factory, MockFactory)
    finally:
        assert factory is not None
        factory.reset()
