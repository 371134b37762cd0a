"""The docs' screenshots of the back office, taken in Debian's Chromium through Playwright from the
demo working day (`manage.py demo_data`) on a throwaway database:

    .venv/bin/python docs/screenshots.py      # writes docs/dispatch-board.png and docs/staff-booking-page.png
"""

import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.back_office import back_office, browser_missing, chromium, sign_in

DOCS = Path(__file__).resolve().parent


def main() -> None:
    if missing := browser_missing():
        sys.exit(f"No screenshots: {missing}.")
    with tempfile.TemporaryDirectory() as folder, back_office(Path(folder)) as served, chromium() as page:
        sign_in(page, served.base)
        page.goto(f"{served.base}/admin/booking/booking/dispatch/?range=next7")
        page.screenshot(path=DOCS / "dispatch-board.png", full_page=True)
        waiting = page.locator("tr.unassigned a.ride.needs-driver").first
        reference = re.search(r"CB-[A-Z0-9]{6}", waiting.inner_text())[0]
        waiting.click()
        page.wait_for_selector("#assign-form")
        page.fill("#id_text", "Family with a child seat and a pram: fold the third row.")
        page.click("#add-note")
        page.wait_for_selector(".messagelist")
        page.screenshot(path=DOCS / "staff-booking-page.png", full_page=True)
        print(f"docs/dispatch-board.png, docs/staff-booking-page.png ({reference})")


if __name__ == "__main__":
    main()
