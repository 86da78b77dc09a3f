"""Draws hardware/wiring.svg from the tables in hardware/wiring.md, so the two never disagree.

Run `python hardware/wiring_svg.py` after editing wiring.md; tests/hardware checks that the
committed SVG is what this script draws. Pure standard library: it runs anywhere.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
WIRING_MD = HERE / "wiring.md"
WIRING_SVG = HERE / "wiring.svg"

# Pins of the Pi's 40-pin header and the Pico's 40 pads that are not GPIOs, by physical number.
PI_POWER_PINS = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"} | {
    n: "GND" for n in (6, 9, 14, 20, 25, 30, 34, 39)
}
PICO_POWER_PINS = {36: "3V3", 39: "VSYS", 40: "VBUS"} | {
    n: "GND" for n in (3, 8, 13, 18, 23, 28, 33, 38)
}

ROW = 30  # pixels per wire
WIDTH = 980


@dataclass(frozen=True)
class Table:
    """One Markdown table: the heading it sits under, its column names and its rows of cells."""

    heading: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def column(self, name: str) -> int:
        """Index of the column called `name`; ValueError naming the table when it is missing."""
        try:
            return self.columns.index(name)
        except ValueError:
            raise ValueError(
                f"table under '{self.heading}' has no column '{name}' (it has {self.columns})"
            ) from None


def _cells(line: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


def _plain(markdown: str) -> str:
    """Cell text without Markdown's code marks, for drawing."""
    return markdown.replace("`", "")


def read_tables(text: str) -> list[Table]:
    """Every pipe table in a Markdown text, with the last `#` heading above it."""
    tables: list[Table] = []
    heading = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        is_table = line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---")
        if is_table:
            columns = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = _cells(lines[i])
                if len(cells) != len(columns):
                    raise ValueError(
                        f"row {lines[i]!r} under '{heading}' has {len(cells)} cells, "
                        f"the header has {len(columns)}"
                    )
                rows.append(cells)
                i += 1
            tables.append(Table(heading, columns, tuple(rows)))
            continue
        i += 1
    return tables


def table_under(tables: list[Table], heading_start: str) -> Table:
    """The table whose heading starts with `heading_start`; ValueError when there is none."""
    for table in tables:
        if table.heading.startswith(heading_start):
            return table
    raise ValueError(f"wiring.md has no table under a heading starting '{heading_start}'")


def _wire_colour(name: str) -> str:
    return {"GND": "#222222", "5V": "#d62728", "VSYS": "#d62728", "VBUS": "#d62728"}.get(
        name, "#ff8c00" if name == "3V3" else "#1f77b4"
    )


def _section(
    out: list[str],
    top: int,
    title: str,
    table: Table,
    number_col: str,
    pin_col: str,
    prefix: str,
    power: dict[int, str],
) -> int:
    """Draws one board's pins (left) wired to its devices (right); returns the next free y."""
    n_col, p_col = table.column(number_col), table.column(pin_col)
    f_col, d_col = table.column("function"), table.column("device")
    out.append(f'<text x="20" y="{top}" class="h">{escape(title)}</text>')
    y0 = top + 16
    height = ROW * len(table.rows) + 10
    out.append(f'<rect x="20" y="{y0}" width="190" height="{height}" rx="8" class="board"/>')
    devices: dict[str, list[int]] = {}
    for k, row in enumerate(table.rows):
        y = y0 + 10 + ROW * k + ROW // 2
        pin = row[p_col]
        number = row[n_col]
        if number != "-":
            name = f"{prefix}{number}"
        elif pin.isdigit():
            name = power.get(int(pin), "?")
        else:
            name = "?"
        label = f"pin {pin} · {name}" if pin != "-" else f"on board · {name}"
        out.append(f'<text x="30" y="{y + 4}" class="pin">{escape(label)}</text>')
        out.append(f'<circle cx="205" cy="{y}" r="4" fill="{_wire_colour(name)}"/>')
        out.append(
            f'<line x1="209" y1="{y}" x2="680" y2="{y}" stroke="{_wire_colour(name)}" '
            'stroke-width="2"/>'
        )
        function = _plain(row[f_col])
        short = function if len(function) <= 62 else function[:59] + "..."
        out.append(f'<text x="225" y="{y - 5}" class="fn">{escape(short)}</text>')
        devices.setdefault(row[d_col], []).append(y)
    for device, ys in devices.items():
        top_y, bottom_y = min(ys) - ROW // 2 + 3, max(ys) + ROW // 2 - 3
        out.append(
            f'<rect x="680" y="{top_y}" width="{WIDTH - 700}" height="{bottom_y - top_y}" '
            'rx="6" class="dev"/>'
        )
        out.append(
            f'<text x="{680 + (WIDTH - 700) // 2}" y="{(top_y + bottom_y) // 2 + 5}" '
            f'class="devname">{escape(device)}</text>'
        )
    return y0 + height + 40


def render_svg(tables: list[Table]) -> str:
    """The wiring diagram for the tables of wiring.md, as SVG text."""
    pi = table_under(tables, "Raspberry Pi 40-pin header")
    pico = table_under(tables, "Chute sensor board")
    other = next((t for t in tables if "connection" in t.columns), None)
    if other is None:
        raise ValueError("wiring.md has no table of other connections (a 'connection' column)")
    body: list[str] = []
    y = _section(
        body,
        40,
        "Raspberry Pi 40-pin header (BCM numbers)",
        pi,
        "BCM",
        "header pin",
        "BCM ",
        PI_POWER_PINS,
    )
    body.append(f'<text x="20" y="{y}" class="h">Other connections to the Pi</text>')
    y += 16
    c_col, f_col, t_col = other.column("connection"), other.column("from"), other.column("to")
    for row in other.rows:
        text = _plain(f"{row[c_col]}: {row[f_col]} → {row[t_col]}")
        body.append(f'<text x="30" y="{y + 4}" class="pin">{escape(text)}</text>')
        y += 22
    y += 30
    y = _section(
        body,
        y,
        "Chute sensor: Raspberry Pi Pico (GP numbers)",
        pico,
        "GP",
        "board pin",
        "GP",
        PICO_POWER_PINS,
    )
    style = (
        "<style>"
        "text{font-family:DejaVu Sans,Arial,sans-serif}"
        ".h{font-size:17px;font-weight:bold}"
        ".pin{font-size:13px}.fn{font-size:11px;fill:#444}"
        ".devname{font-size:14px;text-anchor:middle}"
        ".board{fill:#e8f3e8;stroke:#2e7d32;stroke-width:2}"
        ".dev{fill:#eef3fb;stroke:#1f4e8c;stroke-width:1.5}"
        "</style>"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" '
        f'viewBox="0 0 {WIDTH} {y}">\n'
        f"<title>Tower Companion wiring (drawn from hardware/wiring.md)</title>\n{style}\n"
        f'<rect width="{WIDTH}" height="{y}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )


def main() -> int:
    """Writes hardware/wiring.svg; prints where and exits 0, or explains the table error (1)."""
    try:
        svg = render_svg(read_tables(WIRING_MD.read_text(encoding="utf-8")))
    except ValueError as error:
        print(f"wiring.md: {error}", file=sys.stderr)
        return 1
    WIRING_SVG.write_text(svg, encoding="utf-8")
    print(f"wrote {WIRING_SVG}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
