"""Which papers count: of each kind a chauffeur or a car holds, the paper valid longest (a renewal is a new
paper; the old one stays as the record). A kind never recorded is missing. Scans are PDFs or photos.
"""

from datetime import date

from fleet.models import Driver, DriverPaperKind, Paper, Vehicle, VehiclePaperKind

MAX_SCAN_BYTES = 10 * 2**20
SCAN_TYPES = {b"%PDF-": "application/pdf", b"\xff\xd8\xff": "image/jpeg", b"\x89PNG\r\n\x1a\n": "image/png"}


def scan_type(content: bytes) -> str | None:
    """The media type of an uploaded scan (PDF, JPEG or PNG) by its first bytes, or None for anything else."""
    return next((kind for magic, kind in SCAN_TYPES.items() if content.startswith(magic)), None)


def counting(papers) -> dict[str, Paper]:
    """The paper that counts of each kind: the one valid longest (one without an end date, first)."""
    latest: dict[str, Paper] = {}
    for paper in papers:
        held = latest.get(paper.kind)
        if held is None or _until(paper) > _until(held):
            latest[paper.kind] = paper
    return latest


def lapsed(holder: Driver | Vehicle, day: date) -> list[tuple[Paper, date]]:
    """The holder's papers that count and are no longer valid on `day`, each with its last valid day, the
    earliest first."""
    ended = [
        (paper, paper.expires_on)
        for paper in counting(holder.papers.all()).values()
        if paper.expires_on is not None and paper.expires_on < day
    ]
    return sorted(ended, key=lambda each: each[1])


def missing(holder: Driver | Vehicle) -> list[str]:
    """The kinds of paper a chauffeur or a car should hold and has none of, as staff read them."""
    kinds = DriverPaperKind if isinstance(holder, Driver) else VehiclePaperKind
    held = {paper.kind for paper in holder.papers.all()}
    return [str(kind.label) for kind in kinds if kind.value not in held]


def _until(paper: Paper) -> date:
    return paper.expires_on or date.max
