"""Tests of dicejack.formats.submission: the layouts read, flags, errors, fuzzing, speed."""

from __future__ import annotations

import json
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack.formats import FormatError, Submission, read_submission
from dicejack.formats.submission import find_table_size, read_submission_text
from dicejack.formats.submission import scanner as scanner_module
from dicejack.formats.tables import format_table

# ------------------------------------------------------------------------ submissions: helpers
SUB_LOW, SUB_DICE = 15, 2


def make_sub_tables(
    low: int = SUB_LOW, n_dice: int = SUB_DICE, seed: int = 5
) -> tuple[np.ndarray, ...]:
    """A learner-like result: policy J in 1..n_dice (0 where unvisited), probability with 4
    decimals (-1 where unvisited, a few exact 0.0 and 1.0), and the unvisited mask."""
    rng = np.random.default_rng(seed)
    unvisited = rng.random((low, low)) < 0.2
    unvisited[0, 0] = False  # every game starts in <0,0>
    policy = rng.integers(1, n_dice + 1, (low, low))
    policy[unvisited] = 0
    prob = np.round(rng.uniform(0.0001, 0.9999, (low, low)), 4)
    if low >= 3:
        prob[0, 1], prob[1, 2], prob[2, 0] = 0.0, 1.0, 0.0
        unvisited[0, 1] = unvisited[1, 2] = unvisited[2, 0] = False
        policy[0, 1], policy[1, 2], policy[2, 0] = 1, n_dice, 1
    prob[unvisited] = -1
    return policy, prob, unvisited


def sub_grid(table: np.ndarray, sep: str = " ", end: str = "") -> str:
    return "\n".join(sep.join(_sub_cell(v) for v in row) + end for row in table)


def _sub_cell(v: object) -> str:
    if isinstance(v, (float, np.floating)):
        return "-1" if v == -1 else f"{v:.4f}"
    return str(v)


def assert_sub_reads_back(sub: Submission, policy: np.ndarray, prob: np.ndarray) -> None:
    unvisited = prob == -1
    assert sub.policy.dtype == np.int64 and sub.probability.dtype == np.float64
    np.testing.assert_array_equal(sub.policy, policy)
    np.testing.assert_array_equal(sub.no_data, unvisited)
    assert np.isnan(sub.probability[unvisited]).all()
    np.testing.assert_allclose(sub.probability[~unvisited], prob[~unvisited], rtol=0, atol=1e-12)


def _sub_np_text(array: np.ndarray, fn=repr) -> str:
    with np.printoptions(linewidth=75, threshold=1000):
        return fn(array)


def _sub_trace() -> str:
    return (
        "Game 1:\n"
        "Player A rolls 2 dice, which come up 5 and 6. A total: 11.\n"
        "Player B rolls 2 dice, which come up 3 and 4. B total: 7.\n"
        "Player A rolls 2 dice, which come up 5 and 5. A total: 21. A loses.\n"
    )


def _sub_counts(low: int, n_dice: int) -> np.ndarray:
    return np.random.default_rng(0).integers(0, 50, (low, low, n_dice + 1))


# Every layout prints (policy, prob) as a student program might; each name -> (printer, layout).
def lay_grid(pol, prob):
    return "PLAY =\n" + sub_grid(pol) + "\nPROB =\n" + sub_grid(prob) + "\n"


def lay_tabs(pol, prob):
    return "Policy\n" + sub_grid(pol, "\t", "\t") + "\nProbability\n" + sub_grid(prob, "\t", "\t")


def lay_csv(pol, prob):
    return (
        "Best Move:\n" + sub_grid(pol, ",") + "\n\nWin probability:\n" + sub_grid(prob, ", ") + "\n"
    )


def lay_list(pol, prob):
    return f"PLAY = {pol.tolist()!r}\nPROB = {prob.tolist()!r}\n"


def lay_numpy_repr(pol, prob):
    return "PLAY:\n" + _sub_np_text(pol) + "\nP =\n" + _sub_np_text(prob.astype(float)) + "\n"


def lay_numpy_str(pol, prob):
    return "PLAY = " + _sub_np_text(pol, str) + "\nPROB = " + _sub_np_text(prob.astype(float), str)


def lay_unlabelled(pol, prob):
    return sub_grid(pol) + "\n\n" + sub_grid(prob) + "\n"


def lay_prompt(pol, prob):
    prompt = "Enter NSides: Enter LTarget: Enter UTarget: Enter NDice: Enter M: Enter NGames: "
    return prompt + "Best Move:\n" + sub_grid(pol) + "\nProbability:\n" + sub_grid(prob) + "\n"


def lay_noise_first(pol, prob):
    low, n_dice = pol.shape[0], int(max(pol.max(), 1))
    return (
        f"NDice={n_dice}\nM = 100.0\nNGames = 100,000\nWinCount:\n"
        + _sub_np_text(_sub_counts(low, n_dice), str)
        + "\nLoseCount =\n"
        + repr(_sub_counts(low, n_dice).tolist())
        + "\n"
        + _sub_trace()
        + "0 0 2\n11 7 2\n"
        + lay_grid(pol, prob)
    )


def lay_combined(pol, prob):
    low = pol.shape[0]
    lines = ["X\\Y " + " ".join(f"{y:>8}" for y in range(low))]
    for x in range(low):
        cells = " ".join(f"{f'{pol[x, y]}:{_sub_cell(prob[x, y])}':>8}" for y in range(low))
        lines.append(f"{x:>3} | {cells}")
    return "Best move:probability\n" + "\n".join(lines) + "\n"


def lay_format_table(pol, prob):
    return format_table(pol, "Best dice", kind="int") + "\n" + format_table(prob, "Win probability")


SUB_LAYOUTS = {
    "grid": (lay_grid, "grid"),
    "tabs": (lay_tabs, "grid"),
    "csv": (lay_csv, "csv"),
    "list": (lay_list, "list-repr"),
    "numpy-repr": (lay_numpy_repr, "numpy-repr"),
    "numpy-str": (lay_numpy_str, "numpy-str"),
    "unlabelled": (lay_unlabelled, "grid"),
    "prompt": (lay_prompt, "grid"),
    "noise-first": (lay_noise_first, "grid"),
    "combined": (lay_combined, "combined"),
    "format-table": (lay_format_table, "labelled-grid"),
}


# ------------------------------------------------------------------------ submissions: layouts
@pytest.mark.parametrize("name", sorted(SUB_LAYOUTS))
def test_submission_layouts_read_back_identically(name: str) -> None:
    policy, prob, _ = make_sub_tables()
    printer, layout = SUB_LAYOUTS[name]
    sub = read_submission_text(printer(policy, prob), SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert sub.layout == layout
    expected_flags = ("unlabelled",) if name == "unlabelled" else ()
    assert sub.flags == expected_flags


def test_submission_layout_details_are_as_printed() -> None:
    policy, prob, _ = make_sub_tables()
    tabs = lay_tabs(policy, prob)
    assert not tabs.endswith("\n") and "\t\n" in tabs
    numpy_repr = lay_numpy_repr(policy, prob)
    assert "array([[" in numpy_repr and "0.    ," in numpy_repr
    rows = numpy_repr.split("array(")[2].split("],")  # rows wrapped over several lines
    assert rows[0].count("\n") >= 1
    assert "0. " in lay_numpy_str(policy, prob)


def test_submission_from_file_and_bytes(tmp_path) -> None:
    policy, prob, _ = make_sub_tables()
    text = lay_grid(policy, prob)
    path = tmp_path / "student.txt"
    path.write_text(text, encoding="utf-8")
    assert_sub_reads_back(read_submission(path, SUB_LOW, SUB_DICE), policy, prob)
    assert_sub_reads_back(read_submission(str(path), SUB_LOW, SUB_DICE), policy, prob)
    for data in (
        text.encode("utf-16"),  # PowerShell redirection, with BOM
        text.encode("utf-16-le"),  # no BOM
        "\ufeff".encode() + text.replace("\n", "\r\n").encode(),  # BOM, CRLF
        ("Résultats après 100000 parties\n" + text).encode("latin-1"),
        ("\x1b[1mPLAY\x1b[0m\n" + text).encode(),  # colour codes
    ):
        assert_sub_reads_back(read_submission_text(data, SUB_LOW, SUB_DICE), policy, prob)


@pytest.mark.parametrize("marker", ["nan", "None", "n/a", "-1", "-1.0", "NaN", "null"])
def test_submission_no_data_markers(marker: str) -> None:
    policy, prob, unvisited = make_sub_tables()
    text = "Best Move:\n" + sub_grid(policy) + "\nProbability:\n"
    text += sub_grid(np.where(unvisited, np.nan, prob)).replace("nan", marker)
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    # a printed 0 stays 0.0 and is not marked as no data
    assert sub.probability[0, 1] == 0.0 and not sub.no_data[0, 1]


def test_submission_no_data_in_policy_and_random_policy_for_unvisited() -> None:
    policy, prob, unvisited = make_sub_tables()
    text = "PLAY\n" + sub_grid(np.where(unvisited, -1, policy)) + "\nPROB\n" + sub_grid(prob)
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    np.testing.assert_array_equal(sub.policy, np.where(unvisited, -1, policy))
    text = lay_list(np.where(unvisited, None, policy).astype(object), prob)
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    np.testing.assert_array_equal(sub.policy, np.where(unvisited, -1, policy))
    assert "no-data" in sub.notes and sub.flags == ()


def test_submission_swapped_labels_are_flagged() -> None:
    policy, prob, _ = make_sub_tables()
    text = "PLAY =\n" + sub_grid(prob) + "\nPROB =\n" + sub_grid(policy) + "\n"
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert "labels-swapped" in sub.flags
    # probabilities first under their own heading: no flag
    text = "Win probability\n" + sub_grid(prob) + "\nStrategy\n" + sub_grid(policy) + "\n"
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert sub.flags == ()


def test_submission_arrays_are_the_last_two_blocks() -> None:
    policy, prob, _ = make_sub_tables()
    old_policy, old_prob, _ = make_sub_tables(seed=9)
    text = (
        "After 1000 games:\n"
        + lay_grid(old_policy, old_prob)
        + "After 100,000 games:\n"
        + lay_grid(policy, prob)
        + "Done in 3.2 s\n0.5123\n"
    )
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert "ignored 2 other" in sub.notes
    # two unlabelled arrays back to back, no blank line, after a count dump as rows
    counts = _sub_counts(SUB_LOW, SUB_DICE).reshape(SUB_LOW * SUB_LOW, SUB_DICE + 1)
    text = sub_grid(counts) + "\n" + sub_grid(policy) + "\n" + sub_grid(prob)
    assert_sub_reads_back(read_submission_text(text, SUB_LOW, SUB_DICE), policy, prob)


def test_submission_more_layouts() -> None:
    policy, prob, _ = make_sub_tables()
    rows = "\n".join(f"Row {x}: " + " ".join(map(str, r)) for x, r in enumerate(policy))
    text = "Policy\n" + rows + "\nProbability\n" + sub_grid(prob, " | ")
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert sub.layout == "labelled-grid+grid"
    # markdown-like with row labels as a first column, rows printed in reverse
    md = "\n".join(f"| {x} | " + " | ".join(map(_sub_cell, prob[x])) + " |" for x in range(SUB_LOW))
    text = lay_unlabelled(policy, prob).split("\n\n")[0] + "\n\n| X | ... |\n|---|\n"
    text += "\n".join(reversed(md.splitlines()))
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert "rows-reordered" in sub.flags
    # one python list per row; numpy rows printed one by one; (d, p) tuples
    text = "\n".join(repr(r) for r in policy.tolist()) + "\n"
    text += "\n".join(_sub_np_text(r, str) for r in prob)
    assert_sub_reads_back(read_submission_text(text, SUB_LOW, SUB_DICE), policy, prob)
    tuples = [
        [(int(policy[x, y]), float(prob[x, y])) for y in range(SUB_LOW)] for x in range(SUB_LOW)
    ]
    sub = read_submission_text(repr(tuples), SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert sub.layout == "combined"
    # policy stored as floats, numpy 2 scalar reprs in a list, semicolons
    text = _sub_np_text(policy.astype(float)) + "\n"
    text += repr([[np.float64(v) for v in r] for r in prob]) + "\n"
    assert_sub_reads_back(read_submission_text(text, SUB_LOW, SUB_DICE), policy, prob)
    text = sub_grid(policy, ";") + "\n\n" + sub_grid(prob, ";")
    assert read_submission_text(text, SUB_LOW, SUB_DICE).layout == "csv"


def sub_unusual_texts(policy: np.ndarray, prob: np.ndarray) -> dict[str, str]:
    """More ways students print the tables (all must read back identically)."""
    rows = range(policy.shape[0])
    cols = " ".join(map(str, rows))
    texts = {
        "json": json.dumps({"policy": policy.tolist(), "prob": prob.tolist()}),
        "json-indented": json.dumps({"best": policy.tolist(), "p": prob.tolist()}, indent=2),
        "index-rows": "\n".join(f"policy[{x}] = {policy[x].tolist()}" for x in rows)
        + "\n"
        + "\n".join(f"prob[{x}] = {prob[x].tolist()}" for x in rows),
        "dicts": repr({x: policy[x].tolist() for x in rows})
        + "\n"
        + repr({x: prob[x].tolist() for x in rows}),
        "torch": f"tensor({policy.tolist()})\ntensor({prob.tolist()}, device='cuda:0')",
        "side-by-side": "\n".join(
            sub_grid(policy[x : x + 1]) + "   " + sub_grid(prob[x : x + 1]) for x in rows
        ),
        "heading-with-columns": f"PLAY:  {cols}\n"
        + "\n".join(f"{x} | " + sub_grid(policy[x : x + 1]) for x in rows)
        + f"\nPROB:  {cols}\n"
        + "\n".join(f"{x} | " + sub_grid(prob[x : x + 1]) for x in rows),
        "x-equals": "\n".join(f"X={x}  " + sub_grid(policy[x : x + 1]) for x in rows)
        + "\n"
        + "\n".join(f"X={x}  " + sub_grid(prob[x : x + 1]) for x in rows),
        "pandas": f"   {cols}\n"
        + "\n".join(f"{x}  " + sub_grid(policy[x : x + 1]) for x in rows)
        + f"\n   {cols}\n"
        + "\n".join(f"{x}  " + sub_grid(prob[x : x + 1]) for x in rows),
        "stacked": "PLAY, PROB =\n" + _sub_np_text(np.array([policy, prob]), str),
        "d (p)": "\n".join(
            "  ".join(f"{policy[x, y]} ({_sub_cell(prob[x, y])})" for y in rows) for x in rows
        ),
        "long-csv": "x,y,best_dice,win_probability,win1,win2\n"
        + "\n".join(f"{x},{y},{policy[x, y]},{prob[x, y]!r},3,4" for x in rows for y in rows),
        "long-by-column": "\n".join(
            f"{x} {y} {_sub_cell(prob[x, y])} {policy[x, y]}" for y in rows for x in rows
        ),
    }
    return texts


SUB_UNUSUAL = sorted(sub_unusual_texts(*make_sub_tables()[:2]))


@pytest.mark.parametrize("name", SUB_UNUSUAL)
def test_submission_unusual_layouts(name: str) -> None:
    policy, prob, _ = make_sub_tables()
    sub = read_submission_text(sub_unusual_texts(policy, prob)[name], SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)


def _sub_combined_text(policy, prob, no_data_cell: str, width: int = 12, align: str = ">") -> str:
    """One table of `d:p` cells under a header row of column numbers; `no_data_cell` alone
    where the probability is -1."""
    low = policy.shape[0]
    cells = [
        [
            no_data_cell if prob[x, y] == -1 else f"{policy[x, y]}:{_sub_cell(prob[x, y])}"
            for y in range(low)
        ]
        for x in range(low)
    ]
    if align == "\t":
        lines = ["X\\Y\t" + "\t".join(map(str, range(low)))]
        lines += [f"{x}\t" + "\t".join(row) for x, row in enumerate(cells)]
    else:
        lines = ["     " + "".join(f"{y:{align}{width}}" for y in range(low))]
        lines += [
            f"{x:>3}  " + "".join(f"{c:{align}{width}}" for c in r) for x, r in enumerate(cells)
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("cell", ["n/a", "-", "--", "nan", "None", "-1", "N/A", "\u2014"])
@pytest.mark.parametrize("align", [">", "^", "\t"])
def test_submission_combined_with_bare_no_data_cells(cell: str, align: str) -> None:
    """`  2:0.5312  ` beside `   n/a    `: a bare no-data cell is policy -1, no data."""
    policy, prob, unvisited = make_sub_tables()
    prob[5] = -1  # a whole row without data (no `d:p` cell in it)
    unvisited = prob == -1
    text = _sub_combined_text(policy, prob, cell, align=align)
    assert "   n/a    " in _sub_combined_text(policy, prob, "n/a", align="^")
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, np.where(unvisited, -1, policy), prob)
    assert sub.layout == "combined" and sub.flags == ()
    # printed twice, the second copy double-spaced: the same arrays
    twice = text + "\n" + "".join(line + "\n\n" for line in text.splitlines())
    sub = read_submission_text("Results:\n" + twice, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, np.where(unvisited, -1, policy), prob)


def test_submission_combined_small_and_ambiguous_rows() -> None:
    """Rows whose only `d:p` cell comes first (`2:0.52  -`) read as a combined table when no
    other table pairs with them; as a labelled probability row when one does."""
    text = "2:0.52  -\n1:0.0  -\n"
    sub = read_submission_text(text, 2, 2)
    assert sub.policy.tolist() == [[2, -1], [1, -1]] and sub.layout == "combined"
    assert sub.no_data.tolist() == [[False, True], [False, True]]
    text = "Policy\n0: 1 2\n1: 2 2\nProbability\n0:0.5 -1\n1:0.25 -1\n"
    sub = read_submission_text(text, 2, 2)
    assert sub.policy.tolist() == [[1, 2], [2, 2]] and sub.flags == ()
    assert sub.no_data.tolist() == [[False, True], [False, True]]
    # bracketed rows: tuples beside None; a row label inside brackets is no table (no crash)
    sub = read_submission_text("[[(2, 0.5), None], [None, (1, 0.25)]]", 2, 2)
    assert sub.policy.tolist() == [[2, -1], [-1, 1]] and sub.layout == "combined"
    assert "found a 2x2 block" in _sub_error("[[0, (2, 0.5)], [1, (1, 0.25)]]", 2, 2)


def test_submission_dashes_and_markdown_rules() -> None:
    """A lone `-` is no data; a markdown rule `|--|--|` is no row; a heading above a header
    row of column numbers still names the table."""
    policy, prob, unvisited = make_sub_tables()
    text = "PLAY\n" + sub_grid(np.where(unvisited, -1, policy)).replace("-1", "-") + "\nPROB\n"
    text += sub_grid(prob).replace("-1", "--")
    sub = read_submission_text(text, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, np.where(unvisited, -1, policy), prob)
    md = ["| X | " + " | ".join(map(str, range(3))) + " |", "|--|--|--|--|"]
    pol3, prob3, _ = make_sub_tables(3, 2)
    for table in (pol3, prob3):
        md += [f"| {x} | " + " | ".join(map(_sub_cell, table[x])) + " |" for x in range(3)]
        md += ["", "| X | 0 | 1 | 2 |", "|--|--|--|--|"]
    sub = read_submission_text("\n".join(md[:-2]), 3, 2)
    assert_sub_reads_back(sub, pol3, prob3)
    # low <= NDice + 1: the header row `0 1 2` could be a row of dice; the heading still counts
    rows = [f"{x}  " + sub_grid(pol3[x : x + 1]) for x in range(3)]
    text = "Strategy:\n   0 1 2\n" + "\n".join(rows) + "\nWin probability:\n   0 1 2\n"
    text += "\n".join(f"{x}  " + sub_grid(prob3[x : x + 1]) for x in range(3))
    sub = read_submission_text(text, 3, 2)
    assert_sub_reads_back(sub, pol3, prob3)
    assert sub.flags == ()


def test_submission_percent_and_out_of_range_are_flagged() -> None:
    policy, prob, unvisited = make_sub_tables()
    pct = "\n".join(" ".join("-1" if v == -1 else f"{v * 100:.2f}%" for v in row) for row in prob)
    sub = read_submission_text("PLAY\n" + sub_grid(policy) + "\nPROB\n" + pct, SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert sub.flags == ("prob-percent",)
    bad_policy = policy.copy()
    bad_policy[3, 3] = 7
    bad_prob = prob.copy()
    bad_prob[4, 4] = 1.5
    sub = read_submission_text(lay_grid(bad_policy, bad_prob), SUB_LOW, SUB_DICE)
    assert sub.policy[3, 3] == 7 and sub.probability[4, 4] == 1.5
    assert sub.flags == ("policy-out-of-range", "prob-out-of-range")
    sub = read_submission_text(lay_grid(policy + 0.5 * ~unvisited, prob), SUB_LOW, SUB_DICE)
    assert "policy-not-integer" in sub.flags


@pytest.mark.parametrize("name", sorted(SUB_LAYOUTS))
def test_submission_small_games(name: str) -> None:
    """low = 2 or 3: tiny arrays among traces and counts are still the last two that fit."""
    for low, n_dice in ((3, 2), (2, 3), (3, 4)):
        policy, prob, _ = make_sub_tables(low, n_dice, seed=low * 10 + n_dice)
        text = "NDice=2\n0 0 2\n11 7 2\n0 7 2\n" + _sub_trace() + SUB_LAYOUTS[name][0](policy, prob)
        assert_sub_reads_back(read_submission_text(text, low, n_dice), policy, prob)


def test_submission_summarised_count_dump_is_ignored() -> None:
    low = 21  # 21*21*3 > 1000 values: numpy summarises the counts, not the 21x21 arrays
    policy, prob, _ = make_sub_tables(low)
    text = (
        "WinCount\n"
        + _sub_np_text(_sub_counts(low, SUB_DICE), str)
        + "\n"
        + lay_numpy_str(policy, prob)
    )
    assert "..." in text
    sub = read_submission_text(text, low, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert "summarised" in sub.notes


# ------------------------------------------------------------------------ submissions: errors
def _sub_error(text: str | bytes, low: int = SUB_LOW, n_dice: int = SUB_DICE) -> str:
    with pytest.raises(FormatError) as info:
        read_submission_text(text, low, n_dice)
    message = str(info.value)
    assert message and "\n" not in message
    return message


def test_submission_summarised_array_is_an_error() -> None:
    low = 40
    policy, prob, _ = make_sub_tables(low)
    message = _sub_error(lay_numpy_str(policy, prob), low)
    assert "summarised with '...'" in message and "threshold=sys.maxsize" in message
    message = _sub_error(lay_numpy_repr(policy, prob), low)
    assert "summarised" in message


def test_submission_truncated_garbage_binary_empty() -> None:
    policy, prob, _ = make_sub_tables()
    text = lay_grid(policy, prob)
    cut = text[: text.index("PROB") + 5 + len(text.split("PROB =\n")[1]) // 2]
    assert _sub_error(cut) == "found 1 array of 15x15 and a 7x15 block, need 2 arrays of 15x15"
    assert "found 1 array of 15x15" in _sub_error(lay_numpy_str(policy, prob)[:-400])
    assert "no numeric table" in _sub_error("Segmentation fault (core dumped)\n")
    assert "need 2 arrays of 15x15" in _sub_error("1 2 3\n4 5 6\n[[1, 2], [3, 4]]\n")
    assert "empty" in _sub_error("")
    assert "empty" in _sub_error(b"")
    assert "empty" in _sub_error(" \n\t\n")
    assert "binary" in _sub_error(np.random.default_rng(1).bytes(5000))
    assert "binary" in _sub_error(b"\x7fELF\x02\x01\x01\x00" + bytes(200))
    assert "binary" in _sub_error("PLAY\x00\x01\x02\x03")
    assert "low must be" in _sub_error("1", low=0)


def test_submission_file_errors(tmp_path) -> None:
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(10 * 2**20 + 1)
    with pytest.raises(FormatError, match="over the 10 MiB limit"):
        read_submission(big, SUB_LOW, SUB_DICE)
    with pytest.raises(FormatError, match="over the 10 MiB limit"):
        read_submission_text("0" * (10 * 2**20 + 1), SUB_LOW, SUB_DICE)
    with pytest.raises(FormatError, match="not a regular file"):
        read_submission(tmp_path, SUB_LOW, SUB_DICE)
    with pytest.raises(FormatError, match="cannot read"):
        read_submission(tmp_path / "missing.txt", SUB_LOW, SUB_DICE)
    (tmp_path / "empty.txt").write_bytes(b"")
    with pytest.raises(FormatError, match="empty"):
        read_submission(tmp_path / "empty.txt", SUB_LOW, SUB_DICE)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "empty.txt"]


# ------------------------------------------------------------------------ submissions: fuzzing
SUB_FRAGMENTS = [
    "[", "]", "[[", "]]", "(", ")", "array(", ", dtype=int64)", "...", "nan", "None", "n/a",
    "-1", "0", "0.", "1", "2", "0.5", "1e-3", "2:0.5", "|", ":", ",", ";", "\t", " ", "  ",
    "\n", "\n\n", "PLAY =", "PROB:", "Best Move:", "Policy", "X\\Y", "%", "inf", "-", "=",
    "\x00", "\ufeff", "é", "1" * 30, "np.float64(", "Row", "\r",
    "--", " - ", "\u2014", "1:n/a", "0:nan", "np.int64(", "|--|",
]  # fmt: skip


def _sub_read_or_error(data: str | bytes, low: int, n_dice: int) -> None:
    """Read or a one-line error; every line tokenized at most once (work linear in the text,
    counted rather than timed)."""
    tokenized: list[str] = []
    real = scanner_module.tokenize

    def counting(line: str):
        tokenized.append(line)
        return real(line)

    with mock.patch.object(scanner_module, "tokenize", counting):
        try:
            sub = read_submission_text(data, low, n_dice)
        except FormatError as exc:
            assert str(exc) and "\n" not in str(exc)
        else:
            assert sub.policy.shape == sub.probability.shape == sub.no_data.shape == (low, low)
            assert np.array_equal(np.isnan(sub.probability), sub.no_data)
    assert sum(len(line) + 1 for line in tokenized) <= len(data) + 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(st.text(max_size=2000), st.binary(max_size=2000)),
    low=st.integers(1, 6),
    n_dice=st.integers(1, 4),
)
def test_submission_fuzz_arbitrary_input(data, low, n_dice) -> None:
    _sub_read_or_error(data, low, n_dice)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(st.sampled_from(SUB_FRAGMENTS), max_size=300),
    low=st.integers(1, 4),
    n_dice=st.integers(1, 3),
)
def test_submission_fuzz_tricky_fragments(parts, low, n_dice) -> None:
    _sub_read_or_error("".join(parts), low, n_dice)


@settings(max_examples=200, deadline=None)
@given(
    low=st.integers(1, 8),
    n_dice=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(sorted(SUB_LAYOUTS) + SUB_UNUSUAL),
)
def test_submission_round_trip_property(low, n_dice, seed, name) -> None:
    """Random tables of random sizes read back from every layout (L = 1 in the simple ones)."""
    if name in SUB_UNUSUAL:
        low = max(low, 2)
    policy, prob, _ = make_sub_tables(low, n_dice, seed)
    text = (
        sub_unusual_texts(policy, prob)[name]
        if name in SUB_UNUSUAL
        else SUB_LAYOUTS[name][0](policy, prob)
    )
    assert_sub_reads_back(read_submission_text(text, low, n_dice), policy, prob)


@pytest.mark.slow
def test_submission_large_input_is_linear() -> None:
    """A few MiB of rows and of brackets read, each line tokenized once (no re-reading), and
    the rows too narrow to be tables not tokenized at all."""
    policy, prob, _ = make_sub_tables()
    noise = ("0.1 0.2 0.3\n" * 100_000) + "[" * 200_000 + "]" * 200_000 + "\n"
    tokenized: list[int] = []
    real = scanner_module.tokenize

    def counting(line: str):
        tokenized.append(len(line))
        return real(line)

    with mock.patch.object(scanner_module, "tokenize", counting):
        sub = read_submission_text(noise + lay_grid(policy, prob), SUB_LOW, SUB_DICE)
    assert_sub_reads_back(sub, policy, prob)
    assert len(tokenized) <= 2 * SUB_LOW + 4  # the bracket line and the tables
    assert sum(tokenized) <= 400_001 + len(lay_grid(policy, prob))


# ------------------------------------------------------------------------ another size than asked
def test_find_table_size_names_the_size_of_tables_that_do_not_fit() -> None:
    policy, prob, _ = make_sub_tables(low=10)
    text = format_table(policy, "Best number of dice:", kind="int") + "\n" + format_table(
        prob, "Win probability:")
    with pytest.raises(FormatError, match="need 2 arrays of 15x15"):
        read_submission_text(text, 15, SUB_DICE)
    assert find_table_size(text, SUB_DICE) == 10
    csv = "\n".join(",".join(map(str, row)) for row in [*policy.tolist(), *prob.tolist()])
    assert find_table_size(csv, SUB_DICE) == 10
    for junk in ("", "hello\n", "1 2 3\n4 5 6\n", "\x00\x01\x02" * 100, b"\xff\xfe\x00"):
        assert find_table_size(junk, SUB_DICE) is None
