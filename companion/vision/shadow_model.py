"""The set-up's shadow, learned from what changed in the colour pictures that is not cube.

Each calibration picture holds cubes of one known colour, so a changed pixel that colour's
model does not explain is the shadow its cubes cast, or an edge. From those pixels over the
seven pictures comes the way the floor darkens in shade (a `shadow.ShadowLine`), the offset
from a cube to its shadow (one main light throws every shadow the same way), and how much
floor one lying cube darkens (`shadow_model`, the profile's `ShadowModel`).
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import Colour
from companion.vision.colours import distances2
from companion.vision.images import Mask
from companion.vision.likelihood import cast_shadows
from companion.vision.profile import ColourModel, ShadowModel
from companion.vision.segment import Comparison, Reference
from companion.vision.shadow import ShadowLine
from companion.vision.shadow import learn as learn_shadow

# Pixels of shade and of cube a picture needs to tell where its cubes' shadows fall.
MIN_SHADE = 20
# A changed pixel of a colour picture this far (squared Mahalanobis) from the picture's own
# colour is not cube: it is the shadow the cubes cast, or an edge.
NOT_THE_CUBE_D2 = 25.0


def shadow_model(
    models: Mapping[Colour, ColourModel],
    comparisons: Mapping[Colour, Comparison],
    reference: Reference,
) -> ShadowModel | None:
    """The set-up's shadow, from what changed in each colour picture that is not that colour.

    Each picture holds cubes of one known colour, so a changed pixel its model does not
    explain is the shadow those cubes cast (or an edge, which the consensus leaves out).
    """
    inside, floor = reference.inside, reference.linear
    assert floor is not None
    candidates: dict[Colour, Mask] = {}
    for colour, comparison in comparisons.items():
        model = models[colour]
        changed = comparison.changed & inside
        pixels = comparison.lab[changed]
        inverse = np.linalg.inv(np.array(model.covariance)).astype(np.float32)
        d2 = distances2(pixels, np.array([model.mean], np.float32), inverse[None])[:, 0]
        candidate = np.zeros_like(changed)
        candidate[changed] = d2 > NOT_THE_CUBE_D2
        candidates[colour] = candidate
    line = learn_shadow([comparisons[c].deficit[m] for c, m in candidates.items()])
    if line is None:
        return None
    offset = _shadow_offset(line, comparisons, candidates, reference)
    if any(offset):
        # Knowing where the shadows fall, learn the line again from there alone: the first
        # consensus also heard the cubes' dark sides and edges, and under a bluish room
        # light those darken the floor in another direction than the shadows do.
        cast = {c: _cast_zone(comparisons[c], m, inside, offset) for c, m in candidates.items()}
        refined = learn_shadow([comparisons[c].deficit[m] for c, m in cast.items()])
        if refined is not None:
            line = refined
            offset = _shadow_offset(line, comparisons, candidates, reference)
    # How much floor one lying cube darkens: a cube resting on another casts a longer shadow.
    shaded = sum(
        int((line.test(comparisons[c].deficit, floor) & m).sum()) for c, m in candidates.items()
    )
    cubes = sum(models[c].cubes_seen for c in candidates)
    return ShadowModel(
        direction=line.direction,
        deepest=line.deepest,
        spread=line.spread,
        area=shaded / max(cubes, 1),
        offset=offset,
    )


def _cast_zone(
    comparison: Comparison, candidate: Mask, inside: Mask, offset: tuple[float, float]
) -> Mask:
    """The candidate shadow pixels where the picture's cubes throw their shadows, a pixel
    clear of the cubes themselves."""
    cube = (comparison.changed & inside & ~candidate).astype(np.uint8)
    near = cv2.dilate(cube, np.ones((5, 5), np.uint8)).astype(np.bool_)
    zone: Mask = cast_shadows(cube.astype(np.bool_), offset) & candidate & ~near
    return zone


def _shadow_offset(
    line: ShadowLine,
    comparisons: Mapping[Colour, Comparison],
    candidates: Mapping[Colour, Mask],
    reference: Reference,
) -> tuple[float, float]:
    """Where a cube's shadow lies from the cube (view pixels, x and y): the shift that best
    lays the pictures' cubes onto their shadows (cross-correlation of the two masks, summed
    over the seven pictures: one main light throws every shadow the same way)."""
    assert reference.linear is not None
    total: NDArray[np.float64] | None = None
    for colour, comparison in comparisons.items():
        shade = line.test(comparison.deficit, reference.linear) & candidates[colour]
        cube = comparison.changed & reference.inside & ~candidates[colour]
        if shade.sum() < MIN_SHADE or cube.sum() < MIN_SHADE:
            continue
        spectrum = np.fft.rfft2(shade) * np.conj(np.fft.rfft2(cube))
        correlation = np.fft.irfft2(spectrum, s=shade.shape)
        total = correlation if total is None else total + correlation
    if total is None:
        return (0.0, 0.0)
    # Shifts wrap around: index k stands for k or k - size; look within a few cubes only.
    height, width = total.shape
    dy = np.fft.fftfreq(height, 1.0 / height)
    dx = np.fft.fftfreq(width, 1.0 / width)
    reach = max(4.0, 0.25 * min(height, width))
    near = (np.abs(dy)[:, None] <= reach) & (np.abs(dx)[None, :] <= reach)
    best = int(np.argmax(np.where(near, total, -np.inf)))
    row, col = divmod(best, width)
    return (float(dx[col]), float(dy[row]))


__all__ = ["MIN_SHADE", "NOT_THE_CUBE_D2", "shadow_model"]
