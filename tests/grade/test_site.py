"""Tests of dicejack.grade.outputs.site: the grading site's pages, its folder, and names that
stay text. The pages in a real browser: tests/browser/test_pages.py."""

from __future__ import annotations

import dataclasses
import html
import re
import zipfile
from html.parser import HTMLParser

import pytest

from dicejack import grade
from dicejack.cli import main
from dicejack.figures.svg import MAP_WIDTH
from dicejack.grade.outputs.explanations import plain_summary, quality_rows
from dicejack.grade.outputs.site import (
    SITE_MARKER,
    VERDICT_SEVERITY,
    copy_groups,
    index_html,
    page_names,
    submission_html,
    write_site,
)

from .support import CONFIG, GAME, GAMES, M, layouts, tables, write

HOSTILE_FILE = "<img src=x onerror=alert(1)>.txt"
HOSTILE_NAME = "</script><script>alert(1)</script>"


class Elements(HTMLParser):
    """The tags of a page, its text, and the href of every link."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "a":
            self.links.append(dict(attrs)["href"])
        assert not any(k.startswith("on") for k, _ in attrs), (tag, attrs)

    def handle_data(self, data):
        self.text.append(data)


def elements(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    return parser


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """A graded batch written as a site: good, copied, transposed, unreadable, skipped and
    hostile-named submissions."""
    root = tmp_path_factory.mktemp("site")
    subs = root / "subs"
    subs.mkdir()
    best, prob = tables(seed=3)
    text = layouts(best, prob)["grid"]
    other_best, other_prob = tables(seed=4)
    paths = [write(subs, "alice.txt", text), write(subs, "alice-copy.txt", text),
             write(subs, "bob.txt", layouts(other_best.T, other_prob.T)["grid"]),
             write(subs, HOSTILE_FILE, layouts(*tables(seed=5))["csv"]),
             write(subs, "index", layouts(*tables(seed=6))["list"]),
             write(subs, "empty.txt", ""), write(subs, "notes.docx", b"PK\x03\x04")]
    site = root / "site"
    book = grade.grade_files(CONFIG, [subs], site=site, cache_dir=False)
    return book, site, paths


def test_the_site_has_an_index_and_a_page_per_graded_file(batch):
    book, site, _ = batch
    files = sorted(p.name for p in site.iterdir())
    assert files == sorted([SITE_MARKER, "index.html", "alice.txt.html",
                            "alice-copy.txt.html", "bob.txt.html", "empty.txt.html",
                            "img_src_x_onerror_alert_1_.txt.html", "index-page.html"])
    index = (site / "index.html").read_text()
    parsed = elements(index)
    pages = {p for p in files if p.endswith(".html") and p != "index.html"}
    assert pages <= set(parsed.links)  # every row links to its page
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+\.html(#[a-z-]+)?", h) for h in parsed.links)
    text = " ".join(parsed.text)
    assert "notes.docx" in text and "Skipped files" in text  # skipped, with its reason
    flags = {f for g in book.grades if g.status == "ok" for f in g.flags}
    assert "could not be graded" in text
    assert parsed.tags.count("tr") == (1 + 6) + (1 + len(flags)) + 2
    assert 'class="sortable fit choosable" data-cards' in index and (
        'data-table="submissions"' in index)


def test_the_index_counts_verdicts_and_flags_and_groups_copies(batch):
    book, site, _ = batch
    index = (site / "index.html").read_text()
    for verdict in ("pass", "review", "fail"):
        n = sum(g.verdict == verdict for g in book.grades if g.status != "skipped")
        assert f'<b>{n}</b>{verdict}</div>' in index
    assert '<b>1</b>not graded (counted in fail)</div>' in index
    assert '<b>1</b>skipped</div>' in index
    groups = copy_groups(book.grades)
    names = [{book.grades[i].submission.rsplit("/", 1)[-1] for i in g} for g in groups]
    assert names == [{"alice.txt", "alice-copy.txt"}]
    copies = index.split("<h2>Copy groups</h2>")[1].split("<h2>")[0]
    assert 'href="alice.txt.html"' in copies and 'href="alice-copy.txt.html"' in copies
    flags = index.split("<h2>Flags</h2>")[1].split("<h2")[0]
    assert "<td>copied</td><td class=\"num\" data-v=\"2.0\">2</td>" in flags
    assert "transposed" in flags
    # every row's score is in the table, sortable by its exact value
    for g in book.grades:
        if g.status != "skipped":
            assert f'data-v="{float(g.score)!r}"' in index


def test_a_student_page_says_what_the_report_says(batch, refs):
    book, site, _ = batch
    g = next(g for g in book.grades if g.submission.endswith("bob.txt"))
    page = (site / "bob.txt.html").read_text()
    assert f"Score {g.score:.1f} / 100: {g.verdict}." in page
    assert plain_summary(g).split(".")[0].replace("'", "&#x27;") in page
    for flag in g.flags:
        assert f"<code>{flag}</code>" in page
    for name, yours, *_ in quality_rows(refs, g):
        assert name in page and (f"{yours:.4f}" in page)
    for w in g.worst:
        assert f"&lt;{w.x},{w.y}&gt;" in page
    assert page.count("<svg") == 1 and page.count("<rect") > 2 * GAME.low ** 2
    assert '<a href="index.html">' in page and "<script>" not in page
    copy = (site / "alice.txt.html").read_text()
    assert 'Similar to: <a href="alice-copy.txt.html">' in copy
    broken = (site / "empty.txt.html").read_text()
    assert "Could not be graded" in broken and "<svg" not in broken


def test_hostile_names_stay_text(batch):
    book, site, _ = batch
    for page in site.glob("*.html"):
        text = page.read_text()
        parsed = elements(text)
        assert "img" not in parsed.tags and parsed.tags.count("script") <= 1, page.name
        assert "<img src=x" not in text
    index = (site / "index.html").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt;.txt" in index
    g = next(g for g in book.grades if g.submission.endswith(HOSTILE_FILE))
    named = dataclasses.replace(g, submission=HOSTILE_NAME, student=HOSTILE_NAME,
                                student_name='" onclick="alert(1)', similar_to=(HOSTILE_NAME,),
                                flags=(*g.flags, "copied"))
    for text in (index_html(book.refs, [named, g]),
                 submission_html(book.refs, named, {HOSTILE_NAME: "x.html"})):
        parsed = elements(text)
        assert "</script><script>" not in text and 'onclick="' not in text
        assert HOSTILE_NAME in "".join(parsed.text)  # shown as the characters it is


def test_page_names_never_take_the_index_and_stay_distinct():
    grades = [grade.Grade(s, "ok") for s in ("index", "INDEX", "a/index", "b.txt", "b.txt")]
    names = page_names([*grades, grade.Grade("skip.docx", "skipped")])
    assert names[-1] is None
    assert "index.html" not in [n.lower() for n in names[:-1]]
    assert len({n.lower() for n in names[:-1]}) == 5


def test_copy_groups_join_chains_of_similar_submissions():
    grades = [grade.Grade("a", "ok", similar_to=("b",)), grade.Grade("b", "ok", similar_to=("a",
              "c")), grade.Grade("c", "ok", similar_to=("b",)), grade.Grade("d", "ok"),
              grade.Grade("e", "ok", similar_to=("f",)), grade.Grade("f", "ok", similar_to=("e",))]
    assert copy_groups(grades) == [[0, 1, 2], [4, 5]]


def test_a_class_of_300_fits_in_one_page_under_2_mb(batch):
    book, _, _ = batch
    g = next(g for g in book.grades if g.status == "ok")
    many = [dataclasses.replace(g, submission=f"student_{i:03d}/output.txt", student=str(i),
                                student_name=f"Student Number {i}") for i in range(300)]
    page = index_html(book.refs, many)
    assert len(page.encode()) < 2_000_000 and page.count('<tr data-search="') == 300


def test_the_site_replaces_only_itself(batch, tmp_path, monkeypatch):
    book, _, _ = batch
    site = tmp_path / "site"
    write_site(book.refs, book.grades, site)
    (site / "index.html").write_text("old")
    write_site(book.refs, book.grades, site)  # a previous site: replaced whole
    assert (site / "index.html").read_text().startswith("<!DOCTYPE html>")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("keep")

    def no_work(*a, **k):
        raise AssertionError("work started before the --html folder was checked")

    monkeypatch.setattr("dicejack.grade.batch.reference_runs", no_work)
    best, prob = tables(seed=8)
    sub = write(tmp_path, "s.txt", layouts(best, prob)["grid"])
    with pytest.raises(grade.GradeError, match=r"--html .*mine is a folder dicejack did not "
                                                r"write \(no \.dicejack-site in it\)"):
        grade.grade_files(CONFIG, [sub], site=mine, cache_dir=False)
    assert (mine / "thesis.tex").read_text() == "keep" and sorted(mine.iterdir()) == [
        mine / "thesis.tex"]
    with pytest.raises(grade.GradeError, match="site .* holds the submission"):
        grade.grade_files(CONFIG, [sub], site=tmp_path, cache_dir=False)
    with pytest.raises(grade.GradeError, match="reports and site both name"):
        grade.grade_files(CONFIG, [sub], site=tmp_path / "x", reports=tmp_path / "x",
                          cache_dir=False)
    assert not list(tmp_path.glob(".mine.*")) and not list(tmp_path.glob(".x.*"))


def test_cli_grade_html(batch, tmp_path, capsys):
    _, _, paths = batch
    archive = tmp_path / "subs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in paths[:3]:
            zf.write(p, f"{HOSTILE_NAME.replace('/', '_')}/{p.name}")
    site = tmp_path / "site"
    code = main(["grade", str(archive), "--sides", str(GAME.n_sides), "--low", str(GAME.low),
                 "--high", str(GAME.high), "--dice", str(GAME.n_dice), "-m", f"{M:g}",
                 "--games", str(GAMES), "--out", str(tmp_path / "g.csv"), "--html", str(site),
                 "--cache", str(tmp_path / "cache")])
    err = capsys.readouterr().err
    assert code == 0 and f"the site {site}/index.html" in err
    index = (site / "index.html").read_text()
    assert "<script>alert" not in index
    # the three files of one folder are one student's: one counted, two earlier attempts
    assert index.count('<tr data-search="') == 1
    assert "<h1>Grades: 1 submission (2 earlier attempts listed apart)</h1>" in index
    bad = tmp_path / "afile"
    bad.write_text("x")
    code = main(["grade", str(paths[0]), "-m", "100", "--games", "10", "--html", str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "exists and is not a folder" in err
    assert bad.read_text() == "x"


def test_a_file_named_index_page_keeps_its_own_page():
    """Issue 39 (7): `index` renamed to `index-page` must not take the page of a file named
    `index-page` (Bob's page replacing Alice's), in either order; names unique in any case."""
    for order in (("alice/index", "bob/index-page"), ("bob/index-page", "alice/index"),
                  ("INDEX", "index-PAGE", "c/Index-page-2")):
        names = page_names([grade.Grade(s, "ok") for s in order])
        lowered = [n.lower() for n in names]
        assert len(set(lowered)) == len(names) and "index.html" not in lowered, names
    names = page_names([grade.Grade(s, "ok") for s in ("alice/index", "bob/index-page")])
    assert names == ["index-page-2.html", "index-page.html"]


def test_the_class_page_counts_each_students_kept_file_once(refs):
    """Issue 32: the headline, the cards and the histogram count the kept attempt per student;
    superseded attempts are listed apart; skipped files show their student."""
    import dataclasses

    best, prob = tables(seed=3)
    good = grade.grade_tables(refs, best, prob, submission="sub/alice_1_10_out.txt")
    bad = dataclasses.replace(good, submission="sub/bob_2_11_out.txt", verdict="fail",
                              score=5.0, student="2", kept="no")
    again = dataclasses.replace(good, submission="sub/bob_2_12_out-1.txt", student="2",
                                kept="yes")
    first = dataclasses.replace(good, student="1", kept="yes")
    skipped = grade.Grade("sub/carol_3_13_notes.docx", "skipped", verdict="",
                          error="a document", student="3", student_name="carol")
    index = index_html(refs, [first, bad, again, skipped])
    assert "<h1>Grades: 2 submissions (1 earlier attempt listed apart)</h1>" in index
    assert f"<b>2</b>{good.verdict}</div>" in index and "<b>0</b>fail</div>" in index
    assert "Earlier attempts" in index
    earlier = index.split("<h2>Earlier attempts</h2>")[1].split("<h2")[0]
    assert "bob_2_11_out.txt" in earlier and "bob_2_12_out-1.txt" not in earlier
    skipped_part = index.split("<h2>Skipped files</h2>")[1]
    assert "carol (3)" in skipped_part and "carol_3_13_notes.docx" in skipped_part


def _row_cells(index: str, needle: str) -> list[str]:
    """The cells (inner HTML) of the submissions table's row holding `needle`."""
    table = index.split('id="submissions"')[1].split("</table>")[0]
    row = next(r for r in table.split("<tr")[2:] if needle in r)
    return re.findall(r"<td[^>]*>(.*?)</td>", row)


def test_the_class_table_leads_with_what_an_instructor_decides_by(refs):
    """Issue 38: student (name, then id), score, verdict, likely cause and flags first, the
    rest optional (a column chooser); the archive once above the table, not on every row; the
    late and held notes in the flags cell (earlier attempts are listed apart); verdicts carry
    their severity as sort key."""
    best, prob = tables(seed=3)
    good = grade.grade_tables(refs, best, prob,
                              submission="subs.zip!a/phillipskim_12252_1_o.txt")
    rows = [dataclasses.replace(good, student="12252", student_name="phillipskim", kept="yes",
                                late=True),
            dataclasses.replace(good, submission="subs.zip!a/smith_12253_2_o.txt",
                                student="12253", student_name="smith", verdict="review",
                                cause="xy-swapped", cause_text="X and Y swapped", held="review"),
            grade.Grade("subs.zip!a/x.txt", "error", error="submission is empty"),
            dataclasses.replace(good, submission="subs.zip!a/nolms.txt")]
    index = index_html(refs, rows)
    heads = re.findall(r"<th([^>]*)>([^<]*)</th>",
                       index.split('id="submissions"')[1].split("</thead>")[0])
    assert [name for _, name in heads] == [
        "student", "score", "verdict", "likely cause", "flags", "file", "agreement", "rmse",
        "vs optimal", "exploitability", "consistency p", "similar to"]
    assert [i for i, (attrs, _) in enumerate(heads) if "data-optional" in attrs] == list(
        range(5, 12))
    assert "<code>subs.zip!a/</code>" in index
    assert index.count("subs.zip!") == 1 + index.count('data-search="subs.zip!')
    kim = _row_cells(index, "phillipskim")
    assert ">phillipskim (12252)</a>" in kim[0] and "12252 (phillipskim)" not in index
    assert kim[4].endswith("late") and ">phillipskim_12252_1_o.txt</a>" in kim[5]
    smith = _row_cells(index, "smith (12253)")
    assert smith[3] == "xy-swapped" and "held: review" in smith[4]
    broken = _row_cells(index, "x.txt")
    assert ">x.txt</a>" in broken[0] and "could not be graded: submission is empty" in broken[4]
    assert ">nolms.txt</a>" in _row_cells(index, "nolms.txt")[0]  # no LMS: the file names it
    keys = re.findall(r'data-v="(\d)"><span class="verdict', index)
    order = VERDICT_SEVERITY
    assert keys == [str(order.index(v)) for v in ("pass", "review", "unreadable", "pass")]
    assert order == ("unreadable", "fail", "review", "pass")


def test_a_one_file_site_is_the_students_page_with_no_class_page(tmp_path, refs):
    """Issue 38: a self-check's site (one file, nothing skipped) is the student's page as
    index.html, with no link to a class page that does not exist."""
    best, prob = tables(seed=3)
    g = grade.grade_tables(refs, best, prob, submission="mine.txt")
    index = write_site(refs, [g], tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == [SITE_MARKER,
                                                                    "index.html"]
    page = index.read_text()
    assert "<h1>Grade: mine.txt</h1>" in page and elements(page).links == []
    with_skipped = [g, grade.Grade("notes.docx", "skipped", verdict="", error="a document")]
    write_site(refs, with_skipped, tmp_path / "two")
    assert '<a href="index.html">' in (tmp_path / "two" / "mine.txt.html").read_text()


def test_a_student_pages_state_maps_are_large_enough_to_read(batch):
    """Issue 38: each of the two maps is at least MAP_WIDTH (360) px wide at 100%."""
    _, site, _ = batch
    page = (site / "bob.txt.html").read_text()
    cells = re.findall(r'<rect x="[\d.]+" y="\d+" width="(\d+)" height="\d+" fill="#',
                       page.split("<svg")[1])
    assert len(cells) >= 2 * GAME.low ** 2
    assert GAME.low * int(cells[0]) >= MAP_WIDTH == 360


def test_a_student_page_shows_the_submission_escaped_with_the_rows_read_marked(refs, tmp_path):
    """Issue 38: the text as graded, every character escaped, a numbered line each, the lines
    the grader read marked; a long text shows its head and the lines around those read."""
    best, prob = tables(seed=3)
    text = f"{HOSTILE_NAME}\tdone\n" + layouts(best, prob)["grid"]
    lines = text.splitlines()
    read = [n for n, line in enumerate(lines, 1) if line[:1].isdigit() or line[:2] == "-1"]
    assert len(read) == 2 * GAME.low
    g = grade.grade_text(refs, text, name="mine.txt")
    assert g.lines_read == tuple(read)  # the reader says which lines it read
    page = submission_html(refs, g, text=text, read=read)
    shown = page.split("<h2>The submission</h2>")[1].split("</pre>")[0]
    assert "</script><script>" not in page
    tab = f"{HOSTILE_NAME}\tdone".expandtabs(8)  # a tab as the spaces to its stop
    assert html.escape(tab) in shown and "\\x09" not in shown
    assert shown.count('class="ln read"') == len(read) and shown.count('class="ln') == len(lines)
    first = re.search(r'<span class="ln read"><span class="no">\s*(\d+)</span>', shown)
    assert int(first.group(1)) == read[0]
    assert f"As graded, {len(lines)} lines; the {len(read)} marked lines are the rows" in page
    long_text = "\n".join(f"line {k}" for k in range(1, 1001))
    page = submission_html(refs, g, text=long_text, read=[500])
    shown = page.split("<h2>The submission</h2>")[1].split("</pre>")[0]
    numbers = [int(n) for n in re.findall(r'<span class="no">\s*(\d+)</span>', shown)]
    assert numbers == [*range(1, 21), *range(497, 504)]
    assert "476 lines not shown" in shown and "497 lines not shown" in shown
    broken = grade.grade_text(refs, "hello\n", name="broken.txt")
    assert "no line was read as a table" in submission_html(refs, broken, text="hello\n")
    assert "The submission" not in submission_html(refs, g)  # no text given: none shown
    index = write_site(refs, [g], tmp_path / "site", texts={"mine.txt": (text, read)})
    assert index.read_text().count('class="ln read"') == len(read)


def test_a_graded_batchs_pages_show_each_submission_with_the_rows_read(batch):
    """grade_files --html: each student page shows its file as graded, rows read marked."""
    book, site, _ = batch
    alice = next(g for g in book.grades if g.submission.endswith("alice.txt"))
    assert len(alice.lines_read) == 2 * GAME.low
    page = (site / page_names(book.grades)[book.grades.index(alice)]).read_text()
    assert "<h2>The submission</h2>" in page
    assert page.count('class="ln read"') == 2 * GAME.low


def test_the_class_page_has_one_count_the_terminals(refs):
    """Issue 46: the headline's count, the rows of the table and the verdict cards are the
    terminal's summary line; an earlier attempt is listed once, apart, not in the table."""
    from dicejack.grade.outputs.terminal import summary_text

    best, prob = tables(seed=3)
    good = dataclasses.replace(
        grade.grade_tables(refs, best, prob, submission="sub/alice_1_10_out.txt"),
        student="1", kept="yes")
    assert good.verdict == "pass"
    grades = [good,
              dataclasses.replace(good, submission="sub/bob_2_11_out.txt", student="2",
                                  kept="no", late=True),  # an earlier pass: not counted
              dataclasses.replace(good, submission="sub/bob_2_12_out-1.txt", student="2",
                                  kept="yes", verdict="review", score=80.0),
              dataclasses.replace(good, submission="sub/cy_3_13_out.txt", student="3",
                                  kept="yes", verdict="fail", score=40.0),
              grade.Grade("sub/dee_4_14_out.txt", "error", error="submission is empty",
                          student="4", kept="yes"),
              grade.Grade("sub/carol_3_13_notes.docx", "skipped", verdict="",
                          error="a document", student="3")]
    index = index_html(refs, grades)
    last = summary_text(grades).splitlines()[-1]
    m = re.fullmatch(r"(\d+) submissions: (\d+) pass, (\d+) review, (\d+) fail .*", last)
    assert m, last
    n, passed, review, fail = map(int, m.groups())
    assert (n, passed, review, fail) == (4, 1, 1, 2)
    assert "(1 earlier attempt listed apart, not counted)" in last
    assert f"<h1>Grades: {n} submissions (1 earlier attempt listed apart)</h1>" in index
    table = index.split('id="submissions"')[1].split("</table>")[0]
    assert table.count("<tr") - 1 == n  # the header row, then one row per submission
    assert "bob_2_11_out.txt" not in table
    assert (f"<b>{passed}</b>pass</div>" in index and f"<b>{review}</b>review</div>" in index
            and f"<b>{fail}</b>fail</div>" in index)
    assert index.count(">bob_2_11_out.txt<") == 1  # once, in the earlier attempts
    earlier = index.split("<h2>Earlier attempts</h2>")[1].split("<h2")[0]
    assert "bob_2_11_out.txt" in earlier and "late" in earlier


def test_an_unreadable_files_page_shows_what_was_submitted(tmp_path):
    """Issue 46: an unreadable row is held for a look (--lms-hold's default); its page shows
    the file as submitted, every line escaped, so that look needs nothing else."""
    subs = tmp_path / "subs"
    subs.mkdir()
    good = write(subs, "alice.txt", layouts(*tables(seed=3))["grid"])
    odd = write(subs, "bob.txt", "I ran out of time <b>sorry</b>\nWinProb: see my code\n")
    site = tmp_path / "site"
    book = grade.grade_files(CONFIG, [good, odd], site=site, cache_dir=False)
    bob = next(g for g in book.grades if g.submission.endswith("bob.txt"))
    assert bob.status == "error"
    page = (site / "bob.txt.html").read_text()
    assert "Could not be graded" in page
    assert "I ran out of time &lt;b&gt;sorry&lt;/b&gt;" in page and "WinProb: see my code" in page
