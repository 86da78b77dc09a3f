"""Errors the vision package raises for bad input; each message says what to do about it."""

from __future__ import annotations


class VisionError(ValueError):
    """Bad input to the vision package (a picture, a profile or a calibration set)."""


class ImageError(VisionError):
    """A picture that cannot be decoded, is empty, truncated or of the wrong size."""


class CalibrationError(VisionError):
    """A calibration set that cannot produce a trustworthy profile."""


class ProfileError(VisionError):
    """A profile file that is missing, unreadable, of another version or inconsistent."""
