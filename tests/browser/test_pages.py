"""The pages in a real browser: headless Chromium (Debian's `chromium`), driven by Playwright.

The grading site (`grade --html`) and a report's report.html are opened from disk as a user
would: headers clicked and the order read back, the filter typed into, a student's page
followed and left, and every page watched for console errors, script errors, dialogs and any
request beyond its own file. Submission names include markup that would run if a page
interpreted it. CI installs chromium (.ci/run); without it these tests fail in CI and are
skipped elsewhere."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from pathlib import Path

import pytest

from dicejack import grade, report
from dicejack.grade.outputs.site import write_site
from tests.grade.support import CONFIG, layouts, tables, write
from tests.students import FAITHFUL, run_student

HOSTILE_FILE = "<img src=x onerror=alert(1)>.txt"
HOSTILE_STUDENT = "</script><script>alert(1)</script>"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: Flags that keep a headless Chromium from reaching out on its own (updates, sync, ...).
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-default-apps", "--disable-quic"]


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        message = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


class Watched:
    """A page with everything that should never happen recorded: console errors, uncaught
    script errors, dialogs (alert), and requests outside `allowed` (a file:// prefix)."""

    def __init__(self, browser, allowed: str, *, width: int = 1280, height: int = 900,
                 javascript: bool = True) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           java_script_enabled=javascript)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(
            f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"script error: {e}"))
        self.page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"),
                                          d.dismiss()))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.allowed = allowed

    def open(self, path: Path) -> None:
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")

    def check(self) -> None:
        outside = [u for u in self.requests if not u.startswith(self.allowed)]
        assert not outside, f"requests outside the folder: {outside}"
        assert not self.problems, self.problems

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A graded batch as a site: a student-style program's output (tests/students, written from
    the handout), dicejack-learned tables in several layouts, a copy, a transposed table, an
    unreadable file, a skipped one, and names made of markup."""
    root = tmp_path_factory.mktemp("browser")
    subs = root / "subs"
    subs.mkdir()
    g = CONFIG.game
    student = run_student(FAITHFUL["erin-rows"], g.n_sides, g.low, g.high, g.n_dice, CONFIG.m,
                          CONFIG.games, 11)
    write(subs, "erin_2001_3001_output.txt", student)
    best, prob = tables(seed=3)
    write(subs, "alice_2002_3002_output.txt", layouts(best, prob)["labelled"])
    write(subs, "copycat_2003_3003_output.txt", layouts(best, prob)["grid"])
    write(subs, "bob_2004_3004_output.txt", layouts(*(t.T for t in tables(seed=4)))["grid"])
    write(subs, HOSTILE_FILE, layouts(*tables(seed=5))["csv"])
    write(subs, "tenfold_2005_3005_output.txt", layouts(*tables(m=1000, seed=6))["grid"])
    write(subs, "empty_2006_3006_output.txt", "")
    write(subs, "notes.docx", b"PK\x03\x04")
    book = grade.grade_files(CONFIG, [subs], cache_dir=False)
    grades = [dataclasses.replace(x, student=HOSTILE_STUDENT, student_name=HOSTILE_STUDENT)
              if x.submission.endswith(HOSTILE_FILE) else x for x in book.grades]
    folder = root / "site"
    write_site(book.refs, grades, folder)
    return folder, grades


def column(page, index: int) -> list[str]:
    """The shown cells of column `index` of the submissions table, top to bottom."""
    return page.eval_on_selector_all(
        "#submissions tbody tr:not([hidden])",
        f"rows => rows.map(r => r.cells[{index}].textContent.trim())")


def number(text: str) -> float:
    return float(text) if text else float("nan")


def test_headers_sort_numbers_as_numbers_and_a_second_click_reverses(browser, site):
    folder, grades = site
    w = Watched(browser, folder.as_uri())
    w.open(folder / "index.html")
    page = w.page
    scores = [number(s) for s in column(page, 2)]
    assert len(scores) == sum(x.status != "skipped" for x in grades)
    page.click("#submissions thead th:nth-child(3) button")
    ascending = [number(s) for s in column(page, 2)]
    assert ascending == sorted(scores) and ascending != sorted(scores, key=str)
    assert page.get_attribute("#submissions thead th:nth-child(3)", "aria-sort") == "ascending"
    page.click("#submissions thead th:nth-child(3) button")
    assert [number(s) for s in column(page, 2)] == sorted(scores, reverse=True)
    page.click("#submissions thead th:nth-child(2) button")
    files = column(page, 1)
    assert files == sorted(files, key=str.lower)
    # an empty p-value (the unreadable file) stays last both ways
    for _ in range(2):
        page.click("#submissions thead th:nth-child(10) button")
        p = column(page, 9)
        assert p[-1] == "" and all(p[:-1])
    w.check()
    w.close()


def test_the_filter_keeps_the_rows_holding_every_word(browser, site):
    folder, grades = site
    w = Watched(browser, folder.as_uri())
    w.open(folder / "index.html")
    page = w.page
    total = sum(x.status != "skipped" for x in grades)
    box = page.locator(".filter input")
    assert box.is_visible()
    box.fill("review")
    verdicts = column(page, 3)
    assert verdicts and set(verdicts) == {"review"}
    assert len(verdicts) == sum(x.status == "ok" and x.verdict == "review" for x in grades)
    assert page.text_content(".filter output") == f"{len(verdicts)} of {total} shown"
    box.fill("copied review")
    assert len(column(page, 3)) == sum("copied" in x.flags for x in grades)
    box.fill("<img src=x")
    assert column(page, 1) == [HOSTILE_FILE]
    box.fill("unreadable")
    assert column(page, 3) == ["unreadable"]
    box.fill("")
    assert len(column(page, 3)) == total
    w.check()
    w.close()


def test_a_student_page_is_one_click_away_and_back(browser, site):
    folder, grades = site
    w = Watched(browser, folder.as_uri())
    w.open(folder / "index.html")
    page = w.page
    page.click("#submissions td:nth-child(2) a[href='bob_2004_3004_output.txt.html']")
    page.wait_for_url("**/bob_2004_3004_output.txt.html")
    bob = next(x for x in grades if "bob_2004" in x.submission)
    assert page.text_content("h1") == "Grade: bob_2004_3004_output.txt"
    assert f"File: {bob.submission}" in page.text_content("main")
    assert f"Score {bob.score:.1f} / 100: {bob.verdict}." in page.text_content(".banner")
    assert page.locator("svg rect title").count() == 2 * CONFIG.game.low ** 2
    page.click("text=all submissions")
    page.wait_for_url("**/index.html")
    assert page.locator("#submissions").is_visible()
    page.go_back()
    page.wait_for_url("**/bob_2004_3004_output.txt.html")
    page.go_back()
    page.wait_for_url("**/index.html")
    # a copy's page links to its twin
    page.click("#submissions td:nth-child(2) a[href='copycat_2003_3003_output.txt.html']")
    page.wait_for_url("**/copycat_2003_3003_output.txt.html")
    page.click("li:has-text('Similar to') a")
    page.wait_for_url("**/alice_2002_3002_output.txt.html")
    w.check()
    w.close()


def test_every_page_loads_cleanly_and_names_show_as_the_characters_they_are(browser, site):
    folder, _ = site
    w = Watched(browser, folder.as_uri())
    for path in sorted(folder.glob("*.html")):
        w.open(path)
        assert w.page.locator("img").count() == 0, path.name
        assert w.page.locator("script").count() <= 1, path.name
    w.open(folder / "index.html")
    text = w.page.text_content("#submissions")
    assert HOSTILE_FILE in text and HOSTILE_STUDENT in text
    w.open(next(folder.glob("img_src*.html")))
    assert w.page.text_content("h1").endswith(HOSTILE_FILE)
    assert HOSTILE_STUDENT in w.page.text_content("main")
    assert not w.page.evaluate("typeof window.alert !== 'function'")
    w.check()
    w.close()


def test_without_javascript_the_table_is_all_there(browser, site):
    folder, grades = site
    w = Watched(browser, folder.as_uri(), javascript=False)
    w.open(folder / "index.html")
    rows = w.page.locator("#submissions tbody tr")
    assert rows.count() == sum(x.status != "skipped" for x in grades)
    assert rows.first.is_visible() and not w.page.locator(".filter").is_visible()
    w.check()
    w.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_pages_fit_the_window_and_print(browser, site, width, tmp_path):
    folder, _ = site
    w = Watched(browser, folder.as_uri(), width=width, height=844)
    for path in (folder / "index.html", next(folder.glob("bob_*.html"))):
        w.open(path)
        overflow = w.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path.name} is {overflow}px wider than a {width}px window"
        shot = tmp_path / f"{path.stem}-{width}.png"
        w.page.screenshot(path=shot, full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    w.page.emulate_media(media="print")
    w.open(folder / "index.html")
    assert not w.page.locator(".filter").is_visible()
    assert w.page.pdf()[:5] == b"%PDF-"
    w.check()
    w.close()


def test_report_html_shows_the_report_with_its_figures_inline(browser, tmp_path):
    cfg = report.ReportConfig(game=CONFIG.game, series=report.parse_series((), (), ("100",)),
                              games=(20, 200), seeds=2, first_seed=1)
    out = report.make_report(cfg, tmp_path / "rep", workers=1).path
    markdown = (out / "report.md").read_text()
    w = Watched(browser, (out / "report.html").as_uri())
    w.open(out / "report.html")
    page = w.page
    images = page.eval_on_selector_all("img", "xs => xs.map(x => [x.complete, x.naturalWidth])")
    assert len(images) == markdown.count("![") and all(ok and wide > 0 for ok, wide in images)
    headings = page.eval_on_selector_all("h2, h3", "xs => xs.map(x => x.textContent)")
    assert headings == re.findall(r"^#{2,3} (.*)$", markdown, re.M)
    tables = page.locator("table").count()
    assert tables == len(re.findall(r"^\|---", markdown, re.M))
    w.check()
    w.close()
