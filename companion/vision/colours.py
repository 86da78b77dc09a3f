"""Telling cube colours apart: the Mahalanobis distance of Lab pixels to each colour model."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

# Squared distances are divided by this where a colour is only roughly known (nearly three
# times the sigma: a clipped red channel turns a bright yellow green-yellow, a clipped white
# hides its tint).
LOOSE_SLACK = 8.0
# A pixel up to this much darker (L) than a clipped model is still judged loosely: the light
# falls off across a tray, and a cube in a dimmer spot comes out below the clip.
DIMMER_BY = 8.0


def distances2(
    pixels: NDArray[np.float32],
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    clipped: NDArray[np.bool_] | None = None,
    saturated: NDArray[np.bool_] | None = None,
    means_at_ceiling: NDArray[np.float32] | None = None,
) -> NDArray[np.float32]:
    """Squared Mahalanobis distance of N Lab pixels to each of K models: N x K.

    Judged with LOOSE_SLACK: pixels at the camera's limit (`saturated`, per pixel), and pixels
    about as light as a model learned from clipped pixels or lighter (`clipped`, per model):
    the clip hid how light that colour is and its tint. A clearly darker pixel gets no slack
    there, so a clipped yellow does not take in the brown beside it. Saturated pixels are
    compared with `means_at_ceiling` when given (the models as this picture's clip shows them,
    see `through_ceiling`).
    """
    delta = pixels[:, None, :] - means[None, :, :]
    if saturated is not None and means_at_ceiling is not None and saturated.any():
        delta[saturated] = pixels[saturated][:, None, :] - means_at_ceiling[None, :, :]
    result: NDArray[np.float32] = np.einsum("nki,kij,nkj->nk", delta, inverses, delta)
    loose = np.zeros(result.shape, np.bool_)
    if saturated is not None:
        loose |= saturated[:, None]
    if clipped is not None:
        loose |= clipped[None, :] & (delta[:, :, 0] >= -DIMMER_BY)
    result[loose] /= np.float32(LOOSE_SLACK)
    return result


def through_ceiling(
    means: NDArray[np.float32], ceiling: tuple[float, float, float]
) -> NDArray[np.float32]:
    """The K Lab colours as a picture shows them whose channels (B, G, R, 0..1 levels) cannot
    go beyond `ceiling`: a warm light or a longer exposure clips a white cube's red channel,
    which turns it greenish-yellow, and only a model clipped the same way still matches."""
    bgr = cv2.cvtColor(means[None, :, :].astype(np.float32), cv2.COLOR_Lab2BGR)
    limited = np.minimum(bgr, np.array(ceiling, np.float32)[None, None, :])
    lab = cv2.cvtColor(np.ascontiguousarray(limited, np.float32), cv2.COLOR_BGR2Lab)
    result: NDArray[np.float32] = np.asarray(lab[0], np.float32)
    return result


__all__ = ["LOOSE_SLACK", "distances2", "through_ceiling"]
