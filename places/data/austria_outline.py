"""Writes austria.geojson, Austria's outline, from Natural Earth's countries as the npm package world-atlas
ships them (TopoJSON). Run once by hand, stdlib only; places/data/README.md gives the commands."""

import json
import sys

AUSTRIA = "040"  # ISO 3166-1 numeric
TOLERANCE = 0.0005  # degrees (about 40-55 m here): Douglas-Peucker, far below the 500 m sampling step


def main(path: str) -> None:
    with open(path, encoding="utf-8") as source:
        topology = json.load(source)
    scale, translate = topology["transform"]["scale"], topology["transform"]["translate"]
    arcs = [_decode(arc, scale, translate) for arc in topology["arcs"]]
    (country,) = [g for g in topology["objects"]["countries"]["geometries"] if g.get("id") == AUSTRIA]
    polygons = country["arcs"] if country["type"] == "MultiPolygon" else [country["arcs"]]
    shapes = [[_simplify(_ring(ring, arcs)) for ring in polygon] for polygon in polygons]
    feature = {
        "type": "Feature",
        "properties": {
            "name": "Austria",
            "iso_n3": AUSTRIA,
            "source": "Made with Natural Earth (public domain), via world-atlas 2.0.2 countries-10m.json, "
            f"simplified to {TOLERANCE} degrees by places/data/austria_outline.py",
        },
        "geometry": {"type": "MultiPolygon", "coordinates": shapes},
    }
    json.dump(feature, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


def _decode(arc, scale, translate):
    x = y = 0
    points = []
    for dx, dy in arc:
        x, y = x + dx, y + dy
        points.append((round(x * scale[0] + translate[0], 5), round(y * scale[1] + translate[1], 5)))
    return points


def _ring(indexes, arcs):
    points = []
    for index in indexes:
        arc = arcs[index] if index >= 0 else arcs[~index][::-1]
        points.extend(arc if not points else arc[1:])
    return points


def _simplify(points):
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        (x1, y1), (x2, y2) = points[first], points[last]
        farthest, distance = None, TOLERANCE
        for i in range(first + 1, last):
            x, y = points[i]
            dx, dy = x2 - x1, y2 - y1
            length = (dx * dx + dy * dy) ** 0.5
            if length:
                d = abs(dy * x - dx * y + x2 * y1 - y2 * x1) / length
            else:
                d = ((x - x1) ** 2 + (y - y1) ** 2) ** 0.5
            if d > distance:
                farthest, distance = i, d
        if farthest is not None:
            keep[farthest] = True
            stack += [(first, farthest), (farthest, last)]
    return [list(point) for point, kept in zip(points, keep, strict=True) if kept]


if __name__ == "__main__":
    main(sys.argv[1])
