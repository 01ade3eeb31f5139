"""The two screenshots in docs/images: the class page of a graded batch (desktop width) and one
student's page (phone width), taken in headless Chromium from a site built as an instructor
would build it.

Usage: python docs/make_screenshots.py  (needs Debian's chromium and the `test` extra)

The class: what the student-style programs of tests/students (written from the handout, not
from dicejack) print at the handout's game with NGAMES = 20,000, one file each in a Canvas-style
download (faithful and buggy programs, one student handing in a classmate's output, one empty
file), graded with `dicejack grade --html`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.students import BUGS, FAITHFUL, run_student  # noqa: E402

NAMES = ["garcia", "okafor", "nguyen", "schmidt", "rossi", "kowalski", "tanaka", "silva",
         "murphy", "haddad", "ivanova", "chen", "dubois", "larsen"]
STUDENTS = [FAITHFUL["alice-labelled"], FAITHFUL["bob-csv"], FAITHFUL["carol-tsv"],
            BUGS["xy-swapped"], FAITHFUL["dave-plain"], FAITHFUL["hank-labelled"],
            BUGS["m-tenfold"], FAITHFUL["alice-numpy"], BUGS["fj-zero"],
            FAITHFUL["bob-combined"], FAITHFUL["carol-pylist"], BUGS["raw-wincount"]]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def main() -> None:
    from playwright.sync_api import sync_playwright

    out = ROOT / "docs" / "images"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "submissions"
        subs.mkdir()
        for i, (student, name) in enumerate(zip(STUDENTS, NAMES, strict=False)):
            text = run_student(student, 6, 15, 17, 2, 100.0, 20_000, 100 + i)
            (subs / f"{name}_{2100 + i}_{7100 + i}_output.txt").write_text(text)
        shutil.copy(subs / f"{NAMES[0]}_2100_7100_output.txt",
                    subs / f"{NAMES[12]}_2112_7112_output.txt")
        (subs / f"{NAMES[13]}_2113_7113_output.txt").write_text("")
        site = Path(tmp) / "site"
        subprocess.run([sys.executable, "-m", "dicejack.cli", "grade", "submissions", "-m",
                        "100", "--games", "20000", "--out", "gradebook.csv", "--html", "site"],
                       check=True, cwd=tmp)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=FLAGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto((site / "index.html").as_uri())
            page.click("#submissions thead th:nth-child(2) button")  # by score, lowest first
            page.screenshot(path=out / "grade-site-index.png", full_page=True)
            phone = browser.new_page(viewport={"width": 390, "height": 844},
                                     device_scale_factor=2)
            phone.goto((site / f"{NAMES[3]}_2103_7103_output.txt.html").as_uri())
            phone.screenshot(path=out / "grade-site-student-phone.png")
            browser.close()
    print(f"wrote {out}/grade-site-index.png and grade-site-student-phone.png")


if __name__ == "__main__":
    main()
