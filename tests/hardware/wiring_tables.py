"""Loads hardware/wiring_svg.py (not a package module) to read the tables of hardware/wiring.md."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
WIRING_MD = REPO / "hardware" / "wiring.md"


@cache
def load_wiring_svg() -> ModuleType:
    """The hardware/wiring_svg.py module, imported from its file (once)."""
    spec = importlib.util.spec_from_file_location("wiring_svg", REPO / "hardware" / "wiring_svg.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Its dataclasses look their module up in sys.modules while being created.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
