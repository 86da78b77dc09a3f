"""Decoding pictures from files or bytes into BGR arrays, with clear errors for bad input."""

from __future__ import annotations

from pathlib import Path
from typing import TypeAlias

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.errors import ImageError

BGRImage: TypeAlias = NDArray[np.uint8]
"""An 8-bit colour picture, height x width x 3, channels in OpenCV's blue-green-red order."""

Mask: TypeAlias = NDArray[np.bool_]
FloatImage: TypeAlias = NDArray[np.float32]

# OpenCV decodes a truncated JPEG silently with grey fill; these markers tell us the file ended.
_JPEG_END = b"\xff\xd9"
_PNG_END = b"IEND"


def decode_image(data: bytes, name: str = "picture") -> BGRImage:
    """Decode PNG/JPEG/any OpenCV format bytes into a BGR picture; ImageError if not a picture.

    Truncated PNG and JPEG files are refused rather than returned half grey.
    """
    if not data:
        raise ImageError(f"{name} is empty (0 bytes); take the picture again")
    if data[:2] == b"\xff\xd8" and _JPEG_END not in data[-64:]:
        raise ImageError(f"{name} is a truncated JPEG (the file ends early); copy it again")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and _PNG_END not in data[-16:]:
        raise ImageError(f"{name} is a truncated PNG (the file ends early); copy it again")
    buffer = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError(f"{name} is not a picture OpenCV can read (use PNG or JPEG)")
    return as_bgr(image, name)


def load_image(path: str | Path) -> BGRImage:
    """Read a picture file into BGR; ImageError (never OSError) when it cannot be used."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"{file} does not exist") from None
    except IsADirectoryError:
        raise ImageError(f"{file} is a folder, not a picture") from None
    except OSError as error:
        raise ImageError(f"{file} cannot be read: {error.strerror or error}") from None
    return decode_image(data, str(file))


def as_bgr(image: NDArray[np.generic], name: str = "picture") -> BGRImage:
    """The same picture as 8-bit BGR: grey is expanded, an alpha channel dropped."""
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] not in (3, 4) or min(image.shape[:2]) < 16:
        raise ImageError(f"{name} is not a colour picture of a usable size (shape {image.shape})")
    if image.shape[2] == 4:
        image = image[:, :, :3]
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image // 257).astype(np.uint8)
        else:
            raise ImageError(f"{name} has pixel type {image.dtype}; 8-bit pictures are expected")
    return np.ascontiguousarray(image, dtype=np.uint8)
