"""The README's set-up commands: CI runs the second one word for word."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text().splitlines()
    return [line.removeprefix("    $ ") for line in lines if line.startswith("    $ ")]


def test_readme_opens_with_exactly_two_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert commands[0].startswith("pip install . && dicejack ")
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim():
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_commands()[1] in ci_lines


def _slug(heading: str) -> str:
    """A Markdown heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces
    as '-'."""
    import re

    text = heading.strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_readme_links_reach_their_files_and_sections():
    """Every relative link of the README (the Grading list links a section per topic) names a
    file that exists and, after '#', a heading of that file."""
    import re

    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link for link in links if "://" not in link and not link.startswith("mailto:")]
    assert len(local) >= 10
    for link in local:
        path, _, anchor = link.partition("#")
        target = ROOT / path if path else ROOT / "README.md"
        assert target.exists(), link
        if anchor:
            headings = [line.lstrip("#") for line in target.read_text().splitlines()
                        if line.startswith("#")]
            assert anchor in {_slug(h) for h in headings}, link


def test_the_readme_says_which_reviews_cost_points():
    """Issue 46: "a review never lowers a score" was untrue of tables printed transposed or with
    J 0-based (reviewed, and 10 format points taken). The README says what the rubric does."""
    from dicejack.grade.scoring.rubric import EVIDENCE_FLAGS, FLAG_DEDUCTIONS, REVIEW_FLAGS

    text = " ".join((ROOT / "README.md").read_text().split())
    assert "a review never lowers a score" not in text
    part = text[text.index("**Points only on strong evidence**"):]
    part = part[:part.index("- **")]
    assert "evidence below the fail level sends a file to review and never lowers its score" in part
    for flag, words in (("transposed", "transposed"), ("zero-based-j", "J 0-based")):
        assert flag in REVIEW_FLAGS and flag not in EVIDENCE_FLAGS
        assert words in part and FLAG_DEDUCTIONS[flag] == 10.0
    assert "score 10 points less" in part and '"10 format points were taken' in part
