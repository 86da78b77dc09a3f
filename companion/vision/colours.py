"""Telling cube colours apart: the Mahalanobis distance of Lab pixels to each colour model."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def distances2(
    pixels: NDArray[np.float32], means: NDArray[np.float32], inverses: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Squared Mahalanobis distance of N Lab pixels to each of K models: N x K."""
    delta = pixels[:, None, :] - means[None, :, :]
    result: NDArray[np.float32] = np.einsum("nki,kij,nkj->nk", delta, inverses, delta)
    return result


__all__ = ["distances2"]
