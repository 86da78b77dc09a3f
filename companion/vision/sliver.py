"""A closer look for a cube lying under another: counted when its strip is wide enough, and
before a reading is given as sure, doubted when any shows.

A cube resting on another of another colour may show only a sliver of its top beside it. The
top-down view has about ten pixels to a cube's side, so a sliver a third of a side wide is
two or three view pixels, each a blend of the two cubes and the floor, and no colour's
evidence finds it. The picture itself often has three times that: there the sliver is a
strip of clear colour several pixels wide. So the picture round a found cube is warped again
at three times the view's scale, and a patch of another cube colour there (or of that colour
in shade, as a side face shows it) that is

- not where another found cube lies, nor the side face of one of its own colour,
- on floor that does not change between shots and away from the print's edges,
- different from the empty tray, and not that tray nor the cube itself in shade (nor the
  set-up's shadow as calibration learned it),
- against the found cube, with pixels well off every blend of that cube and the floor,

is a sliver (`slivers_round`).

A sliver about a tenth of a side wide or more, but black, is counted as a cube, in doubt
(`counted_slivers`), unless it is the side face the cube beside it turns to a leaning
camera, in a colour its paint takes in that face's light (`side_faces`). Every reading looks
for those, round the cubes with something beside them in the view that is no blend of the
cube and the floor (`changed_beside`; about half the cubes). On rendered trays (13 seeds,
4270 pictures) 48 more pictures were read right and 1 fewer; on 4 other seeds (1320) 9 more
and 1 fewer. It costs about a fifth more time per picture.

Before a reading is given as sure, every cube gets the closer look, and any sliver makes the
reading unsure (`hidden_slivers`). On rendered trays (13 seeds, 991 readings that would be
given as sure) this caught 4 of the 8 wrong ones (a yellow sliver under red, brown under
green, white under brown, and a red strip a tenth of a side wide under black) and made 3 of
the 983 right ones unsure; on 4 other seeds it caught 3 of 4 wrong and made none of 294 right
unsure. The wrong ones left showed no sliver of clear colour: a black or brown one, which
looks like the floor in shade, or one a pixel wide.

So that look takes the floor in shade for shadow only where a cube can throw it (see
SHADOW_LENGTH): a brown strip on the side of a green cube the light throws no shadow to is
no shadow, though its colour is the beige floor's in shade. Counting still takes all such
colour for shadow: a strip counted as a cube needs to be clearly none.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour
from companion.vision.arrays import segment_kernel
from companion.vision.closer import SCALE, closer_look
from companion.vision.colours import (
    HARD_PAIRS,
    distances2,
    in_tinted_shade,
    mix_gaps,
    shade_gaps,
)
from companion.vision.images import BGRImage, FloatImage, Mask
from companion.vision.overhead import Overhead
from companion.vision.profile import Prepared
from companion.vision.segment import Comparison, channel_norm
from companion.vision.shadow import darkening
from companion.vision.tray_view import TrayView

# How far round a cube's centre the closer look (`closer.closer_look`) looks (cube sides: a
# sliver lies within a side of the centre of the cube above it).
REACH = 1.4
# A pixel of a cube colour fits its model this well (squared Mahalanobis distance) ...
FIT_D2 = 9.0
# ... and differs from the empty tray by more than this (CIE76: above the view's change
# threshold, 4.5 in most pictures, as a sharper look is noisier).
CHANGED = 8.0
# A pixel that fits no colour may show one in shade: what is seen of a cube beneath another
# is often its side face, or its top in the upper cube's shadow (a red face at L 38 against a
# red model at L 57). It is then darker than the model by SHADED_DARKER (L) or more, keeps
# at least SHADED_LEAST of its L + 16, lies within SHADED_GAP (a and b) of the model in that
# less light (`colours.shade_gaps`), and the next colour in shade lies SHADED_MARGIN further
# off. Black is never taken so (anything dark is black in shade), nor the upper cube's own
# colour (its faces) or a colour it is easily taken for (a brown cube's face passes for red
# in shade). On rendered trays, against no shaded colours: 13 seeds, pictures read right up
# / down 31 / 1 (gap 12: 22 / 2; 20: 32 / 2 and 2 more right readings made unsure); 4 other
# seeds 4 / 1; 6 more 14 / 1. Least share 0.4 or 0.7 each lost 2 to 5 pictures. Taking
# the easily-taken colours too (gap 12, 13 + 4 seeds) gained 2 pictures, lost 2 more, and
# made 3 more right readings unsure.
SHADED_DARKER = 5.0
SHADED_LEAST = 0.55
SHADED_GAP = 16.0
SHADED_MARGIN = 8.0
# Another found cube covers the disc this many cube sides across its centre (a lying cube's
# corners reach 0.71 side from it).
OTHER_RADIUS = 0.72
# The floor in shade keeps its hue (`colours.shade_gaps`): pixels darker than the empty tray
# by this much (L) and within this gap (a and b) of its shaded colour are shadow. The found
# cube's own side faces are its colour in shade, within the narrower gap; a face the lamp
# lights may be a little lighter than the cube's model.
FLOOR_DARKER = 3.0
FLOOR_SHADE_GAP = 20.0
# Only where a found cube's shadow can fall is the floor in shade taken for shadow: the cube
# (the pixels of its colour round its centre, at any lightness) slid along its shadow offset
# up to SHADOW_LENGTH times it (a cube resting on another throws it twice as far), and grown
# by about SHADOW_MARGIN closer-look pixels (a view pixel) for its soft edge. Beyond, a
# patch in the floor's colour in shade is no shadow: on a beige floor a brown sliver under a
# green cube is exactly that colour.
SHADOW_LENGTH = 2.0
SHADOW_MARGIN = 3
OWN_DARKER = -3.0
OWN_SHADE_GAP = 10.0
# The empty tray's print edges (L units per view pixel) shift between shots: left out.
PRINT_EDGE = 3.0
# A pixel at the found cube's edge blends the cube with the floor; a sliver's pixels lie
# this far (CIE76) off every such mix. (Peeling a pixel off all round instead lost the strips
# a third of a side wide or less, which are two or three closer-look pixels across. At 15,
# twice as many right readings were made unsure, and no more wrong ones caught.)
OFF_THE_MIX = 20.0
# A sliver has at least this share of a cube's top (closer-look pixels: a cube's top is about
# 1000, so 0.008 is 8 pixels) off the mix (at 0.012 the red strip under black above was
# lost), ...
SLIVER_SHARE = 0.008
# ... reaches within this many cube sides of the found cube's centre (it lies against that
# cube: its edge is half a side out, its corners 0.71; the print farther out cost 3 right
# readings) ...
AGAINST = 0.8
# ... and not within this many of a found cube of the sliver's own colour: that is the
# cube's own side face, which the camera sees beyond its disc when it looks at it askew
# (2 right readings).
OWN_FACE = 0.9
# A sliver is counted as a cube, not only doubted, when this share of a cube's top lies off
# the mix and this share is left with a pixel peeled off all round: a strip along a side at
# least about a tenth of it wide, or a shorter, wider one. (Rendered trays, 13 seeds, with
# black left out: pictures read right, up / down, 32 / 2 with a peeled share of 0.03, 51 / 5
# with 0.015, 52 / 10 with 0.01; on 4 other seeds 5 / 1, 10 / 1, 11 / 2. Once colours in
# shade were taken too, a share off the mix of 0.045 rather than 0.06 read 6 / 0 more on the
# 13 seeds, 2 / 1 on the 4 and 0 / 0 on 6 more; 0.035 read no more.) Slivers of one colour
# closer than SAME_CUBE sides are one cube's.
COUNT_OFF_MIX = 0.045
COUNT_CORE = 0.015
SAME_CUBE = 0.7
# A black strip is not counted: a cube's deep shadow beside it, under a room light of
# another colour, looks black too. (On rendered trays, 17 seeds, 5 of the 8 black cubes so
# counted were shadows; of the 164 of the other colours, 5.)
NOT_COUNTED = COLOURS.index(Colour.BLACK)
# Only cubes with something changed beside them are looked round for slivers to count: at
# least BESIDE_PIXELS view pixels, not plain shadow, in the ring from OTHER_RADIUS to
# BESIDE_REACH sides round the cube's centre, clear of every cube's disc, whose colour lies
# more than BESIDE_OFF_MIX (CIE76) off every blend of the cube and the empty tray there. (In
# the view a sliver shows as a few such pixels, blurred, even where no colour's evidence
# finds it. On rendered trays (10 seeds, 28440 found cubes) this chose 51% of the cubes.
# Looking round every cube instead read 3 more pictures right and 1 fewer of 4270 on 13
# seeds, 1 more of 1320 on 4 others.)
BESIDE_REACH = 1.1
BESIDE_OFF_MIX = 8.0
BESIDE_PIXELS = 3


def _in_shade_of(
    lab: NDArray[np.float32], lit: NDArray[np.float32], darker: float, gap: float
) -> Mask:
    """Which Lab colours (last axis) of `lab` are darker than the Lab colour(s) `lit` (one
    per colour, or one for all) by `darker` (L), with a and b within `gap` of that colour's
    in less light."""
    shaded: Mask = (lab[..., 0] < lit[..., 0] - darker) & (shade_gaps(lab, lit) < gap)
    return shaded


def or_in_shade(
    best: NDArray[np.int64],
    pixels: NDArray[np.float32],
    off: Mask,
    means: NDArray[np.float32],
    above: int,
) -> NDArray[np.int64]:
    """`best`, the colour each Lab pixel fits (-1: none), with the pixels `off` the mix that
    fit none given the colour they show in shade where one clearly does (see SHADED_GAP);
    `above` is the colour of the cube looked round."""
    free = np.flatnonzero((best < 0) & off)
    if free.size == 0:
        return best
    seen = pixels[free].astype(np.float64)[:, None, :]
    lit = means.astype(np.float64)[None, :, :]
    gaps = shade_gaps(seen, lit)
    share = (seen[..., 0] + 16.0) / (lit[..., 0] + 16.0)
    gaps[(seen[..., 0] > lit[..., 0] - SHADED_DARKER) | (share < SHADED_LEAST)] = np.inf
    gaps[:, _never_in_shade(above)] = np.inf
    nearest = np.sort(gaps, axis=1)
    clear = (nearest[:, 0] <= SHADED_GAP) & (nearest[:, 1] >= nearest[:, 0] + SHADED_MARGIN)
    result = best.copy()
    result[free[clear]] = np.argmin(gaps[clear], axis=1)
    return result


def _never_in_shade(above: int) -> list[int]:
    """The colours (indices) not taken in shade round a cube of colour `above`: black, its own,
    and those it is easily taken for."""
    colour = COLOURS[above]
    alike = [k for k, other in enumerate(COLOURS) if frozenset((colour, other)) in HARD_PAIRS]
    return [NOT_COUNTED, above, *alike]


def _half_look(prepared: Prepared) -> int:
    """Half the side of the square closer look (its pixels), less its middle pixel."""
    return round(REACH * prepared.reference.cube_side * SCALE)


def _closer_look(
    image: BGRImage,
    view: TrayView,
    comparison: Comparison,
    prepared: Prepared,
    centre: tuple[float, float],
) -> tuple[FloatImage, BGRImage, NDArray[np.float64]]:
    """The closer look (`closer.closer_look`) round a view point, REACH cube sides each way."""
    return closer_look(image, view, comparison.tables, centre, _half_look(prepared))


def _view_at(
    array: NDArray[np.float32], to_look: NDArray[np.float64], shape: tuple[int, ...]
) -> NDArray[np.float32]:
    """A view-sized array seen in the closer look."""
    result = cv2.warpAffine(
        array,
        to_look,
        (shape[1], shape[0]),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(result, np.float32)


def _discs(
    centres: list[tuple[float, float]],
    to_look: NDArray[np.float64],
    shape: tuple[int, ...],
    radius: float,
) -> Mask:
    """Discs of `radius` (closer-look pixels) round view points, in the closer look."""
    discs = np.zeros(shape[:2], np.uint8)
    for x, y in centres:
        at = to_look @ np.array([x, y, 1.0])
        cv2.circle(discs, (round(at[0]), round(at[1])), round(radius), 1, -1)
    return discs.astype(np.bool_)


def _shadow_reach(
    own: Mask,
    others: list[tuple[float, float]],
    to_look: NDArray[np.float64],
    side: float,
    offset: tuple[float, float],
) -> Mask:
    """Where cubes may throw their shadows in a closer look (`to_look` maps view pixels there,
    `side` is a cube's side in its pixels): the cube looked round (`own`, its pixels) and the
    discs of the `others` (view pixels), slid along `offset` (view pixels) up to SHADOW_LENGTH
    times it, grown by SHADOW_MARGIN."""
    dx = round(SHADOW_LENGTH * SCALE * offset[0])
    dy = round(SHADOW_LENGTH * SCALE * offset[1])
    pad = max(abs(dx), abs(dy)) + SHADOW_MARGIN
    # (Padded: a cube just beyond the look may throw its shadow into it.)
    height, width = own.shape
    padded = to_look + np.array([[0.0, 0.0, pad], [0.0, 0.0, pad]])
    casters = _discs(others, padded, (height + 2 * pad, width + 2 * pad), OTHER_RADIUS * side)
    casters[pad : pad + height, pad : pad + width] |= own
    kernel, anchor = segment_kernel(-dx, -dy, 2 * SHADOW_MARGIN + 1)
    slid = cv2.dilate(casters.astype(np.uint8), kernel, anchor=anchor)
    reach = slid[pad : pad + height, pad : pad + width]
    return reach.astype(np.bool_)


@dataclass(frozen=True)
class Sliver:
    """A patch of one cube colour against a found cube of another, in a closer look."""

    colour: int
    """Index into COLOURS."""
    x: float
    y: float
    """The patch's centre, view pixels."""
    off_mix: float
    """Its pixels off every blend of the cube above and the floor, in cube tops."""
    core: float
    """What is left of it with a pixel peeled off all round, in cube tops."""
    beside: int
    """The found cube it lies against (its index among the cubes looked round)."""


def _patches(
    candidates: Mask,
    off_mix: Mask,
    against: Mask,
    own_faces: Mask,
    least: float,
    to_view: NDArray[np.float64],
) -> list[tuple[float, float, float, float]]:
    """The slivers among the patches of `candidates` (one colour's pixels in a closer look):
    at least `least` pixels off the mix, reaching `against` the cube, on no own face; each as
    (x, y) in view pixels (`to_view` maps the look's pixels there), and its pixels off the mix
    and its peeled core's."""
    mask = candidates.astype(np.uint8)
    count, labels, _, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    # Per patch (label 0 is the rest of the look). Touching patches are 8-connected, so
    # peeling the colour's whole mask peels each patch on its own.
    off = np.bincount(labels[off_mix], minlength=count)
    near = np.bincount(labels[against], minlength=count)
    faces = np.bincount(labels[own_faces], minlength=count)
    core = np.bincount(labels[cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0], minlength=count)
    chosen = (off >= least) & (near > 0) & (faces == 0)
    chosen[0] = False
    result = []
    for label in np.flatnonzero(chosen):
        x, y = to_view @ np.array([centres[label][0], centres[label][1], 1.0])
        result.append((float(x), float(y), float(off[label]), float(core[label])))
    return result


def slivers_round(
    image: BGRImage,
    view: TrayView,
    comparison: Comparison,
    prepared: Prepared,
    cubes: list[tuple[int, float, float]],
    around: list[int],
    least: float = SLIVER_SHARE,
    shade_where_cast: bool = False,
) -> list[Sliver]:
    """The slivers a closer look at `image` (the picture `comparison` compared through
    `view`) finds round the found cubes numbered `around`, with at least the share `least` of
    a cube's top off the mix; `cubes` are all the found cubes as (colour index, x, y) in view
    pixels."""
    reference = prepared.reference
    side = reference.cube_side * SCALE
    top_area = side * side
    needed = least * top_area
    found: list[Sliver] = []
    # Every closer look has its cube's centre in the middle.
    half = _half_look(prepared)
    rows, columns = np.indices((2 * half + 1, 2 * half + 1))
    against = np.hypot(columns - half, rows - half) <= AGAINST * side
    for index in around:
        colour, x, y = cubes[index]
        lab, bgr, to_look = _closer_look(image, view, comparison, prepared, (x, y))
        shape = lab.shape[:2]
        planes = _view_at(prepared.floor_planes, to_look, shape)
        low, high = planes[:, :, 0:3], planes[:, :, 3:6]
        steady, edges = planes[:, :, 6], planes[:, :, 7]
        held = np.minimum(np.maximum(lab, low), high)
        changed = channel_norm(np.asarray(lab - held, np.float32)) > CHANGED
        looked = changed & (steady > 0.5) & (edges < PRINT_EDGE)
        centres = [(ox, oy) for other, (_, ox, oy) in enumerate(cubes) if other != index]
        others = _discs(centres, to_look, shape, OTHER_RADIUS * side)
        looked &= ~others
        if np.count_nonzero(looked) < needed:
            continue
        # The colour tests only for the pixels still looked at (most of the look is cube,
        # unchanged floor or other cubes).
        pixels = lab[looked]
        under = 0.5 * (low[looked] + high[looked])
        own = _in_shade_of(pixels, prepared.means[colour], OWN_DARKER, OWN_SHADE_GAP)
        shade = _in_shade_of(pixels, under, FLOOR_DARKER, FLOOR_SHADE_GAP)
        if reference.shadow is not None:
            # The set-up's own shadow, as calibration learned it (the room's light tints it).
            lit = planes[:, :, 8:11][looked][:, None, :]
            deficit = darkening(bgr[looked][:, None, :], lit)
            shade |= reference.shadow.test(deficit, lit)[:, 0]
        if shade_where_cast:
            # The cube's own pixels, lit or shaded: any of its colour, at any lightness.
            body = _discs([(x, y)], to_look, shape, OTHER_RADIUS * side)
            body &= shade_gaps(lab, prepared.means[colour]) < OWN_SHADE_GAP
            reach = _shadow_reach(body, centres, to_look, side, prepared.shadow_offset)
            shade &= reach[looked]
        kept = ~(own | shade)
        pixels, under = pixels[kept], under[kept]
        off = mix_gaps(pixels, under, prepared.means[colour]) > OFF_THE_MIX
        # (Too few pixels off the mix for any sliver: no colour test needed.)
        if np.count_nonzero(off) < needed:
            continue
        looked[looked] = kept
        off_mix = np.zeros(shape, np.bool_)
        off_mix[looked] = off
        d2 = distances2(pixels, prepared.means, prepared.inverses, prepared.clipped)
        best = np.full(shape, -1, np.int64)
        best[looked] = or_in_shade(
            np.where(d2.min(axis=1) <= FIT_D2, d2.argmin(axis=1), -1),
            pixels,
            off,
            prepared.means,
            colour,
        )
        # (Only for cubes that got this far: most stop above.)
        to_view = np.linalg.inv(np.vstack([to_look, [0.0, 0.0, 1.0]]))[:2]
        for other_colour in np.unique(best[best >= 0]):
            if other_colour == colour:
                continue
            own_faces = _discs(
                [(ox, oy) for c, ox, oy in cubes if c == other_colour],
                to_look,
                shape,
                OWN_FACE * side,
            )
            patches = _patches(best == other_colour, off_mix, against, own_faces, needed, to_view)
            found += [
                Sliver(int(other_colour), at_x, at_y, off_pixels / top_area, core / top_area, index)
                for at_x, at_y, off_pixels, core in patches
            ]
    return found


def changed_beside(
    foreground: Mask,
    lab: FloatImage,
    empty: FloatImage,
    means: NDArray[np.float32],
    cubes: list[tuple[int, float, float]],
    cube_side: float,
) -> list[int]:
    """The found `cubes` (colour index, x, y in view pixels) with something beside them that
    is neither plain shadow (`foreground` holds the rest of what changed) nor a blend of the
    cube's colour (`means`, Lab) and the `empty` tray's: in the view's `lab`."""
    height, width = foreground.shape
    discs = np.zeros((height, width), np.uint8)
    for _, x, y in cubes:
        cv2.circle(discs, (round(x), round(y)), round(OTHER_RADIUS * cube_side), 1, -1)
    clear = foreground & (discs == 0)
    reach = BESIDE_REACH * cube_side
    chosen = []
    for index, (colour, x, y) in enumerate(cubes):
        left, right = max(0, int(x - reach)), min(width, int(x + reach) + 2)
        top, bottom = max(0, int(y - reach)), min(height, int(y + reach) + 2)
        rows, columns = np.nonzero(clear[top:bottom, left:right])
        rows, columns = rows + top, columns + left
        near = np.hypot(columns - x, rows - y) <= reach
        if np.count_nonzero(near) < BESIDE_PIXELS:
            continue
        rows, columns = rows[near], columns[near]
        gaps = mix_gaps(lab[rows, columns], empty[rows, columns], means[colour])
        if np.count_nonzero(gaps > BESIDE_OFF_MIX) >= BESIDE_PIXELS:
            chosen.append(index)
    return chosen


def counted_slivers(slivers: list[Sliver], cube_side: float) -> list[Sliver]:
    """The slivers wide enough to count as cubes, one per cube (the widest); black ones never."""
    kept: list[Sliver] = []
    for sliver in sorted(slivers, key=lambda s: -s.off_mix):
        if sliver.colour == NOT_COUNTED:
            continue
        if sliver.off_mix < COUNT_OFF_MIX or sliver.core < COUNT_CORE:
            continue
        same = [k for k in kept if k.colour == sliver.colour]
        if any(np.hypot(k.x - sliver.x, k.y - sliver.y) < SAME_CUBE * cube_side for k in same):
            continue
        kept.append(sliver)
    return kept


def side_faces(
    slivers: list[Sliver],
    cubes: list[tuple[int, float, float]],
    means: NDArray[np.float32],
    overhead: Overhead,
    cube_side: float,
) -> list[bool]:
    """Which `slivers` are the side face of the cube they lie against, turned towards the
    camera (`cubes`: the found cubes as colour index, x, y in view pixels; `means`: each
    colour's Lab; `overhead`: where the camera is over the view).

    A strip on such a face (`overhead.Overhead.on_face`) is the face when its colour is one
    the cube's paint takes there (`colours.in_tinted_shade`). On path-traced A, B and C (1600
    passes) this read 14 passes right more and none fewer. On the shared renderer (seeds
    0-1) the geometry alone took 25 counted strips for faces, most of them real cubes lying
    under the one above, and read 6 pictures fewer right; none of the 25 has a colour the
    cube's paint could take, and no reading changes.
    """
    faces = []
    for sliver in slivers:
        colour, x, y = cubes[sliver.beside]
        on = overhead.on_face((x, y), (sliver.x, sliver.y), cube_side)
        faces.append(on and in_tinted_shade(means[sliver.colour], means[colour]))
    return faces


def hidden_slivers(
    image: BGRImage,
    view: TrayView,
    comparison: Comparison,
    prepared: Prepared,
    cubes: list[tuple[int, float, float]],
) -> list[int]:
    """The colours (indices) of which a sliver shows beside any of the found `cubes` (see
    `slivers_round`). Empty when none shows."""
    every = list(range(len(cubes)))
    return sorted(
        {
            s.colour
            for s in slivers_round(
                image, view, comparison, prepared, cubes, every, shade_where_cast=True
            )
        }
    )


__all__ = [
    "Sliver",
    "changed_beside",
    "counted_slivers",
    "hidden_slivers",
    "or_in_shade",
    "side_faces",
    "slivers_round",
]
