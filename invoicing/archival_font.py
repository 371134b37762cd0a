"""The font of an archival PDF (PDF/A-3, which embeds its fonts): Noto Sans (SIL Open Font License, from
the fontpkg-noto-sans package), cut to the letters an invoice writes and to static regular and bold files
fpdf2 can embed. Cutting the variable font takes a second, so each process cuts it once, into a folder of
its own that no other user can write to, and every render after reads those files."""

import atexit
import io
import logging
import shutil
import tempfile
import threading
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


def files() -> dict[str, Path]:
    """fpdf2's style ("" or "B") → the static font file of that weight."""
    return {style: _file(style) for style in WEIGHTS}


@cache
def _file(style: str) -> Path:
    target = _folder() / f"NotoSans-{WEIGHTS[style]}.ttf"
    partial = target.with_suffix(f".{threading.get_ident()}")
    partial.write_bytes(_cut(WEIGHTS[style]))
    partial.replace(target)  # whole: a thread cutting it at the same time never reads half a file
    return target


@cache
def _folder() -> Path:
    folder = tempfile.mkdtemp(prefix="archival-font-")  # readable and writable by this user alone
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


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
