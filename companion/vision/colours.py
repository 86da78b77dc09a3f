"""Telling cube colours apart: per-pixel Mahalanobis distance to each colour model, then a vote.

Single pixels are noisy and a cube's edge mixes with the tray, so each pixel takes the colour
most of its neighbours (within about half a cube) were given.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import FloatImage, Mask

UNKNOWN = 7
"""Label of a changed pixel no cube colour explains (hand, other object)."""
BACKGROUND = -1
# Squared Mahalanobis distance beyond which no colour explains a pixel (about 5 sigma in 3-D).
MAX_DISTANCE2 = 28.0

# How much an unexplained pixel counts in the vote against a colour.
UNKNOWN_WEIGHT = 0.3

Labels = NDArray[np.int8]


def distances2(
    pixels: NDArray[np.float32], means: NDArray[np.float32], inverses: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Squared Mahalanobis distance of N Lab pixels to each of K models: N x K."""
    delta = pixels[:, None, :] - means[None, :, :]
    result: NDArray[np.float32] = np.einsum("nki,kij,nkj->nk", delta, inverses, delta)
    return result


def classify(
    lab: FloatImage,
    mask: Mask,
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
) -> tuple[Labels, NDArray[np.float32]]:
    """Per-pixel labels (BACKGROUND outside mask, a colour index, or UNKNOWN) and the N x 7
    squared distances of the masked pixels in row-major order."""
    labels = np.full(mask.shape, BACKGROUND, np.int8)
    pixels = lab[mask]
    d2 = distances2(pixels, means, inverses)
    best = np.argmin(d2, axis=1).astype(np.int8) if len(pixels) else np.zeros(0, np.int8)
    if len(pixels):
        best[d2[np.arange(len(pixels)), best] > MAX_DISTANCE2] = UNKNOWN
    labels[mask] = best
    return labels, d2


def vote(labels: Labels, mask: Mask, window: int) -> Labels:
    """Each masked pixel takes the label most common within a square window (odd, pixels)."""
    window = max(3, window | 1)
    classes = [int(c) for c in np.unique(labels[mask])]
    if len(classes) <= 1:
        return labels
    best_score = np.full(mask.shape, -1.0, np.float32)
    result = np.full(mask.shape, BACKGROUND, np.int8)
    for label in classes:
        indicator = (labels == label).astype(np.float32)
        if label == UNKNOWN:
            # A cube's rim mixes with the tray and matches no colour; it must not outvote
            # the cube, while a hand (no colour votes at all) stays unknown.
            indicator *= np.float32(UNKNOWN_WEIGHT)
        score = cv2.boxFilter(indicator, -1, (window, window), normalize=False)
        better = score > best_score
        result[better] = label
        best_score[better] = score[better]
    result[~mask] = BACKGROUND
    return result
