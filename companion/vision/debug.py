"""An optional sink that keeps each pipeline step's picture, to see where a reading went wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray


class DebugSink(Protocol):
    """Receives intermediate pictures by step name; the pipeline never depends on what it does."""

    def __call__(self, step: str, picture: NDArray[np.generic]) -> None: ...


class FolderSink:
    """Writes each step as NN-step.png into a folder (masks become black/white pictures)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._count = 0

    def __call__(self, step: str, picture: NDArray[np.generic]) -> None:
        self._count += 1
        image = picture
        if image.dtype == np.bool_:
            image = image.astype(np.uint8) * 255
        elif image.dtype != np.uint8:
            values = image.astype(np.float32)
            low, high = float(values.min()), float(values.max())
            image = ((values - low) / max(high - low, 1e-6) * 255).astype(np.uint8)
        cv2.imwrite(str(self.folder / f"{self._count:02d}-{step}.png"), np.asarray(image, np.uint8))


def no_debug(step: str, picture: NDArray[np.generic]) -> None:
    """The default sink: keeps nothing."""
