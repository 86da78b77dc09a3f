"""The core stays pure: no I/O, hardware, GUI or database imports (DESIGN.md section 2)."""

from __future__ import annotations

import ast
from pathlib import Path

import companion.core

FORBIDDEN = {
    "numpy",
    "cv2",
    "kivy",
    "serial",
    "gpiozero",
    "sqlite3",
    "picamera2",
    "os",
    "pathlib",
    "io",
}
CORE = Path(companion.core.__file__).parent


def test_core_imports_nothing_impure() -> None:
    for path in sorted(CORE.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                assert node.level == 0, f"{path.name}: use absolute imports"
            for name in names:
                top = name.split(".")[0]
                assert top not in FORBIDDEN, f"{path.name} imports {name}"
                if top == "companion":
                    assert name.startswith("companion.core"), f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, (
                    f"{path.name} calls {node.func.id}"
                )
