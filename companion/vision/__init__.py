"""Reading the tray from pictures: calibrate a camera set-up, count cubes, settle a stream.

Imports only `companion.core` types, numpy and OpenCV. The public API:

- `calibrate(empty, per_colour) -> Profile`
- `read_tray(image, profile, *, annotate=False) -> TrayReading`
- `Settler`: turns a stream of frames into status changes and one reading per settled drop.
"""

from companion.vision.calibrate import calibrate
from companion.vision.count import read_tray
from companion.vision.debug import DebugSink, FolderSink
from companion.vision.errors import CalibrationError, ImageError, ProfileError, VisionError
from companion.vision.images import BGRImage, decode_image, load_image
from companion.vision.profile import ColourModel, Profile
from companion.vision.reading import CubeSighting, TrayReading
from companion.vision.settle import SettledReading, Settler, Status, StatusChange

__all__ = [
    "BGRImage",
    "CalibrationError",
    "ColourModel",
    "CubeSighting",
    "DebugSink",
    "FolderSink",
    "ImageError",
    "Profile",
    "ProfileError",
    "SettledReading",
    "Settler",
    "Status",
    "StatusChange",
    "TrayReading",
    "VisionError",
    "calibrate",
    "decode_image",
    "load_image",
    "read_tray",
]
