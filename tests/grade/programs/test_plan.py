"""The run plan: the default (assigned settings and probes drawn from a secret) and TOML plans."""

import math
import re
from pathlib import Path

import pytest

from dicejack.grade import GradeError
from dicejack.grade.programs import plan as pl
from dicejack.grade.programs.conventions import Settings

A = Settings(6, 15, 17, 2, 100.0, 100_000)
RUNNING = Path(__file__).resolve().parents[3] / "docs" / "running.md"
#: The two fixed probes of the first version: every student could print tables for them.
OLD_PROBES = (Settings(6, 40, 42, 2, 100.0, 20_000), Settings(6, 20, 22, 2, 1000.0, 2_000))


def test_default_plan_is_assigned_then_probes_drawn_from_its_secret():
    p = pl.default_plan(A, runs=3, secret="3fa2")
    assert [s.role for s in p.settings] == ["assigned", "probe", "probe"]
    assert p.settings[0].settings == A and p.runs == 9 and p.secret == "3fa2"
    assert tuple(s.settings for s in p.settings[1:]) == pl.draw_probes("3fa2")


def test_the_same_secret_draws_the_same_probes():
    assert pl.draw_probes("course-2024") == pl.draw_probes("course-2024")
    assert pl.default_plan(A, secret="x") == pl.default_plan(A, secret="x")
    assert pl.draw_probes(7) == pl.draw_probes("7")  # a whole number is its digits
    # Pinned: a secret recorded today draws the same probes on any machine or later version.
    assert pl.draw_probes("dicejack", 4) == (
        Settings(6, 29, 37, 2, 617.0, 15_332), Settings(6, 23, 24, 2, 452.0, 2_586),
        Settings(6, 26, 32, 2, 865.0, 15_275), Settings(6, 24, 25, 2, 406.0, 3_780))


def test_different_secrets_draw_different_probes():
    pairs = [pl.draw_probes(f"s{i}") for i in range(50)]
    assert len(set(pairs)) == 50
    for k in range(2):
        assert len({p[k] for p in pairs}) >= 48
        assert len({p[k].low for p in pairs}) == 6 and len({p[k].m for p in pairs}) >= 40
    assert not set(OLD_PROBES) & {p for pair in pairs for p in pair}


def test_no_secret_draws_from_a_fresh_one():
    secret = pl.new_secret()
    assert re.fullmatch(r"[0-9a-f]{16}", secret) and secret != pl.new_secret()
    one, two = pl.default_plan(A), pl.default_plan(A)
    assert one.secret and two.secret and one.secret != two.secret
    assert one.settings[1:] != two.settings[1:]
    assert one == pl.default_plan(A, secret=one.secret)  # the recorded secret reproduces it


def test_drawn_probes_lie_in_their_regions_and_differ_from_the_assigned_settings():
    for i in range(500):
        probes = pl.draw_probes(i, 4)
        assert [p in pl.PROBE_REGIONS[k % 2] for k, p in enumerate(probes)] == [True] * 4
        assert len(set(probes)) == 4 and A not in probes
    # Assigned settings that a secret would draw: that secret draws another probe instead.
    first = pl.draw_probes("clash")[0]
    p = pl.default_plan(first, secret="clash")
    assert [s.settings for s in p.settings].count(first) == 1
    assert p.settings[1].settings in pl.PROBE_REGIONS[0]
    assert p.settings[2].settings == pl.draw_probes("clash")[1]


def test_the_regions_are_where_the_grid_catches_the_slips_at_a_bounded_cost():
    large, mid = pl.PROBE_REGIONS
    assert (large.low, large.m, large.games) == ((26, 31), (300, 1000), (10_000, 20_000))
    assert (mid.low, mid.m, mid.games) == ((20, 25), (300, 1000), (2_000, 5_000))
    for r in pl.PROBE_REGIONS:
        assert (r.sides, r.dice, r.gap) == (6, 2, (1, 8))
        assert r.low[1] <= pl.MAX_PROBE_LOW and r.games[1] <= 20_000  # cheaper than the old
        assert Settings(6, r.low[0], r.low[0] + 1, 2, float(r.m[0]), r.games[0]) in r
        assert Settings(6, r.low[1], r.low[1] + 8, 2, float(r.m[1]), r.games[1]) in r
        for outside in (Settings(6, r.low[1] + 1, r.low[1] + 3, 2, float(r.m[0]), r.games[0]),
                        Settings(6, r.low[0], r.low[0] + 9, 2, float(r.m[0]), r.games[0]),
                        Settings(6, r.low[0], r.low[0] + 2, 3, float(r.m[0]), r.games[0]),
                        Settings(6, r.low[0], r.low[0] + 2, 2, r.m[0] + 0.5, r.games[0]),
                        Settings(6, r.low[0], r.low[0] + 2, 2, float(r.m[0]), r.games[1] + 1)):
            assert outside not in r
    # docs/running.md says the same regions
    text = " ".join(RUNNING.read_text().split())
    for r in pl.PROBE_REGIONS:
        assert (f"LTarget {r.low[0]}-{r.low[1]}, UTarget = LTarget + {r.gap[0]}-{r.gap[1]}, "
                f"M {r.m[0]}-{r.m[1]:,}, NGAMES {r.games[0]:,}-{r.games[1]:,}") in text


def test_every_probe_is_small_enough_for_numpy_to_print_in_full():
    """numpy prints an array of more than 1,000 values (its default threshold) summarised with
    '...', unreadable: every probe drawn, from any secret, has LTarget x LTarget <= 1,000."""
    assert pl.MAX_PROBE_LOW == 31 and 31 * 31 <= 1000 < 32 * 32
    assert max(r.low[1] for r in pl.PROBE_REGIONS) == pl.MAX_PROBE_LOW
    lows = {p.low for i in range(2000) for p in pl.draw_probes(f"print-{i}", 4)}
    assert max(lows) == pl.MAX_PROBE_LOW and min(lows) == 20
    assert all(low * low <= 1000 for low in lows)
    np = pytest.importorskip("numpy")
    threshold = np.get_printoptions()["threshold"]
    table = np.zeros((pl.MAX_PROBE_LOW, pl.MAX_PROBE_LOW))
    assert table.size <= threshold and "..." not in str(table)
    assert "..." in str(np.zeros((pl.MAX_PROBE_LOW + 1,) * 2))  # one more is summarised


def test_the_number_of_possible_probes_is_far_too_large_to_print_beforehand():
    large, mid = pl.PROBE_REGIONS
    assert large.size == 6 * 8 * 701 * 10_001 == 336_513_648
    assert mid.size == 6 * 8 * 701 * 3_001 == 100_977_648
    assert large.size * mid.size > 3 * 10**16  # the default pair
    assert (large.cells, mid.cells) == (48, 48)  # the (LTarget, UTarget) pairs
    # Every LTarget and gap is drawn, M spreads evenly over the logarithm, NGAMES over its range.
    draws = [pl.draw_probes(f"n{i}") for i in range(3000)]
    for k, r in enumerate(pl.PROBE_REGIONS):
        got = [d[k] for d in draws]
        assert {p.low for p in got} == set(range(r.low[0], r.low[1] + 1))
        assert {p.high - p.low for p in got} == set(range(r.gap[0], r.gap[1] + 1))
        below = sum(p.m < math.sqrt(r.m[0] * r.m[1]) for p in got) / len(got)
        assert 0.45 < below < 0.55
        assert min(p.m for p in got) < r.m[0] * 1.01 and max(p.m for p in got) > r.m[1] * 0.99
        assert len({p.games for p in got}) > 1500


def test_describe_names_the_secret():
    assert pl.default_plan(A, secret="3fa2").describe().endswith(
        "; probes drawn with secret 3fa2")
    fixed = pl.default_plan(A, probes=OLD_PROBES)
    assert fixed.secret == "" and "secret" not in fixed.describe()
    assert "secret" not in pl.parse_plan("", assigned=A).describe()


def test_explicit_probes_are_run_as_given():
    p = pl.default_plan(A, probes=OLD_PROBES)
    assert tuple(s.settings for s in p.settings[1:]) == OLD_PROBES
    assert len(pl.default_plan(OLD_PROBES[0], probes=OLD_PROBES).settings) == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"secret": ""}, "secret must be printable text"),
    ({"secret": " x"}, "secret must be printable text"),
    ({"secret": "a\nb"}, "secret must be printable text"),
    ({"secret": "x" * 201}, "secret must be printable text of 1 to 200"),
    ({"secret": True}, "secret must be"),
    ({"secret": 1.5}, "secret must be"),
    ({"secret": "x", "probes": OLD_PROBES}, "secret draws the probes; give it or explicit"),
])
def test_bad_secrets_are_one_line_errors(kwargs, message):
    with pytest.raises(GradeError, match=message) as err:
        pl.default_plan(A, **kwargs)
    assert "\n" not in str(err.value) and err.value.parameters == ("secret",)


def test_toml_plan_draws_probes_with_its_secret():
    p = pl.parse_plan('probes = 3\nsecret = "abc"\nruns = 1\n[[setting]]\nsides=4\nlow=9\n'
                      'high=10\ndice=2\nm=1\ngames=50', assigned=A)
    assert p.secret == "abc" and "probes drawn with secret abc" in p.describe()
    assert [(s.role, s.runs) for s in p.settings] == [("assigned", 1)] + [("probe", 1)] * 4
    assert p.settings[1].settings == Settings(4, 9, 10, 2, 1.0, 50)
    assert tuple(s.settings for s in p.settings[2:]) == pl.draw_probes("abc", 3)
    # --probe-secret overrides the file's; without either a fresh one is drawn and recorded
    assert pl.parse_plan('probes = 2\nsecret = "abc"', assigned=A, secret="xyz") == \
        pl.default_plan(A, secret="xyz")
    fresh = pl.parse_plan("probes = 1", assigned=A)
    assert re.fullmatch(r"[0-9a-f]{16}", fresh.secret) and len(fresh.settings) == 2
    # the drawn probes avoid the plan's own settings
    clash = pl.draw_probes("k", 1)[0]
    p = pl.parse_plan('probes = 1\nsecret = "k"\nassigned = false\n[[setting]]\nrole = '
                      f'"assigned"\nsides=6\nlow={clash.low}\nhigh={clash.high}\ndice=2\n'
                      f'm={clash.m}\ngames={clash.games}')
    assert p.settings[0].settings == clash and p.settings[1].settings != clash


def test_toml_plan():
    text = """
runs = 4
[[setting]]
sides = 6
low = 20
high = 22
dice = 3
m = 10
games = 2000
runs = 1

[[setting]]
role = "probe"
sides = 4
low = 10
high = 12
dice = 2
m = 0.5
games = 500
"""
    p = pl.parse_plan(text, assigned=A)
    assert [(s.role, s.runs) for s in p.settings] == [("assigned", 4), ("probe", 1),
                                                      ("probe", 4)]
    assert p.settings[1].settings == Settings(6, 20, 22, 3, 10.0, 2000)
    assert pl.parse_plan(text, assigned=A, runs=2).settings[0].runs == 2


@pytest.mark.parametrize("text, message", [
    ("runs = [", "not valid TOML"),
    ("speed = 1", "unknown key 'speed'"),
    ("[[setting]]\nsides = 6", "missing 'low'"),
    ("[[setting]]\nsides=6\nlow=9\nhigh=8\ndice=2\nm=1\ngames=5", "low must be <= high"),
    ("[[setting]]\nsides=6\nlow=9\nhigh=10\ndice=2\nm=-1\ngames=5", "m must be"),
    ("runs = 0", "--runs must be"),
    ("assigned = false", "no setting"),
    ("probes = -1", "probes .how many probe settings to draw. must be a whole number in 0..50"),
    ("probes = 51", "probes .how many probe settings to draw. must be"),
    ("probes = true", "probes .how many probe settings to draw. must be"),
    ('probes = "2"', "probes .how many probe settings to draw. must be"),
    ("probes = 1\nsecret = 1.5", "the run plan: secret must be printable text"),
    ('probes = 1\nsecret = ""', "the run plan: secret must be printable text"),
    ('secret = "abc"', "the run plan: secret draws nothing without probes = N"),
    ('probes = 0\nsecret = "abc"', "the run plan: secret draws nothing without probes"),
    ("probes = 50", "the run plan has 51 settings; at most 50"),
])
def test_bad_plans_are_one_line_errors(text, message):
    with pytest.raises(GradeError, match=message):
        pl.parse_plan(text, assigned=A)


def test_a_secret_for_a_plan_that_draws_nothing_is_refused():
    with pytest.raises(GradeError, match="secret draws probe settings, but the run plan asks "
                       "for none") as err:
        pl.parse_plan("runs = 1", assigned=A, secret="abc")
    assert err.value.parameters == ("secret",)


def test_load_plan_passes_the_secret(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text("probes = 2\n")
    assert pl.load_plan(path, assigned=A, secret="q") == pl.default_plan(A, secret="q")


def test_load_plan_refuses_a_missing_file(tmp_path):
    with pytest.raises(GradeError, match="cannot read the run plan"):
        pl.load_plan(tmp_path / "nope.toml", assigned=A)


def _documented_regions() -> list[dict[str, tuple[int, int]]]:
    """docs/running.md's two probe regions, read from its words (never from the constants)."""
    text = " ".join(RUNNING.read_text().split())
    found = re.findall(r"NSides 6, NDice 2, LTarget (\d+)-(\d+), UTarget = LTarget \+ (\d+)-(\d+), "
                       r"M ([\d,]+)-([\d,]+), NGAMES ([\d,]+)-([\d,]+)", text)
    assert len(found) == 2, found
    out = []
    for row in found:
        n = [int(v.replace(",", "")) for v in row]
        out.append({"low": (n[0], n[1]), "gap": (n[2], n[3]), "m": (n[4], n[5]),
                    "games": (n[6], n[7])})
    return out


def test_default_probes_span_the_documented_ranges():
    """What a default batch actually runs: probes drawn from 300 secrets fill each documented
    range, NGAMES included (the first probe up to 20,000 games, the second from 2,000), and
    never leave it."""
    docs = _documented_regions()
    drawn = [pl.default_plan(A, secret=f"span-{i}").settings[1:] for i in range(300)]
    for k, region in enumerate(docs):
        probes = [d[k].settings for d in drawn]
        seen = {"low": [p.low for p in probes], "gap": [p.high - p.low for p in probes],
                "m": [p.m for p in probes], "games": [p.games for p in probes]}
        for key, (lo, hi) in region.items():
            values = seen[key]
            assert lo <= min(values) and max(values) <= hi, (k, key, min(values), max(values))
            slack = 0.05 * (hi - lo)
            assert min(values) <= lo + slack and max(values) >= hi - slack, (k, key)
        assert all((p.sides, p.dice) == (6, 2) for p in probes)
