"""`python -m companion.ui.screenshot_all OUT --lang en --size 800x480`: every screen of the
demo game, drawn offscreen without tapping each event in (seconds instead of minutes)."""

from __future__ import annotations

from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Write the screenshots; returns 0 when the demo game was recorded whole."""
    import argparse
    import sys
    import tempfile

    parser = argparse.ArgumentParser(description="Screenshots of every screen of the demo game.")
    parser.add_argument("out", type=Path)
    parser.add_argument("--lang", choices=("en", "de"), default="en")
    parser.add_argument("--size", default="800x480")
    args = parser.parse_args(argv)
    from companion.ui import i18n, kivy_env

    size = kivy_env.parse_size(args.size)
    kivy_env.prepare(size)
    i18n.set_language(args.lang)
    from companion.ui.demo import play_demo

    with tempfile.TemporaryDirectory(prefix="companion-shots-") as data:
        return play_demo(data=Path(data), seed=0, screenshots=args.out, size=size,
                         language=args.lang, out=sys.stdout, through_widgets=False)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
