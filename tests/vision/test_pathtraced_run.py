"""The path-traced benchmark's tally of the doubts that kept right readings unsure."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

from companion.core.cubes import COLOURS
from companion.vision import reasons as doubt

# (A script of the benchmarks, not of the package: loaded from its file.)
_spec = importlib.util.spec_from_file_location(
    "pathtraced_run", Path(__file__).resolve().parents[2] / "benchmarks" / "pathtraced" / "run.py"
)
assert _spec is not None and _spec.loader is not None
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


def test_every_reason_is_tallied_as_its_template_whatever_the_colours() -> None:
    for template in doubt.ALL:
        for first, second in itertools.pairwise(COLOURS):
            said = template.format(colour=first.value, other=second.value, limit=7)
            assert run._template(said) == template
    assert run._template("not a reason of the camera") == "not a reason of the camera"
