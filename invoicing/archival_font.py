"""The font of an archival PDF (PDF/A-3, which embeds its fonts): Noto Sans (SIL Open Font License, from
the fontpkg-noto-sans package), cut to the letters an invoice writes and to static regular and bold files
fpdf2 can embed. Cutting the variable font takes a second, so each machine cuts it once into its temporary
folder and every render after reads the files."""

import io
import logging
import os
import tempfile
from functools import cache
from pathlib import Path

import fontpkg  # type: ignore[import-untyped]
from fontTools import subset  # type: ignore[import-untyped]
from fontTools.ttLib import TTFont  # type: ignore[import-untyped]
from fontTools.varLib import instancer  # type: ignore[import-untyped]

FAMILY = "Noto Sans"
WEIGHTS = {"": 400, "B": 700}  # fpdf2's style → the font's weight
# Latin-1, Latin Extended-A and -B (every European Latin letter), and the typographic marks texts use.
MARKS = (0x20AC, 0x2013, 0x2014, 0x2018, 0x2019, 0x201A, 0x201C, 0x201D, 0x201E, 0x2022, 0x2026, 0x2212)
COVERED = frozenset([*range(0x20, 0x7F), *range(0xA0, 0x250), *MARKS])
VERSION = "1"  # a new cut gets a new folder


def files() -> dict[str, Path]:
    """fpdf2's style ("" or "B") → the static font file of that weight."""
    return {style: _file(style) for style in WEIGHTS}


@cache
def _file(style: str) -> Path:
    folder = Path(tempfile.gettempdir()) / f"archival-font-{VERSION}"
    target = folder / f"NotoSans-{WEIGHTS[style]}.ttf"
    if not target.exists():
        folder.mkdir(exist_ok=True)
        cut = _cut(WEIGHTS[style])
        partial = folder / f".{target.name}.{os.getpid()}"
        partial.write_bytes(cut)
        partial.replace(target)  # whole or not at all: a worker cutting at the same time writes the same
    return target


def _cut(weight: int) -> bytes:
    logging.getLogger("fontTools").setLevel(logging.WARNING)  # it reports every table it cuts
    font = TTFont(fontpkg.path(FAMILY))
    subsetter = subset.Subsetter(subset.Options(layout_features=["kern", "liga"], name_IDs=["*"]))
    subsetter.populate(unicodes=sorted(COVERED))
    subsetter.subset(font)
    static = instancer.instantiateVariableFont(font, {"wght": weight, "wdth": 100})
    buffer = io.BytesIO()
    static.save(buffer)
    return buffer.getvalue()
