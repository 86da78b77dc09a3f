"""How each input is doing (camera, chute sensor, GPIO), as small values the screen can show."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

SourceName = Literal["camera", "sensor", "gpio"]


class Health(StrEnum):
    """One input's state, from best to worst."""

    OK = "ok"
    """Working and trusted."""
    UNSURE = "unsure"
    """Working, but its last reading was doubtful or it is stalling."""
    OFFLINE = "offline"
    """Expected but not answering (unplugged, crashed); the message says what to do."""
    OFF = "off"
    """Not in use by choice or because there is no such hardware here."""


@dataclass(frozen=True, slots=True)
class SourceHealth:
    """One input's health with a message for the person; `since` is time.monotonic() seconds."""

    source: SourceName
    state: Health
    message: str
    since: float = field(default_factory=time.monotonic)

    @property
    def usable(self) -> bool:
        """True when readings from this input may be used (ok or unsure)."""
        return self.state in (Health.OK, Health.UNSURE)

    def same_as(self, other: SourceHealth | None) -> bool:
        """True when `other` says the same thing (ignoring when it was said)."""
        return (
            other is not None
            and other.source == self.source
            and other.state is self.state
            and other.message == self.message
        )
