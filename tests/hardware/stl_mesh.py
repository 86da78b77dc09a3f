"""Reads ASCII STL files (what OpenSCAD writes) and measures them, for the part tests."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

Vertex = tuple[float, float, float]
Triangle = tuple[Vertex, Vertex, Vertex]


class StlError(ValueError):
    """A file that is not a well-formed ASCII STL; the message names the line."""


@dataclass(frozen=True)
class Mesh:
    """Triangles of one STL solid, in millimetres."""

    triangles: tuple[Triangle, ...]

    def size(self) -> Vertex:
        """Extent of the bounding box along x, y and z (mm)."""
        xs, ys, zs = zip(*(v for t in self.triangles for v in t), strict=True)
        return (max(xs) - min(xs), max(ys) - min(ys), max(zs) - min(zs))

    def volume(self) -> float:
        """Enclosed volume in mm^3 (divergence theorem); negative when the facets face inwards."""
        total = 0.0
        for a, b, c in self.triangles:
            total += (
                a[0] * (b[1] * c[2] - b[2] * c[1])
                - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0])
            )
        return total / 6.0

    def open_edges(self) -> list[tuple[Vertex, Vertex]]:
        """Directed edges without exactly one partner running the other way.

        A closed, consistently oriented surface (a printable solid) has none: each edge of each
        triangle meets exactly one edge of a neighbour, traversed in the opposite direction.
        """
        directed: Counter[tuple[Vertex, Vertex]] = Counter()
        for a, b, c in self.triangles:
            for edge in ((a, b), (b, c), (c, a)):
                directed[edge] += 1
        return [
            edge
            for edge, count in directed.items()
            if count != 1 or directed.get((edge[1], edge[0]), 0) != 1
        ]


def _vertex(line: str, number: int) -> Vertex:
    parts = line.split()
    if len(parts) != 4 or parts[0] != "vertex":
        raise StlError(f"line {number}: expected 'vertex x y z', got {line.strip()!r}")
    try:
        # Rounded so that the same corner written twice is recognised as one vertex.
        x, y, z = (round(float(p), 4) for p in parts[1:])
    except ValueError as error:
        raise StlError(f"line {number}: bad number in {line.strip()!r}") from error
    return (x, y, z)


def read_ascii_stl(path: Path) -> Mesh:
    """The mesh in an ASCII STL file; StlError when the file is empty, binary or malformed."""
    text = path.read_text(encoding="ascii", errors="strict")
    lines = text.splitlines()
    if not lines or not lines[0].startswith("solid"):
        raise StlError(f"{path}: not an ASCII STL (first line {lines[:1]!r})")
    triangles: list[Triangle] = []
    corners: list[Vertex] = []
    for number, line in enumerate(lines, start=1):
        word = line.split()[0] if line.split() else ""
        if word == "vertex":
            corners.append(_vertex(line, number))
        elif word == "endloop":
            if len(corners) != 3:
                raise StlError(f"line {number}: a facet with {len(corners)} corners")
            triangles.append((corners[0], corners[1], corners[2]))
            corners = []
    if not triangles:
        raise StlError(f"{path}: no facets")
    return Mesh(tuple(triangles))
